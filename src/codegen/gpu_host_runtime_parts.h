// The texts of the GPU host runtimes (gpu_host_runtime.h), one file per API. Not a public
// interface.
#pragma once

namespace tessel::gpu {

const char* openclIncludes();
const char* openclDefinitions();
const char* cudaIncludes();
const char* cudaDefinitions();
const char* cpuIncludes();
const char* cpuDefinitions();

}  // namespace tessel::gpu
