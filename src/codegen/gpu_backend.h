// The GPU backends' sources: a Program lowered for a GPU (lower_gpu.h) and printed as OpenCL or
// CUDA, with its host code and a CMakeLists.txt that builds it standalone.
//
// OpenCL: tessel_kernels.cl (the kernels, OpenCL C 1.2), tessel_host.cpp (the host code, with
//   the kernels embedded as a string and built when the device is opened), CMakeLists.txt.
// CUDA:   tessel_program.cu (kernels and host code), CMakeLists.txt (arch sm_90 by default).
// Cpu:    tessel_program.cpp (the kernels as CPU functions, pass work-item-loops, and the host
//         code over the CPU runtime), CMakeLists.txt.
// Either builds into libtessel_program.so with the C interface of gpu_host_runtime.h.
// Writing, building, loading and running them: exec/gpu_module.h.
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu_host_runtime.h"
#include "ir/program.h"
#include "lower/lower_gpu.h"
#include "support/pass_log.h"

namespace tessel {

inline constexpr const char* kOpenclKernelName = "tessel_kernels.cl";
inline constexpr const char* kOpenclHostName = "tessel_host.cpp";
inline constexpr const char* kCudaSourceName = "tessel_program.cu";
inline constexpr const char* kCpuSourceName = "tessel_program.cpp";
inline constexpr const char* kGpuLibraryName = "libtessel_program.so";
inline constexpr const char* kDefaultCudaArch = "sm_90";

/// Compiler flags for the OpenCL host code (after `c++`, before the file; link with -lOpenCL):
/// C++17, a shared library, the host's own arithmetic exact like the reference (no FMA
/// contraction, wrapping ints).
std::vector<std::string> openclHostCompileFlags();
/// Compiler flags of the CPU build of the GPU kernels and host code (GpuApi::Cpu): those of the
/// C++ target (cppCompileFlags: -O3, OpenMP, no FMA contraction, wrapping ints).
std::vector<std::string> cpuTiledCompileFlags();
/// nvcc flags for the CUDA file as a shared library for `arch` (sm_90): -O3, -fmad=false (no
/// FMA contraction in kernels), the host flags as for OpenCL.
std::vector<std::string> cudaCompileFlags(const std::string& arch = kDefaultCudaArch);

struct GpuSources {
  GpuApi api = GpuApi::OpenCL;
  std::vector<GpuKernelInfo> kernels;  // by launch id
  /// Every kernel function by launch id: those of `kernels`, then the 64-bit copies of the
  /// narrowed ones (GpuKernelInfo::fallback; lower/lower_gpu.h).
  std::vector<std::string> launchNames;
  std::vector<std::string> notes;  // the lowering's decisions (fallbacks)
  /// The stencils' schedules as the files' first line gives them (family, block and the options
  /// that shape the kernels).
  std::string schedule;
  std::string kernelSource;  // OpenCL: tessel_kernels.cl; CUDA: the device part of the .cu
  std::string hostSource;    // OpenCL: tessel_host.cpp; CUDA: the whole tessel_program.cu
  std::string cmakeLists;
};

/// Lowers and prints `prog` for `api` under its resolved schedule (schedule/resolve.h;
/// resolve(prog, {}): every stencil `global`). `cudaArch` is used by the CMakeLists and build
/// comments. Throws std::invalid_argument for a schedule resolved for another program
/// (buildKernels).
/// `log`: the pass log of the pipeline (lower/lower.h), for --print-ir-after-all and
/// --time-passes; null: a silent one.
GpuSources generateGpu(const Program& prog, GpuApi api, const ResolvedSchedule& resolved,
                       const std::string& cudaArch = kDefaultCudaArch, PassLog* log = nullptr);

}  // namespace tessel
