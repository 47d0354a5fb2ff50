// One timed run (measure.h).
#include "driver/measure.h"

#include <algorithm>
#include <sstream>

#include "driver/backend.h"
#include "driver/register_cap.h"
#include "driver/run.h"
#include "schedule/resolve.h"

namespace tessel {

std::optional<nlohmann::json> measureRun(const Program& prog,
                                         const std::map<std::string, std::string>& given,
                                         const MeasureOptions& opts, DiagnosticEngine& diags) {
  // On CUDA the model's register cap, as `tessel run --backend cuda` takes it (register_cap.h):
  // by default where no --max-registers or clause sets one, and where `auto` asks for it.
  std::map<std::string, std::string> flags = given;
  std::string capLine;
  if (const CapRequest asked = capRequest(prog, flags, opts.backend == "cuda");
      asked != CapRequest::None) {
    auto choice = chooseRegisterCap(prog, flags, opts.params, diags);
    if (!choice) return std::nullopt;
    flags = choice->flags;
    capLine = choice->line(asked == CapRequest::Default);
  }
  auto setup = setUpSchedules(prog, flags, diags);
  if (!setup) return std::nullopt;
  BackendOptions bo;
  bo.schedule = setup->resolved;
  RunOptions ro;
  ro.params = opts.params;
  ro.repeat = opts.repeat;
  ro.verify = opts.verify;
  ro.reference = opts.reference;
  ro.referenceCache = opts.referenceCache;
  ro.json = true;
  ro.contracted = std::any_of(bo.schedule.grids.begin(), bo.schedule.grids.end(),
                              [](const GridShape& g) { return g.fma || g.retime; });
  std::unique_ptr<Backend> backend = makeBackend(opts.backend, prog, bo);
  const std::string generated = backend->generatedCode();
  if (opts.buildOnly) return nlohmann::json{{"generated", generated}};
  if (opts.measuredCode && !generated.empty())
    if (auto same = opts.measuredCode->find(generated); same != opts.measuredCode->end())
      return nlohmann::json{{"generated", generated}, {"same_code_as", same->second}};
  std::ostringstream report;
  const int code = runProgram(prog, ro, *backend, diags, report);
  if (code != kExitOk && code != kExitVerifyFailed) return std::nullopt;
  nlohmann::json r = nlohmann::json::parse(report.str());
  const std::string description = r["backend_description"];
  // The device, as the first line says it, without the backend's notes or whether the build
  // came from the cache (which says nothing about the device).
  std::string device = description.substr(0, description.find('\n'));
  if (const size_t cached = device.find(", cached build"); cached != std::string::npos)
    device.erase(cached, std::string(", cached build").size());
  r["device"] = device;
  if (!capLine.empty()) r["register_cap"] = capLine;
  return r;
}

}  // namespace tessel
