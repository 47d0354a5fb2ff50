// The OpenCL host runtime (gpu_host_runtime.h): C++ over OpenCL 1.2's C API.
#include "codegen/gpu_host_runtime_parts.h"

namespace tessel::gpu {

const char* openclIncludes() {
  return R"RT(#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>
)RT";
}

const char* openclDefinitions() {
  return R"RT(// ---- host runtime (OpenCL) --------------------------------------------------------

// An API call failed, or there is no device: unwinds to the C interface, which reports it.
struct tessel_error {
  int32_t code;  // 100: an API call failed; 101: no device; 102: the run cannot go as generated
  std::string message;
};

[[maybe_unused]]
static const char* tessel_cl_error_name(cl_int e) {
  switch (e) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
      return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE_TYPE: return "CL_INVALID_DEVICE_TYPE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_QUEUE_PROPERTIES: return "CL_INVALID_QUEUE_PROPERTIES";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_BUILD_OPTIONS: return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
    case CL_INVALID_PROGRAM_EXECUTABLE: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL: return "CL_INVALID_KERNEL";
    case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_OFFSET: return "CL_INVALID_GLOBAL_OFFSET";
    case CL_INVALID_EVENT_WAIT_LIST: return "CL_INVALID_EVENT_WAIT_LIST";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "an OpenCL error";
  }
}

// Every API call goes through this check: a failure names the call and its error code.
[[maybe_unused]]
static void tessel_check(cl_int err, const char* call, const std::string& what = "") {
  if (err == CL_SUCCESS) return;
  throw tessel_error{100, std::string(call) + (what.empty() ? "" : " (" + what + ")") +
                              " failed: " + tessel_cl_error_name(err) + " (" +
                              std::to_string(err) + ")"};
}

