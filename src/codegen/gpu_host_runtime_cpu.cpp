// The CPU host runtime (gpu_host_runtime.h, GpuApi::Cpu): the GPU host code run on the host
// itself. "Device" buffers are host memory; a launch calls the kernel's CPU function (pass
// work-item-loops), whose blocks the OpenMP threads share; times are wall-clock times of the
// launches and on-device copies.
#include "codegen/gpu_host_runtime_parts.h"

namespace tessel::gpu {

const char* cpuIncludes() {
  return R"RT(#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>
)RT";
}

const char* cpuDefinitions() {
  return R"RT(// ---- host runtime (CPU: the kernels run on OpenMP threads) ---------------------------

// A failure (out of memory, or sizes beyond what the kernels were generated for): unwinds to
// the C interface, which reports it.
struct tessel_error {
  int32_t code;  // 100: an allocation failed; 102: the run cannot go as generated
  std::string message;
};

struct tessel_runtime {
  int status_value = 0;
  int* status = &status_value;  // the kernels' error status, every kernel's last argument
  double seconds = 0;           // wall-clock time of the launches and copies of this run
  std::string name;             // "CPU: N OpenMP threads"

  // There is one device, the host: the selector is not used.
  void open(const char* selector) {
    (void)selector;
    int n = omp_get_max_threads();
    name = "CPU: " + std::to_string(n) + " OpenMP thread" + (n == 1 ? "" : "s");
  }
  void begin_run() {
    seconds = 0;
    status_value = 0;
  }
  int32_t end_run() { return status_value; }
  void release_events() {}
};

// A "device" buffer in host memory, released when it goes out of scope. It converts to the
// typed pointer a kernel parameter takes.
struct tessel_device_buffer {
  void* handle = nullptr;
  size_t bytes = 0;
  std::string name;
  tessel_device_buffer(tessel_runtime& rt, size_t n, const char* what) : bytes(n), name(what) {
    (void)rt;
    handle = std::malloc(std::max<size_t>(n, 1));
    if (!handle)
      throw tessel_error{100, "malloc (" + name + ", " + std::to_string(n) + " bytes) failed"};
  }
  tessel_device_buffer(const tessel_device_buffer&) = delete;
  tessel_device_buffer& operator=(const tessel_device_buffer&) = delete;
  ~tessel_device_buffer() { std::free(handle); }
  template <class T>
  operator T*() const {
    return static_cast<T*>(handle);
  }
};

[[maybe_unused]]
static void tessel_copy_in(tessel_runtime& rt, tessel_device_buffer& dst, const void* src) {
  (void)rt;
  if (dst.bytes != 0) std::memcpy(dst.handle, src, dst.bytes);
}

[[maybe_unused]]
static void tessel_copy_out(tessel_runtime& rt, void* dst, tessel_device_buffer& src) {
  (void)rt;
  if (src.bytes != 0) std::memcpy(dst, src.handle, src.bytes);
}

[[maybe_unused]]
static void tessel_zero(tessel_runtime& rt, tessel_device_buffer& dst) {
  (void)rt;
  if (dst.bytes != 0) std::memset(dst.handle, 0, dst.bytes);
}

// Timed like a kernel (part of the computation, not a transfer).
[[maybe_unused]]
static void tessel_copy(tessel_runtime& rt, tessel_device_buffer& dst, tessel_device_buffer& src) {
  auto t0 = std::chrono::steady_clock::now();
  if (dst.bytes != 0) std::memcpy(dst.handle, src.handle, dst.bytes);
  rt.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Exchanges the memory of two buffers of the same size (overlapped tiling writes a new version
// of an array to its second buffer, then swaps: paper 001, Algorithm 5).
[[maybe_unused]]
static void tessel_swap(tessel_device_buffer& a, tessel_device_buffer& b) {
  std::swap(a.handle, b.handle);
}

// Runs kernel `id` (the call `run` makes: its CPU function over the grid), timed.
template <class F>
[[maybe_unused]]
static void tessel_launch(tessel_runtime& rt, int id, const F& run) {
  (void)id;
  auto t0 = std::chrono::steady_clock::now();
  run();
  rt.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Loops as graphs (lower_gpu_graph.cpp): none here, every iteration calls its kernels directly.
[[maybe_unused]]
static void tessel_graph_begin(tessel_runtime& rt, int site, int64_t& replays, int64_t iterations,
                               int64_t period) {
  (void)rt, (void)site, (void)iterations, (void)period;
  replays = 0;
}
[[maybe_unused]]
static void tessel_graph_end(tessel_runtime& rt, int site, int64_t replays) {
  (void)rt, (void)site, (void)replays;
}
)RT";
}

}  // namespace tessel::gpu
