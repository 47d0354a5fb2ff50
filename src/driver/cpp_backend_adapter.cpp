#include "driver/cpp_backend_adapter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "exec/cpp_module.h"

namespace tessel {

namespace {

class CppBackend : public Backend {
 public:
  CppBackend(const Program& prog, const BackendOptions& opts) : module_(prog, options(opts)) {}
  std::string name() const override { return "cpp"; }
  std::string description() const override {
    return fmt::format("cpp (generated C++/OpenMP, {} thread{}{})", threads(),
                       threads() == 1 ? "" : "s", module_.reused() ? ", cached build" : "");
  }
  double run(ProgramState& st) override { return module_.run(st); }
  std::string generatedCode() const override { return module_.sourcePath().string(); }

 private:
  CppModule module_;
  static CppBuildOptions options(const BackendOptions& opts) {
    CppBuildOptions o = CppBuildOptions::fromEnvironment();
    if (!opts.workDir.empty()) o.directory = opts.workDir;
    o.passLog = opts.passLog;
    o.fuseStatements = fusedStencils(opts.schedule);
    return o;
  }
  // What the OpenMP runtime of the generated library will use: OMP_NUM_THREADS or every core.
  static int threads() {
    if (const char* n = std::getenv("OMP_NUM_THREADS"); n && std::atoi(n) > 0) return std::atoi(n);
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
};

}  // namespace

std::vector<bool> fusedStencils(const ResolvedSchedule& schedule) {
  std::vector<bool> out;
  for (const GridShape& g : schedule.grids) out.push_back(g.fuseStatements);
  return out;
}

std::unique_ptr<Backend> makeCppBackend(const Program& prog, const BackendOptions& opts) {
  return std::make_unique<CppBackend>(prog, opts);
}

}  // namespace tessel
