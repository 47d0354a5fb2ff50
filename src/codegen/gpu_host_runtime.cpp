#include "codegen/gpu_host_runtime.h"

#include <fmt/format.h>

#include "codegen/gpu_host_runtime_parts.h"

namespace tessel {

namespace {

// The C interface, the same over every API ({which}: the device tessel_entry opens, {device}:
// the expression that names it).
// Shared by the runtimes of both APIs, after their definitions.
const char* const kShared = R"RT(
// The bytes of a device array of `count` elements of `size` bytes each: a negative count (an
// extent made negative by the parameters) or one whose bytes no allocation can hold stops the
// run before anything is allocated.
[[maybe_unused]] static size_t tessel_bytes(int64_t count, size_t size, const char* name) {
  if (count < 0 || static_cast<uint64_t>(count) > SIZE_MAX / size)
    throw tessel_error{102, std::string("array ") + name + ": " + std::to_string(count) +
                                " elements of " + std::to_string(size) + " bytes (" +
                                (count < 0 ? "an extent is negative" : "too many bytes") +
                                ": check the parameters)"};
  return static_cast<size_t>(count) * size;
}
// A kernel narrowed to 32-bit indices without a 64-bit copy (--index-bits 32) and sizes that
// need 64 bits: the run stops before the launch (pass narrow-indices).
[[maybe_unused]] static void tessel_index_range(tessel_runtime&, int id) {
  throw tessel_error{102, std::string("kernel ") + kTesselKernelNames[id] +
                              ": the sizes of this run need 64-bit index arithmetic, and it was "
                              "generated with --index-bits 32 (use --index-bits auto or 64)"};
}
)RT";

const char* const kEntry = R"RT(// ---- C interface (what the tessel runtime loads with dlopen) ----

struct tessel_gpu {{
  tessel_runtime rt;
}};

static int32_t tessel_report(int32_t code, const std::string& text, char* message, int32_t size) {{
  if (message && size > 0) std::snprintf(message, static_cast<size_t>(size), "%s", text.c_str());
  return code;
}}

// Opens the device (see the file comment for `device`) and builds the kernels.
extern "C" int32_t tessel_gpu_open(const char* device, tessel_gpu** gpu, char* message,
                                   int32_t size) {{
  *gpu = nullptr;
  tessel_gpu* g = nullptr;
  try {{
    g = new tessel_gpu;
    g->rt.open(device);
    *gpu = g;
    return 0;
  }} catch (const tessel_error& e) {{
    delete g;
    return tessel_report(e.code, e.message, message, size);
  }} catch (const std::exception& e) {{
    delete g;
    return tessel_report(100, e.what(), message, size);
  }}
}}

// Runs the program once; *kernel_seconds receives the device time of its kernels and copies.
extern "C" int32_t tessel_gpu_run(tessel_gpu* gpu, void* const* arrays, const double* scalars,
                                  const int64_t* params, double* kernel_seconds, char* message,
                                  int32_t size) {{
  try {{
    gpu->rt.begin_run();
    int32_t host = tessel_program(gpu->rt, arrays, scalars, params);
    int32_t device = gpu->rt.end_run();
    if (kernel_seconds) *kernel_seconds = gpu->rt.seconds;
    return host != 0 ? host : device;
  }} catch (const tessel_error& e) {{
    gpu->rt.release_events();
    return tessel_report(e.code, e.message, message, size);
  }} catch (const std::exception& e) {{
    gpu->rt.release_events();
    return tessel_report(100, e.what(), message, size);
  }}
}}

extern "C" const char* tessel_gpu_device(const tessel_gpu* gpu) {{ return gpu->rt.name.c_str(); }}

extern "C" void tessel_gpu_close(tessel_gpu* gpu) {{ delete gpu; }}

// Open, run once, close{which}; errors are printed.
extern "C" int32_t tessel_entry(void* const* arrays, const double* scalars,
                                const int64_t* params) {{
  char message[8192] = "";
  tessel_gpu* gpu = nullptr;
  int32_t s = tessel_gpu_open({device}, &gpu, message, sizeof message);
  if (s == 0) {{
    s = tessel_gpu_run(gpu, arrays, scalars, params, nullptr, message, sizeof message);
    tessel_gpu_close(gpu);
  }}
  if (s >= 100) std::fprintf(stderr, "tessel: %s\n", message);
  return s;
}}
)RT";

}  // namespace

GpuHostRuntime gpuHostRuntime(GpuApi api) {
  GpuHostRuntime r;
  const char* env = "TESSEL_OPENCL_DEVICE";
  if (api == GpuApi::OpenCL) {
    r.includes = gpu::openclIncludes();
    r.definitions = gpu::openclDefinitions();
  } else if (api == GpuApi::Cuda) {
    r.includes = gpu::cudaIncludes();
    r.definitions = gpu::cudaDefinitions();
    env = "TESSEL_CUDA_DEVICE";
  } else {
    r.includes = gpu::cpuIncludes();
    r.definitions = gpu::cpuDefinitions();
    env = nullptr;  // the host is the only device: nothing to choose
  }
  r.definitions += kShared;
  r.entry = fmt::format(
      fmt::runtime(kEntry),
      fmt::arg("which", env ? fmt::format(": the device from ${} (or the first)", env)
                            : std::string(" (the host is the one device)")),
      fmt::arg("device", env ? fmt::format("std::getenv(\"{}\")", env) : std::string("nullptr")));
  return r;
}

const std::vector<std::string>& gpuHostRuntimeNames() {
  static const std::vector<std::string> names = {
      "tessel_error",
      "tessel_cl_error_name",
      "tessel_check",
      "tessel_lower",
      "tessel_runtime",
      "tessel_device_buffer",
      "tessel_bytes",
      "tessel_copy_in",
      "tessel_copy_out",
      "tessel_zero",
      "tessel_copy",
      "tessel_swap",
      "tessel_set_arg",
      "tessel_launch",
      "tessel_graph_begin",
      "tessel_graph_end",
      "tessel_gpu",
      "tessel_index32",
      "tessel_fits32",
      "tessel_index_range",
      "tessel_report",
      "tessel_gpu_open",
      "tessel_gpu_run",
      "tessel_gpu_device",
      "tessel_gpu_close",
      "tessel_entry",
      "kTesselKernelNames",
      "kTesselKernels",
      "kTesselKernelCount",
      "kTesselKernelDynamicShared",
      "kTesselKernelSource",
      "kTesselBuildOptions",
      "tessel_status",
      "tessel_program",
      "rt",
      "dim3",
  };
  return names;
}

}  // namespace tessel