[[maybe_unused]]
static std::string tessel_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct tessel_runtime {
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_device_id device = nullptr;
  std::vector<cl_kernel> kernels;
  cl_mem status = nullptr;      // the device error status (an int), every kernel's last argument
  std::vector<cl_event> events;  // kernels and copies not yet timed
  double seconds = 0;            // device time of the timed ones
  std::string name;              // "platform: device"
  // Loops replayed (tessel_graph_begin; OpenCL 1.2 has no graphs): on unless $TESSEL_GRAPHS is
  // 0; while `recording`, kernels and on-device copies are kept in `recorded` (each with the
  // arguments and buffers of its time) instead of enqueued.
  bool graphs = true;
  // $TESSEL_SYNC_LAUNCHES=1: wait for each kernel as it is enqueued (clFinish), so that a kernel
  // the device reports failing is named (slower).
  bool sync_launches = false;
  bool recording = false;
  std::vector<std::function<void()>> recorded;

  tessel_runtime() = default;
  // Releases are not checked: a destructor could do nothing about a failure.
  tessel_runtime(const tessel_runtime&) = delete;
  tessel_runtime& operator=(const tessel_runtime&) = delete;
  ~tessel_runtime() {
    release_events();
    if (status) clReleaseMemObject(status);
    for (cl_kernel k : kernels) clReleaseKernel(k);
    if (program) clReleaseProgram(program);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }

  static std::string info(cl_platform_id p) {
    size_t n = 0;
    tessel_check(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &n), "clGetPlatformInfo");
    std::string s(n, '\0');
    tessel_check(clGetPlatformInfo(p, CL_PLATFORM_NAME, n, &s[0], nullptr), "clGetPlatformInfo");
    return s.c_str();
  }
  static std::string info(cl_device_id d) {
    size_t n = 0;
    tessel_check(clGetDeviceInfo(d, CL_DEVICE_NAME, 0, nullptr, &n), "clGetDeviceInfo");
    std::string s(n, '\0');
    tessel_check(clGetDeviceInfo(d, CL_DEVICE_NAME, n, &s[0], nullptr), "clGetDeviceInfo");
    return s.c_str();
  }

  // Picks the device: "" the first; a number the n-th over all platforms; otherwise the first
  // whose "platform: device" contains the text (case-insensitive).
  void open(const char* selector) {
    std::string want = selector ? selector : "";
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &np);
    if (err == -1001 || (err == CL_SUCCESS && np == 0))
      throw tessel_error{101, "no OpenCL platform (install an ICD, e.g. pocl-opencl-icd)"};
    tessel_check(err, "clGetPlatformIDs");
    std::vector<cl_platform_id> platforms(np);
    tessel_check(clGetPlatformIDs(np, platforms.data(), nullptr), "clGetPlatformIDs");
    std::vector<std::pair<cl_device_id, std::string>> all;
    for (cl_platform_id p : platforms) {
      cl_uint nd = 0;
      err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
      if (err == CL_DEVICE_NOT_FOUND) continue;  // a platform without devices
      tessel_check(err, "clGetDeviceIDs");
      if (nd == 0) continue;
      std::vector<cl_device_id> ds(nd);
      tessel_check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr), "clGetDeviceIDs");
      for (cl_device_id d : ds) all.push_back({d, info(p) + ": " + info(d)});
    }
    if (all.empty()) throw tessel_error{101, "no OpenCL device on any platform"};
    size_t pick = all.size();
    if (want.empty()) {
      pick = 0;
    } else if (std::all_of(want.begin(), want.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      pick = std::strtoul(want.c_str(), nullptr, 10);
    } else {
      for (size_t k = 0; k < all.size() && pick == all.size(); ++k)
        if (tessel_lower(all[k].second).find(tessel_lower(want)) != std::string::npos) pick = k;
    }
    if (pick >= all.size()) {
      std::string list;
      for (size_t k = 0; k < all.size(); ++k)
        list += "\n  " + std::to_string(k) + ": " + all[k].second;
      throw tessel_error{101, "no OpenCL device matches '" + want + "'; the devices are:" + list};
    }
    device = all[pick].first;
    name = all[pick].second;
    const char* graphs_env = std::getenv("TESSEL_GRAPHS");
    graphs = !(graphs_env && std::string(graphs_env) == "0");
    const char* sync_env = std::getenv("TESSEL_SYNC_LAUNCHES");
    sync_launches = sync_env && *sync_env && std::string(sync_env) != "0";
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    tessel_check(err, "clCreateContext");
    queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    tessel_check(err, "clCreateCommandQueue");
    build();
    status = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(cl_int), nullptr, &err);
    tessel_check(err, "clCreateBuffer", "error status");
  }

  void build() {
    const char* src = kTesselKernelSource;
    cl_int err = CL_SUCCESS;
    program = clCreateProgramWithSource(context, 1, &src, nullptr, &err);
    tessel_check(err, "clCreateProgramWithSource");
    std::string options = kTesselBuildOptions;
    cl_device_fp_config fp = 0;
    tessel_check(clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr),
                 "clGetDeviceInfo", "CL_DEVICE_SINGLE_FP_CONFIG");
    if (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
      options += " -cl-fp32-correctly-rounded-divide-sqrt";
    err = clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      // The build log names the problem; failing to fetch it is reported in its place.
      size_t n = 0;
      std::string log;
      cl_int e = clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      if (e == CL_SUCCESS) {
        log.assign(n, '\0');
        e = clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, &log[0], nullptr);
      }
      if (e != CL_SUCCESS)
        log = std::string("(none: clGetProgramBuildInfo failed: ") + tessel_cl_error_name(e) +
              " (" + std::to_string(e) + "))";
      tessel_check(err, "clBuildProgram", "build log:\n" + std::string(log.c_str()));
    }
    for (int k = 0; k < kTesselKernelCount; ++k) {
      kernels.push_back(clCreateKernel(program, kTesselKernelNames[k], &err));
      tessel_check(err, "clCreateKernel", kTesselKernelNames[k]);
    }
  }

  // Adds the device time of every finished command to `seconds`.
  void collect() {
    if (events.empty()) return;
    tessel_check(clWaitForEvents(static_cast<cl_uint>(events.size()), events.data()),
                 "clWaitForEvents");
    for (cl_event e : events) {
      cl_ulong t0 = 0, t1 = 0;
      tessel_check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr),
                   "clGetEventProfilingInfo");
      tessel_check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr),
                   "clGetEventProfilingInfo");
      seconds += static_cast<double>(t1 - t0) * 1e-9;
    }
    release_events();
  }
  // Also drops a recording a failure interrupted.
  void release_events() {
    // Not checked: a release frees the runtime's own event (its time was already read, or a
    // failure being reported stopped the run); nothing the run computes depends on it.
    for (cl_event e : events) clReleaseEvent(e);
    events.clear();
    recording = false;
    recorded.clear();
  }
  // Enqueues `command` now, or keeps it while a loop is recorded.
  void issue(std::function<void()> command) {
    if (recording)
      recorded.push_back(std::move(command));
    else
      command();
  }
  void timed(cl_event e) {
    events.push_back(e);
    if (events.size() >= 256) collect();
  }

  void begin_run() {
    release_events();
    seconds = 0;
    cl_int zero = 0;
    tessel_check(clEnqueueWriteBuffer(queue, status, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr,
                                      nullptr),
                 "clEnqueueWriteBuffer", "error status");
  }
  int32_t end_run() {
    tessel_check(clFinish(queue), "clFinish");
    collect();
    cl_int s = 0;
    tessel_check(clEnqueueReadBuffer(queue, status, CL_TRUE, 0, sizeof s, &s, 0, nullptr, nullptr),
                 "clEnqueueReadBuffer", "error status");
    return s;
  }
};

