#include "driver/backend.h"

#include <chrono>
#include <stdexcept>

#include "driver/cpp_backend_adapter.h"
#include "driver/gpu_backend_adapter.h"
#include "runtime/interpreter.h"

namespace tessel {

namespace {

/// The reference interpreter as a backend: the oracle itself, timed.
class ReferenceBackend : public Backend {
 public:
  explicit ReferenceBackend(const Program& p) : prog_(p) {}
  std::string name() const override { return "reference"; }
  std::string description() const override {
    return "reference (the interpreter that defines the semantics; serial, not optimised)";
  }
  double run(ProgramState& st) override {
    auto t0 = std::chrono::steady_clock::now();
    interpret(prog_, st);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  const Program& prog_;
};

}  // namespace

const std::vector<std::string>& backendNames() {
  static const std::vector<std::string> names = {"cpp", "opencl", "cuda", "reference"};
  return names;
}

std::unique_ptr<Backend> makeBackend(const std::string& name, const Program& prog,
                                     const BackendOptions& opts) {
  if (name == "reference") return std::make_unique<ReferenceBackend>(prog);
  if (name == "cpp")
    return opts.schedule.runsKernels() ? makeGpuBackend(GpuApi::Cpu, prog, opts)
                                       : makeCppBackend(prog, opts);
  if (name == "opencl") return makeGpuBackend(GpuApi::OpenCL, prog, opts);
  if (name == "cuda") return makeGpuBackend(GpuApi::Cuda, prog, opts);
  throw std::runtime_error("unknown backend '" + name + "'");
}

}  // namespace tessel
