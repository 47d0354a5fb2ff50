// The GPU backends (OpenCL, CUDA) behind the Backend interface.
#pragma once

#include <memory>

#include "codegen/gpu_host_runtime.h"
#include "driver/backend.h"
#include "lower/lower_gpu.h"

namespace tessel {

/// Generates the program's code for `api` under `opts.schedule` (every stencil `global` when it
/// is unset), compiles its host code (or reuses a
/// cached build), loads it and opens the device (GpuBuildOptions::fromEnvironment: the device
/// from $TESSEL_OPENCL_DEVICE / $TESSEL_CUDA_DEVICE). Its run() returns the device time of the
/// kernels, from events. Throws EnvironmentError without a device ("no CUDA device", "no
/// OpenCL platform"), std::runtime_error when a build or an API call fails.
std::unique_ptr<Backend> makeGpuBackend(GpuApi api, const Program& prog,
                                        const BackendOptions& opts);

}  // namespace tessel
