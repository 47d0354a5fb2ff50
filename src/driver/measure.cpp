// One timed run (measure.h).
#include "driver/measure.h"

#include <algorithm>
#include <sstream>

#include "driver/backend.h"
#include "driver/run.h"
#include "schedule/resolve.h"

namespace tessel {

std::optional<nlohmann::json> measureRun(const Program& prog,
                                         const std::map<std::string, std::string>& flags,
                                         const MeasureOptions& opts, DiagnosticEngine& diags) {
  auto setup = setUpSchedules(prog, flags, diags);
  if (!setup) return std::nullopt;
  BackendOptions bo;
  bo.schedule = setup->resolved;
  RunOptions ro;
  ro.params = opts.params;
  ro.repeat = opts.repeat;
  ro.verify = opts.verify;
  ro.reference = opts.reference;
  ro.json = true;
  ro.contracted = std::any_of(bo.schedule.grids.begin(), bo.schedule.grids.end(),
                              [](const GridShape& g) { return g.fma || g.retime; });
  std::unique_ptr<Backend> backend = makeBackend(opts.backend, prog, bo);
  std::ostringstream report;
  const int code = runProgram(prog, ro, *backend, diags, report);
  if (code != kExitOk && code != kExitVerifyFailed) return std::nullopt;
  nlohmann::json r = nlohmann::json::parse(report.str());
  const std::string description = r["backend_description"];
  r["device"] = description.substr(0, description.find('\n'));  // without the backend's notes
  return r;
}

}  // namespace tessel
