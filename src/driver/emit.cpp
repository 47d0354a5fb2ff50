#include "driver/emit.h"

#include <fmt/format.h>

#include <stdexcept>

#include "codegen/gpu_backend.h"
#include "driver/cpp_backend_adapter.h"
#include "exec/cpp_module.h"
#include "exec/gpu_module.h"

namespace tessel {

const std::vector<std::string>& emitTargets() {
  static const std::vector<std::string> names = {"cpp", "cuda", "opencl"};
  return names;
}

namespace {

std::string buildLine(const std::string& d) {
  return fmt::format("  build it standalone: cmake -S {} -B {}/build && cmake --build {}/build\n",
                     d, d, d);
}

}  // namespace

std::string emitProgram(const Program& prog, const EmitOptions& opts) {
  if (opts.target == "cpp" && !opts.schedule.runsKernels()) {
    CppBuildOptions build = CppBuildOptions::fromEnvironment();
    build.passLog = opts.passLog;
    build.fuseStatements = fusedStencils(opts.schedule);
    auto source = writeCppProject(prog, opts.directory, build);
    std::string d = source.parent_path().string();
    return fmt::format("wrote {}\n  and {}/CMakeLists.txt\n", source.string(), d) + buildLine(d);
  }
  GpuApi api;
  if (opts.target == "cuda")
    api = GpuApi::Cuda;
  else if (opts.target == "cpp")
    api = GpuApi::Cpu;
  else if (opts.target == "opencl")
    api = GpuApi::OpenCL;
  else
    throw std::runtime_error("unknown target '" + opts.target + "'");
  GpuSources src =
      generateGpu(prog, api, resolvedOrGlobal(prog, opts.schedule), opts.cudaArch, opts.passLog);
  auto paths = writeGpuProject(src, opts.directory);
  std::string out;
  for (size_t i = 0; i < paths.size(); ++i)
    out += fmt::format("{}{}\n", i == 0 ? "wrote " : "  and ", paths[i].string());
  out += fmt::format("  {} kernel{}:", src.kernels.size(), src.kernels.size() == 1 ? "" : "s");
  for (auto& k : src.kernels) out += " " + k.name;
  out += "\n";
  std::string d = paths.empty() ? opts.directory : paths.front().parent_path().string();
  out += buildLine(d);
  if (api == GpuApi::Cuda)
    out += fmt::format(
        "  (it builds {1} for {0}; for another GPU add -DCMAKE_CUDA_ARCHITECTURES={2}, for "
        "example, to the first cmake)\n",
        opts.cudaArch, kGpuLibraryName, opts.cudaArch == "sm_80" ? "90" : "80");
  else if (api == GpuApi::OpenCL)
    out += fmt::format(
        "  (it builds {}; the kernels are compiled by the OpenCL driver when the device is "
        "opened)\n",
        kGpuLibraryName);
  else
    out += fmt::format(
        "  (it builds {}: the schedule's GPU kernels as C++/OpenMP functions, pass "
        "work-item-loops)\n",
        kGpuLibraryName);
  for (auto& n : src.notes) out += "note: " + n + "\n";
  for (auto& n : opts.schedule.scheduleNotes) out += "note: " + n + "\n";
  return out;
}

}  // namespace tessel
