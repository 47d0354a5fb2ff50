// The host runtime of the GPU targets: fixed C++ that every generated host file contains.
//
// The generated host code (lower_gpu.h) is target-neutral C++: it declares device buffers,
// copies and launches kernels through the names below. Each target supplies them over its API
// (OpenCL's C API through the ICD loader; the CUDA runtime API), checks every API call (an error
// names the call and its error code), times every kernel and on-device copy with events, and
// exports the C interface the tessel runtime loads with dlopen:
//
//   int32_t tessel_gpu_open(const char* device, tessel_gpu** gpu, char* message, int32_t size);
//       Picks the device (device: null or "" for the first; a number: the n-th device over all
//       platforms; otherwise a case-insensitive part of "platform: device"), builds the kernels.
//   int32_t tessel_gpu_run(tessel_gpu* gpu, void* const* arrays, const double* scalars,
//                          const int64_t* params, double* kernel_seconds, char* message,
//                          int32_t size);
//       Runs the program once (arrays, scalars, params as for the C++ backend's tessel_entry);
//       kernel_seconds receives the summed device time of its kernels and on-device copies.
//   const char* tessel_gpu_device(const tessel_gpu* gpu);   // "platform: device"
//   void tessel_gpu_close(tessel_gpu* gpu);
//   int32_t tessel_entry(void* const* arrays, const double* scalars, const int64_t* params);
//       Open (device from $TESSEL_OPENCL_DEVICE, or $TESSEL_CUDA_DEVICE), run, close; errors
//       are printed to stderr.
//
// Each returns a status: 0, a lir::Status of the program, kGpuApiError, kGpuNoDevice or
// kGpuDeviceLimit; on an error `message` holds a complete sentence.
#pragma once

#include <string>
#include <vector>

namespace tessel {

/// A call of the GPU API failed (the message names it and its error code).
inline constexpr int kGpuApiError = 100;
/// There is no device of this kind (no OpenCL platform or device, no CUDA device or driver).
inline constexpr int kGpuNoDevice = 101;
/// The device cannot run a kernel as scheduled: it has less local memory, or takes smaller
/// work-groups, than the machine description the schedule was validated against (OpenCL), or
/// the run's sizes need a grid of more blocks than CUDA launches (a user error, exit status 1).
inline constexpr int kGpuDeviceLimit = 102;

/// OpenCL and CUDA run on a GPU (or PoCL); Cpu runs the same kernels on the host's OpenMP
/// threads (pass work-item-loops), for the C++ target's tiled families.
enum class GpuApi { OpenCL, Cuda, Cpu };

/// The runtime's text, in three parts around the generated code: `includes` first, then the
/// kernel tables (kTesselKernelNames, and for CUDA kTesselKernels; for OpenCL the kernel source
/// kTesselKernelSource), `definitions`, the generated host functions, and `entry` (the C
/// interface, which calls the generated tessel_program).
struct GpuHostRuntime {
  std::string includes, definitions, entry;
};
GpuHostRuntime gpuHostRuntime(GpuApi api);

/// Every name the runtime defines (generated identifiers avoid them).
const std::vector<std::string>& gpuHostRuntimeNames();

/// The OpenCL program build options the runtime uses.
inline constexpr const char* kOpenclBuildOptions = "-cl-std=CL1.2";

}  // namespace tessel
