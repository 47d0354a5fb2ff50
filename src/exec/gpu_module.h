// The GPU runtimes: generate a Program's OpenCL or CUDA code (codegen/gpu_backend.h), build its
// host code into a shared library (cached by hash), load it with dlopen, open a device and run;
// or write the sources out as a standalone project (writeGpuProject).
//
// OpenCL runs through the ICD loader on the first device (or the one GpuBuildOptions names;
// PoCL runs it on the CPU here). CUDA is used only where a CUDA device exists: CudaModule checks
// first (libcuda.so.1, cuInit, cuDeviceGetCount) and throws EnvironmentError "no CUDA device"
// otherwise, before compiling anything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/gpu_backend.h"
#include "ir/program.h"
#include "runtime/state.h"

namespace tessel {

struct GpuBuildOptions {
  /// Where the files go. Empty: `cacheRoot/<hash>`, one directory per (sources, command).
  std::filesystem::path directory;
  std::filesystem::path cacheRoot;
  std::string hostCompiler = "c++";  // OpenCL host code
  std::string nvcc = "nvcc";         // CUDA
  std::string cudaArch = kDefaultCudaArch;
  /// Which device: "" the first; a number the n-th (over all OpenCL platforms); otherwise a
  /// case-insensitive part of its name ("pthread", "NVIDIA").
  std::string device;
  /// Replaces the optimisation level of the host compiler's flags (OpenCL host code, the
  /// cpu-tiled C++), e.g. "-O0"; empty: the backend's own (TESSEL_HOST_OPT).
  std::string hostOpt;
  /// The pipeline's pass log (--print-ir-after-all, --time-passes); null: a silent one.
  PassLog* passLog = nullptr;

  /// Reads the environment once, here and nowhere deeper: CXX (host compiler), NVCC,
  /// TESSEL_OPENCL_DEVICE or TESSEL_CUDA_DEVICE (for `api`), TESSEL_HOST_OPT, and for the cache
  /// $XDG_CACHE_HOME/tessel/<api>, else $HOME/.cache/tessel/<api>, else a temp directory.
  static GpuBuildOptions fromEnvironment(GpuApi api);
};

/// A compiled and loaded GPU program with an open device. The Program must outlive it.
class GpuModule {
 public:
  virtual ~GpuModule();
  GpuModule(GpuModule&& o) noexcept;
  GpuModule& operator=(GpuModule&& o) noexcept;
  GpuModule(const GpuModule&) = delete;
  GpuModule& operator=(const GpuModule&) = delete;

  /// Runs the whole program on `state`: copies in what the data lists say, runs every call,
  /// copies out the copyout arrays (every array a call writes, without a copyout list); other
  /// arrays of `state` are left as they were. Returns the summed device time of the kernels
  /// (and on-device copies), from events. Throws RuntimeError for a state that does not match
  /// or a run-time error of the program (status from the device or the host), EnvironmentError
  /// when the device is gone, std::runtime_error when an API call fails (its message names it).
  double run(ProgramState& state) const;

  GpuApi api() const { return src_.api; }
  /// "platform: device" (OpenCL) or "CUDA: device".
  const std::string& deviceName() const { return device_; }
  const GpuSources& sources() const { return src_; }
  const std::filesystem::path& directory() const { return dir_; }
  /// The main source file (tessel_host.cpp or tessel_program.cu).
  std::filesystem::path sourcePath() const;
  const std::filesystem::path& libraryPath() const { return lib_; }
  /// True if the library was found already built (nothing was compiled).
  bool reused() const { return reused_; }

 protected:
  GpuModule(const Program& prog, GpuApi api, const ResolvedSchedule& resolved,
            const GpuBuildOptions& opts);

 private:
  // The library's C interface (gpu_host_runtime.h).
  using OpenFn = int32_t (*)(const char*, void**, char*, int32_t);
  using RunFn = int32_t (*)(void*, void* const*, const double*, const int64_t*, double*, char*,
                            int32_t);
  using DeviceFn = const char* (*)(const void*);
  using CloseFn = void (*)(void*);
  const Program* prog_ = nullptr;
  RunFn runFn_ = nullptr;
  CloseFn closeFn_ = nullptr;
  GpuSources src_;
  std::filesystem::path dir_, lib_;
  std::string device_;
  void* lib_handle_ = nullptr;
  void* gpu_ = nullptr;  // the library's tessel_gpu
  bool reused_ = false;
  void load(const GpuBuildOptions& opts);
  void close();
};

class OpenclModule : public GpuModule {
 public:
  explicit OpenclModule(
      const Program& prog, const ResolvedSchedule& resolved,
      const GpuBuildOptions& opts = GpuBuildOptions::fromEnvironment(GpuApi::OpenCL));
};

/// The GPU kernels of a schedule run on the host's OpenMP threads (GpuApi::Cpu): the C++
/// target's tiled families.
class CpuTiledModule : public GpuModule {
 public:
  explicit CpuTiledModule(
      const Program& prog, const ResolvedSchedule& resolved,
      const GpuBuildOptions& opts = GpuBuildOptions::fromEnvironment(GpuApi::Cpu));
};

class CudaModule : public GpuModule {
 public:
  explicit CudaModule(const Program& prog, const ResolvedSchedule& resolved,
                      const GpuBuildOptions& opts = GpuBuildOptions::fromEnvironment(GpuApi::Cuda));
};

/// Writes the sources into `directory` (created if needed) without compiling; returns the paths
/// written, the main source first.
std::vector<std::filesystem::path> writeGpuProject(const GpuSources& src,
                                                   const std::filesystem::path& directory);

/// Whether a CUDA device can run code here: loads libcuda.so.1 and asks cuInit and
/// cuDeviceGetCount. When not, `why` (if given) says why ("no CUDA driver (libcuda.so.1 ...)").
bool cudaDeviceAvailable(std::string* why = nullptr);

/// The command that compiles the host library for `api` (shell-quoted, without the output file).
std::string gpuCompileCommand(GpuApi api, const GpuBuildOptions& opts);

}  // namespace tessel