// A device buffer, released when it goes out of scope.
struct tessel_device_buffer {
  cl_mem handle = nullptr;
  size_t bytes = 0;
  std::string name;
  tessel_device_buffer(tessel_runtime& rt, size_t n, const char* what) : bytes(n), name(what) {
    cl_int err = CL_SUCCESS;
    handle = clCreateBuffer(rt.context, CL_MEM_READ_WRITE, std::max<size_t>(n, 1), nullptr, &err);
    tessel_check(err, "clCreateBuffer", name + ", " + std::to_string(n) + " bytes");
  }
  tessel_device_buffer(const tessel_device_buffer&) = delete;
  tessel_device_buffer& operator=(const tessel_device_buffer&) = delete;
  ~tessel_device_buffer() {
    if (handle) clReleaseMemObject(handle);  // not checked: a destructor could do nothing about it
  }
};

[[maybe_unused]]
static void tessel_copy_in(tessel_runtime& rt, tessel_device_buffer& dst, const void* src) {
  if (dst.bytes == 0) return;
  tessel_check(clEnqueueWriteBuffer(rt.queue, dst.handle, CL_TRUE, 0, dst.bytes, src, 0, nullptr,
                                    nullptr),
               "clEnqueueWriteBuffer", dst.name);
}

[[maybe_unused]]
static void tessel_copy_out(tessel_runtime& rt, void* dst, tessel_device_buffer& src) {
  if (src.bytes == 0) return;
  tessel_check(clEnqueueReadBuffer(rt.queue, src.handle, CL_TRUE, 0, src.bytes, dst, 0, nullptr,
                                   nullptr),
               "clEnqueueReadBuffer", src.name);
}

[[maybe_unused]]
static void tessel_zero(tessel_runtime& rt, tessel_device_buffer& dst) {
  if (dst.bytes == 0) return;
  rt.issue([&rt, buffer = dst.handle, bytes = dst.bytes, name = dst.name] {
    const cl_uchar zero = 0;
    tessel_check(clEnqueueFillBuffer(rt.queue, buffer, &zero, 1, 0, bytes, 0, nullptr, nullptr),
                 "clEnqueueFillBuffer", name);
  });
}

// On the device, timed like a kernel (part of the computation, not a transfer).
[[maybe_unused]]
static void tessel_copy(tessel_runtime& rt, tessel_device_buffer& dst, tessel_device_buffer& src) {
  if (dst.bytes == 0) return;
  rt.issue([&rt, from = src.handle, to = dst.handle, bytes = dst.bytes,
            name = src.name + " to " + dst.name] {
    cl_event e = nullptr;
    tessel_check(clEnqueueCopyBuffer(rt.queue, from, to, 0, 0, bytes, 0, nullptr, &e),
                 "clEnqueueCopyBuffer", name);
    rt.timed(e);
  });
}

template <class T>
[[maybe_unused]]
static void tessel_set_arg(cl_kernel k, cl_uint i, const T& v, const char* kernel) {
  tessel_check(clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg",
               std::string(kernel) + ", argument " + std::to_string(i));
}

// Exchanges the device memory of two buffers of the same size (overlapped tiling writes a new
// version of an array to its second buffer, then swaps: paper 001, Algorithm 5).
[[maybe_unused]]
static void tessel_swap(tessel_device_buffer& a, tessel_device_buffer& b) {
  std::swap(a.handle, b.handle);
}

