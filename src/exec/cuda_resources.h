// What ptxas reports for each kernel of a generated CUDA file: registers, shared memory, local
// memory (stack frame, lmem) and spills. Needs nvcc, not a GPU.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tessel {

struct KernelResources {
  std::string name;
  int registers = 0;
  int barriers = 0;
  int64_t sharedBytes = 0;    // smem, static, per block
  int64_t localBytes = 0;     // lmem per thread (older ptxas; newer ones report the stack frame)
  int64_t stackBytes = 0;     // stack frame per thread
  int64_t spillStores = 0;    // bytes
  int64_t spillLoads = 0;     // bytes
  int64_t constantBytes = 0;  // cmem, all banks
};

struct CudaResourceReport {
  std::string arch;                      // sm_90
  std::vector<KernelResources> kernels;  // in ptxas's order
  /// Lines of nvcc's and ptxas's output that are warnings (host or device); none for clean code.
  std::vector<std::string> warnings;
  std::string output;   // everything nvcc printed
  std::string command;  // how it ran
  bool reused = false;  // the report came from the cache (same source, same command)

  const KernelResources* find(const std::string& kernel) const;
};

struct CudaResourceOptions {
  std::string nvcc;  // empty: findNvcc()
  std::string arch = "sm_90";
  /// Where the source, object and nvcc's output are kept, one directory per (source, command);
  /// a report for the same pair is reused. Empty: a fresh temporary directory, removed after.
  std::filesystem::path cacheRoot;
  /// Host code too is compiled, with -Wall -Wextra, so that its warnings are reported.
  bool hostWarnings = true;
  /// Only the device code: `-cubin` instead of `-c` (no host compiler run, no host warnings).
  /// ptxas compiles the same kernels with the same options, so its figures are the same; nvcc
  /// takes about a third of the time (hypterm's overlapped/2 program: 1.4 s against 4.5 s).
  bool deviceOnly = false;
};

/// nvcc to use: $NVCC, `nvcc` on the PATH, or /usr/local/cuda/bin/nvcc; empty if none exists.
std::string findNvcc();

/// The nvcc command line (without the source and output files): -arch, -O3, -fmad=false,
/// -Xptxas -v, then -cubin with deviceOnly, else -c, and -Xcompiler -Wall,-Wextra with
/// hostWarnings.
std::vector<std::string> cudaResourceFlags(const CudaResourceOptions& opts);

/// Compiles `cuSource` (a whole generated .cu file) with nvcc and parses ptxas's report.
/// Throws EnvironmentError when nvcc is missing or cannot run, std::runtime_error when the
/// compilation fails (with nvcc's first lines).
CudaResourceReport cudaResources(const std::string& cuSource, const CudaResourceOptions& opts = {});

/// Parses `ptxas -v` output (as nvcc -Xptxas -v prints it): one entry per entry function.
std::vector<KernelResources> parsePtxasReport(const std::string& output);

}  // namespace tessel
