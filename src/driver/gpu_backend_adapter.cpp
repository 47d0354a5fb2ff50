#include "driver/gpu_backend_adapter.h"

#include <fmt/format.h>

#include "exec/gpu_module.h"

namespace tessel {

namespace {

class GpuBackend : public Backend {
 public:
  GpuBackend(GpuApi api, const Program& prog, const BackendOptions& opts)
      : module_(make(api, prog, opts)), notes_(opts.schedule.scheduleNotes) {}
  std::string name() const override {
    GpuApi api = module_->api();
    return api == GpuApi::OpenCL ? "opencl" : api == GpuApi::Cuda ? "cuda" : "cpp";
  }
  std::string description() const override {
    GpuApi api = module_->api();
    std::string d =
        api == GpuApi::Cpu
            ? fmt::format(
                  "cpp (generated C++/OpenMP: the schedule's GPU kernels on the {}{}; time: "
                  "kernels, wall clock)",
                  module_->deviceName(), module_->reused() ? ", cached build" : "")
            : fmt::format("{} (generated {} on {}{}; time: {})", name(),
                          api == GpuApi::OpenCL ? "OpenCL" : "CUDA", module_->deviceName(),
                          module_->reused() ? ", cached build" : "",
                          api == GpuApi::OpenCL
                              ? "kernels, from device events"
                              : "first kernel to last, from one device event pair");
    for (auto& n : module_->sources().notes) d += "\n             note: " + n;
    for (auto& n : notes_) d += "\n             note: " + n;
    return d;
  }
  double run(ProgramState& st) override { return module_->run(st); }
  std::string generatedCode() const override { return module_->sourcePath().string(); }

 private:
  std::unique_ptr<GpuModule> module_;
  std::vector<std::string> notes_;

  static std::unique_ptr<GpuModule> make(GpuApi api, const Program& prog,
                                         const BackendOptions& opts) {
    const ResolvedSchedule resolved = resolvedOrGlobal(prog, opts.schedule);
    GpuBuildOptions o = GpuBuildOptions::fromEnvironment(api);
    if (!opts.workDir.empty()) o.directory = opts.workDir;
    o.passLog = opts.passLog;
    if (api == GpuApi::OpenCL) return std::make_unique<OpenclModule>(prog, resolved, o);
    if (api == GpuApi::Cpu) return std::make_unique<CpuTiledModule>(prog, resolved, o);
    return std::make_unique<CudaModule>(prog, resolved, o);
  }
};

}  // namespace

std::unique_ptr<Backend> makeGpuBackend(GpuApi api, const Program& prog,
                                        const BackendOptions& opts) {
  return std::make_unique<GpuBackend>(api, prog, opts);
}

}  // namespace tessel
