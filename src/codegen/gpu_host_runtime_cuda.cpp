// The CUDA host runtime (gpu_host_runtime.h): C++ over the CUDA runtime API.
#include "codegen/gpu_host_runtime_parts.h"

namespace tessel::gpu {

const char* cudaIncludes() {
  return R"RT(#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>
)RT";
}

const char* cudaDefinitions() {
  return R"RT(// ---- host runtime (CUDA) ----------------------------------------------------------

// An API call failed, or there is no device: unwinds to the C interface, which reports it.
struct tessel_error {
  int32_t code;  // 100: an API call failed; 101: no device; 102: the run cannot go as generated
  std::string message;
};

// Every API call goes through this check: a failure names the call and its error code.
[[maybe_unused]]
static void tessel_check(cudaError_t err, const char* call, const std::string& what = "") {
  if (err == cudaSuccess) return;
  throw tessel_error{100, std::string(call) + (what.empty() ? "" : " (" + what + ")") +
                              " failed: " + cudaGetErrorName(err) + " (" +
                              std::to_string(static_cast<int>(err)) + "): " +
                              cudaGetErrorString(err)};
}

struct tessel_runtime {
  int device = -1;
  cudaStream_t stream = nullptr;
  int* status = nullptr;  // the device error status, every kernel's last argument
  // One event pair per run, from before its first kernel or device copy to after its last (the
  // gaps between them included; host-device transfers before and after left out); created once.
  cudaEvent_t run_start = nullptr, run_stop = nullptr;
  bool timing = false;  // run_start recorded in this run
  double seconds = 0;                  // device time of the last run
  const char* last_kernel = nullptr;   // the kernel launched last in this run, for a fault
  int launches = 0;                    // kernels launched in this run
  std::string name;                    // "CUDA: device"
  // Loops as CUDA Graphs (tessel_graph_begin): on unless $TESSEL_GRAPHS is 0; a capture in
  // progress (and the launches before it); per loop (its site), its executable graph, kept from
  // one run to the next and updated with the new run's buffers.
  bool graphs = true;
  // $TESSEL_SYNC_LAUNCHES=1: wait for each kernel as it is launched, so that a fault names the
  // kernel that faulted (slower; no graphs then, whose launches cannot be waited for one by one).
  bool sync_launches = false;
  bool capturing = false;
  int launches_before_capture = 0;
  std::vector<cudaGraphExec_t> graph_execs;

  tessel_runtime() = default;
  // Releases are not checked: a destructor could do nothing about a failure.
  tessel_runtime(const tessel_runtime&) = delete;
  tessel_runtime& operator=(const tessel_runtime&) = delete;
  ~tessel_runtime() {
    abort_capture();
    for (cudaGraphExec_t e : graph_execs)
      if (e) cudaGraphExecDestroy(e);
    if (run_start) cudaEventDestroy(run_start);
    if (run_stop) cudaEventDestroy(run_stop);
    if (status) cudaFree(status);
    if (stream) cudaStreamDestroy(stream);
  }

  // Picks the device: "" the first; a number the n-th; otherwise the first whose name contains
  // the text (case-insensitive).
  void open(const char* selector) {
    std::string want = selector ? selector : "";
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n == 0)
      throw tessel_error{101, std::string("no CUDA device (cudaGetDeviceCount: ") +
                                  (err == cudaSuccess ? "0 devices"
                                                      : std::string(cudaGetErrorName(err)) +
                                                            ": " + cudaGetErrorString(err)) +
                                  ")"};
    std::vector<std::string> names;
    for (int d = 0; d < n; ++d) {
      cudaDeviceProp p;
      tessel_check(cudaGetDeviceProperties(&p, d), "cudaGetDeviceProperties");
      names.push_back(std::string("CUDA: ") + p.name);
    }
    auto lower = [](std::string s) {
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    if (want.empty()) {
      device = 0;
    } else if (std::all_of(want.begin(), want.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      device = want.size() > 9 ? -1 : std::atoi(want.c_str());  // (no int overflow)
    } else {
      for (int d = 0; d < n && device < 0; ++d)
        if (lower(names[d]).find(lower(want)) != std::string::npos) device = d;
    }
    if (device < 0 || device >= n) {
      std::string list;
      for (int d = 0; d < n; ++d) list += "\n  " + std::to_string(d) + ": " + names[d];
      throw tessel_error{101, "no CUDA device matches '" + want + "'; the devices are:" + list};
    }
    name = names[device];
    const char* graphs_env = std::getenv("TESSEL_GRAPHS");
    const char* sync_env = std::getenv("TESSEL_SYNC_LAUNCHES");
    sync_launches = sync_env && *sync_env && std::string(sync_env) != "0";
    graphs = !(graphs_env && std::string(graphs_env) == "0") && !sync_launches;
    tessel_check(cudaSetDevice(device), "cudaSetDevice");
    tessel_check(cudaStreamCreate(&stream), "cudaStreamCreate");
    tessel_check(cudaMalloc(reinterpret_cast<void**>(&status), sizeof(int)), "cudaMalloc",
                 "error status");
  }

  // After a failure: a capture the failure interrupted is ended and dropped (the run's events
  // are reused).
  void release_events() { abort_capture(); }
  void abort_capture() {
    if (!capturing) return;
    capturing = false;
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(stream, &g);  // not checked: the capture failed or was interrupted
    if (g) cudaGraphDestroy(g);  // not checked: cleaning up after a failure already reported
    cudaGetLastError();          // clears the sticky error the interruption left
  }

  void begin_run() {
    abort_capture();
    if (!run_start) tessel_check(cudaEventCreate(&run_start), "cudaEventCreate");
    if (!run_stop) tessel_check(cudaEventCreate(&run_stop), "cudaEventCreate");
    seconds = 0;
    last_kernel = nullptr;
    launches = 0;
    timing = false;
    tessel_check(cudaMemsetAsync(status, 0, sizeof(int), stream), "cudaMemsetAsync",
                 "error status");
  }
  // Around each kernel and device copy: the first starts the run's time, each ends it.
  // (Not while a graph is captured: its launches are timed.)
  void before_timed() {
    if (capturing) return;
    if (!timing) tessel_check(cudaEventRecord(run_start, stream), "cudaEventRecord");
    timing = true;
  }
  void after_timed() {
    if (!capturing) tessel_check(cudaEventRecord(run_stop, stream), "cudaEventRecord");
  }
  // Waits for the stream. A kernel that faults is reported here: the message names the kernels
  // that may have (those launched since the run began, up to the last one).
  void synchronize() {
    const cudaError_t err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess && last_kernel)
      tessel_check(err, "cudaStreamSynchronize",
                   std::string("a kernel faulted: one of the ") + std::to_string(launches) +
                       " launched in this run so far, the last " + last_kernel);
    tessel_check(err, "cudaStreamSynchronize");
  }
  int32_t end_run() {
    synchronize();
    float ms = 0;
    if (timing)
      tessel_check(cudaEventElapsedTime(&ms, run_start, run_stop), "cudaEventElapsedTime");
    seconds = ms * 1e-3;
    int s = 0;
    tessel_check(cudaMemcpy(&s, status, sizeof s, cudaMemcpyDeviceToHost), "cudaMemcpy",
                 "error status");
    return s;
  }
};

// A device buffer, freed when it goes out of scope.
struct tessel_device_buffer {
  void* handle = nullptr;
  size_t bytes = 0;
  std::string name;
  tessel_device_buffer(tessel_runtime& /*rt*/, size_t n, const char* what) : bytes(n), name(what) {
    tessel_check(cudaMalloc(&handle, std::max<size_t>(n, 1)), "cudaMalloc",
                 name + ", " + std::to_string(n) + " bytes");
  }
  tessel_device_buffer(const tessel_device_buffer&) = delete;
  tessel_device_buffer& operator=(const tessel_device_buffer&) = delete;
  ~tessel_device_buffer() {
    if (handle) cudaFree(handle);  // not checked: a destructor could do nothing about a failure
  }
};

[[maybe_unused]]
static void tessel_copy_in(tessel_runtime& rt, tessel_device_buffer& dst, const void* src) {
  if (dst.bytes == 0) return;
  tessel_check(cudaMemcpyAsync(dst.handle, src, dst.bytes, cudaMemcpyHostToDevice, rt.stream),
               "cudaMemcpyAsync", dst.name);
  rt.synchronize();
}

[[maybe_unused]]
static void tessel_copy_out(tessel_runtime& rt, void* dst, tessel_device_buffer& src) {
  if (src.bytes == 0) return;
  tessel_check(cudaMemcpyAsync(dst, src.handle, src.bytes, cudaMemcpyDeviceToHost, rt.stream),
               "cudaMemcpyAsync", src.name);
  rt.synchronize();
}

[[maybe_unused]]
static void tessel_zero(tessel_runtime& rt, tessel_device_buffer& dst) {
  if (dst.bytes == 0) return;
  tessel_check(cudaMemsetAsync(dst.handle, 0, dst.bytes, rt.stream), "cudaMemsetAsync", dst.name);
}

// On the device, timed like a kernel (part of the computation, not a transfer).
[[maybe_unused]]
static void tessel_copy(tessel_runtime& rt, tessel_device_buffer& dst, tessel_device_buffer& src) {
  if (dst.bytes == 0) return;
  rt.before_timed();
  tessel_check(cudaMemcpyAsync(dst.handle, src.handle, dst.bytes, cudaMemcpyDeviceToDevice,
                               rt.stream),
               "cudaMemcpyAsync", src.name + " to " + dst.name);
  rt.after_timed();
}

// Exchanges the device memory of two buffers of the same size (overlapped tiling writes a new
// version of an array to its second buffer, then swaps: paper 001, Algorithm 5).
[[maybe_unused]]
static void tessel_swap(tessel_device_buffer& a, tessel_device_buffer& b) {
  std::swap(a.handle, b.handle);
}

// Launches kernel `id` over gx*gy*gz blocks of bx*by*bz threads; the arguments are passed as
// they are (each has its kernel parameter's type), then the error status.
template <class... A>
[[maybe_unused]]
static void tessel_launch(tessel_runtime& rt, int id, int dims, int64_t gx, int64_t gy, int64_t gz,
                          int64_t bx, int64_t by, int64_t bz, const A&... args) {
  const char* name = kTesselKernelNames[id];
  (void)dims;
  if (gx > 2147483647 || gy > 65535 || gz > 65535)
    throw tessel_error{102, std::string("launching ") + name + ": a grid of " +
                                std::to_string(gx) + " x " + std::to_string(gy) + " x " +
                                std::to_string(gz) +
                                " blocks exceeds CUDA's limits (2^31-1 x 65535 x 65535); "
                                "choose larger blocks"};
  void* argv[] = {const_cast<void*>(static_cast<const void*>(&args))...,
                  static_cast<void*>(&rt.status)};
  // Shared memory beyond 48 KiB is dynamic: the kernel's limit is raised to it first (the
  // device refuses more than its opt-in maximum per block, and the check names the kernel).
  const int dynamic_shared = kTesselKernelDynamicShared[id];
  if (dynamic_shared > 0)
    tessel_check(cudaFuncSetAttribute(kTesselKernels[id],
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic_shared),
                 "cudaFuncSetAttribute", std::string(name) + ": " +
                                             std::to_string(dynamic_shared) +
                                             " bytes of dynamic shared memory");
  rt.last_kernel = name;
  ++rt.launches;
  rt.before_timed();
  tessel_check(cudaLaunchKernel(kTesselKernels[id], dim3(unsigned(gx), unsigned(gy), unsigned(gz)),
                                dim3(unsigned(bx), unsigned(by), unsigned(bz)), argv,
                                size_t(dynamic_shared), rt.stream),
               "cudaLaunchKernel", name);
  rt.after_timed();
  if (rt.sync_launches)
    tessel_check(cudaStreamSynchronize(rt.stream), "cudaStreamSynchronize",
                 std::string("kernel ") + name + " faulted ($TESSEL_SYNC_LAUNCHES waits for each)");
}

// A loop as a CUDA Graph (lower_gpu_graph.cpp): *replays > 0 when the loop's iterations, from
// here to tessel_graph_end, are captured instead of run; 0 when they run directly: graphs off
// ($TESSEL_GRAPHS=0), the loop would be replayed fewer than twice, or a capture is already in
// progress (an inner loop is part of the outer one's graph).
[[maybe_unused]]
static void tessel_graph_begin(tessel_runtime& rt, int site, int64_t& replays, int64_t iterations,
                               int64_t period) {
  (void)site;
  replays = 0;
  if (!rt.graphs || rt.capturing || iterations / period < 2) return;
  tessel_check(cudaStreamBeginCapture(rt.stream, cudaStreamCaptureModeThreadLocal),
               "cudaStreamBeginCapture");
  rt.capturing = true;
  rt.launches_before_capture = rt.launches;
  replays = iterations / period;
}

// Ends the capture and launches the graph `replays` times. The loop's executable graph from an
// earlier run is updated in place where the driver can (the same kernels and copies on the new
// run's buffers), else instantiated anew.
[[maybe_unused]]
static void tessel_graph_end(tessel_runtime& rt, int site, int64_t replays) {
  rt.capturing = false;
  cudaGraph_t graph = nullptr;
  tessel_check(cudaStreamEndCapture(rt.stream, &graph), "cudaStreamEndCapture");
  if (rt.graph_execs.size() <= size_t(site)) rt.graph_execs.resize(size_t(site) + 1, nullptr);
  cudaGraphExec_t& exec = rt.graph_execs[size_t(site)];
  if (exec) {
#if CUDART_VERSION >= 12000
    cudaGraphExecUpdateResultInfo info;
    const cudaError_t updated = cudaGraphExecUpdate(exec, graph, &info);
#else
    cudaGraphNode_t node = nullptr;
    cudaGraphExecUpdateResult info;
    const cudaError_t updated = cudaGraphExecUpdate(exec, graph, &node, &info);
#endif
    if (updated != cudaSuccess) {  // not a failure: the loop's graph changed; built anew below
      cudaGetLastError();          // clears the refused update's error
      cudaGraphExecDestroy(exec);  // not checked: the old graph goes, a new one is built below
      exec = nullptr;
    }
  }
  if (!exec) {
#if CUDART_VERSION >= 12000
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
#else
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
#endif
    if (made != cudaSuccess) {
      exec = nullptr;
      cudaGraphDestroy(graph);  // not checked: the instantiation's failure is what is reported
      tessel_check(made, "cudaGraphInstantiate");
    }
  }
  tessel_check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  const int captured = rt.launches - rt.launches_before_capture;
  rt.before_timed();
  for (int64_t r = 0; r < replays; ++r)
    tessel_check(cudaGraphLaunch(exec, rt.stream), "cudaGraphLaunch",
                 "a loop of " + std::to_string(captured) + " kernels, replay " +
                     std::to_string(r + 1) + " of " + std::to_string(replays));
  rt.after_timed();
  rt.launches = rt.launches_before_capture + int(captured * replays);
}
)RT";
}

}  // namespace tessel::gpu
