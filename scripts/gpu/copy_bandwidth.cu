// Device-to-device copy bandwidth of the current CUDA GPU: the roofline that docs/performance.md
// compares stencil throughput against. Build and run on a machine with a GPU:
//   nvcc -O2 -o copy_bandwidth scripts/gpu/copy_bandwidth.cu && ./copy_bandwidth [MiB]
// Prints the median of 20 timed copies (after 3 warm-ups), counting bytes read plus written.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));         \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  const size_t bytes = mib << 20;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  void *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemset(a, 1, bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int r = 0; r < 23; ++r) {
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (r >= 3) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  float med = ms[ms.size() / 2];
  std::printf("%s: device-to-device copy of %zu MiB: median %.3f ms, %.1f GB/s (read + write)\n",
              prop.name, mib, med, 2.0 * bytes / (med * 1e-3) / 1e9);
  std::printf("%s: %d SMs, L2 %d bytes, %zu bytes of global memory, shared memory per block "
              "%zu (opt-in %zu), per SM %zu\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize, prop.totalGlobalMem,
              prop.sharedMemPerBlock, prop.sharedMemPerBlockOptin, prop.sharedMemPerMultiprocessor);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 0;
}