// A launch the device refused (`err`): where the kernel needs more local memory or a larger
// work-group than this device has, a device limit (102: the schedule was validated against the
// machine description, not this device), else the API error.
[[maybe_unused]]
static void tessel_launch_failed(tessel_runtime& rt, cl_kernel k, const char* name, cl_int err,
                                 size_t threads) {
  if (err == CL_OUT_OF_RESOURCES || err == CL_INVALID_WORK_GROUP_SIZE ||
      err == CL_OUT_OF_HOST_MEMORY) {
    cl_ulong needs = 0, has = 0;
    size_t most = 0;
    const bool known =
        clGetKernelWorkGroupInfo(k, rt.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof needs, &needs,
                                 nullptr) == CL_SUCCESS &&
        clGetDeviceInfo(rt.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof has, &has, nullptr) ==
            CL_SUCCESS &&
        clGetKernelWorkGroupInfo(k, rt.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                 nullptr) == CL_SUCCESS;
    const std::string hint =
        ": the schedule was checked against the machine description (--machine), not this "
        "device; give a smaller --block or --time-tile, or --machine with a description of it";
    if (known && needs > has)
      throw tessel_error{102, std::string("kernel ") + name + " needs " + std::to_string(needs) +
                                  " bytes of local memory and the device " + rt.name + " has " +
                                  std::to_string(has) + " (CL_DEVICE_LOCAL_MEM_SIZE)" + hint};
    if (known && threads > most)
      throw tessel_error{102, std::string("kernel ") + name + " runs " + std::to_string(threads) +
                                  " work-items per work-group and the device " + rt.name +
                                  " takes at most " + std::to_string(most) +
                                  " for it (CL_KERNEL_WORK_GROUP_SIZE)" + hint};
  }
  tessel_check(err, "clEnqueueNDRangeKernel", name);
}

// Launches kernel `id` over gx*gy*gz blocks of bx*by*bz threads; the arguments are passed as
// they are (each has its kernel parameter's type), then the error status.
template <class... A>
[[maybe_unused]]
static void tessel_launch(tessel_runtime& rt, int id, int dims, int64_t gx, int64_t gy, int64_t gz,
                          int64_t bx, int64_t by, int64_t bz, const A&... args) {
  // The arguments are copied: a recorded launch keeps the buffers of its time.
  rt.issue([&rt, id, dims, gx, gy, gz, bx, by, bz, args...] {
    cl_kernel k = rt.kernels[id];
    const char* name = kTesselKernelNames[id];
    cl_uint i = 0;
    (tessel_set_arg(k, i++, args, name), ...);
    tessel_set_arg(k, i, rt.status, name);
    size_t local[3] = {size_t(bx), size_t(by), size_t(bz)};
    size_t global[3] = {size_t(gx * bx), size_t(gy * by), size_t(gz * bz)};
    cl_event e = nullptr;
    const cl_int err = clEnqueueNDRangeKernel(rt.queue, k, static_cast<cl_uint>(dims), nullptr,
                                              global, local, 0, nullptr, &e);
    if (err != CL_SUCCESS) tessel_launch_failed(rt, k, name, err, size_t(bx * by * bz));
    rt.timed(e);
    if (rt.sync_launches)
      tessel_check(clFinish(rt.queue), "clFinish",
                   std::string("kernel ") + name + " failed ($TESSEL_SYNC_LAUNCHES waits for each)");
  });
}

// A loop replayed (lower_gpu_graph.cpp; OpenCL's stand-in for a CUDA Graph): *replays > 0 when
// the loop's iterations, from here to tessel_graph_end, are recorded instead of enqueued; 0 when
// they run directly: replays off ($TESSEL_GRAPHS=0), the loop would be replayed fewer than twice,
// or a recording is already in progress (an inner loop is part of the outer one's).
[[maybe_unused]]
static void tessel_graph_begin(tessel_runtime& rt, int site, int64_t& replays, int64_t iterations,
                               int64_t period) {
  (void)site;
  replays = 0;
  if (!rt.graphs || rt.recording || iterations / period < 2) return;
  rt.recording = true;
  rt.recorded.clear();
  replays = iterations / period;
}

// Ends the recording and enqueues its commands `replays` times, in order.
[[maybe_unused]]
static void tessel_graph_end(tessel_runtime& rt, int site, int64_t replays) {
  (void)site;
  rt.recording = false;
  std::vector<std::function<void()>> commands = std::move(rt.recorded);
  rt.recorded.clear();
  for (int64_t r = 0; r < replays; ++r)
    for (auto& command : commands) command();
}
)RT";
}

}  // namespace tessel::gpu
