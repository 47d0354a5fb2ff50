#include "exec/gpu_module.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "exec/build_util.h"
#include "exec/cuda_resources.h"
#include "ir/loop_ir.h"
#include "runtime/errors.h"

namespace fs = std::filesystem;

namespace tessel {

namespace {

const char* apiName(GpuApi api) {
  return api == GpuApi::OpenCL ? "OpenCL"
         : api == GpuApi::Cuda ? "CUDA"
                               : "C++ (kernels on the CPU)";
}
const char* apiDir(GpuApi api) {
  return api == GpuApi::OpenCL ? "opencl" : api == GpuApi::Cuda ? "cuda" : "cpu-tiled";
}

template <typename F>
F symbol(void* handle, const char* name, const fs::path& lib) {
  void* p = dlsym(handle, name);
  if (!p) throw std::runtime_error(fmt::format("no {} in {}", name, lib.string()));
  return reinterpret_cast<F>(p);
}

/// A failed build: a missing tool or library is the machine's fault (EnvironmentError).
[[noreturn]] void buildFailed(GpuApi api, const GpuBuildOptions& opts, int status,
                              const fs::path& log, const std::string& cmd) {
  std::string text = readFile(log);
  bool cl = api != GpuApi::Cuda;  // the host compiler builds OpenCL and Cpu
  if (status == 126 || status == 127)
    throw EnvironmentError(
        cl ? fmt::format("the C++ compiler '{}' cannot be run (see {}); install g++ or set CXX",
                         opts.hostCompiler, log.string())
           : fmt::format("nvcc ('{}') cannot be run (see {}); install the CUDA toolkit or set NVCC",
                         opts.nvcc, log.string()));
  if (cl && text.find("CL/cl.h") != std::string::npos)
    throw EnvironmentError(fmt::format(
        "the OpenCL headers are missing (see {}); install opencl-headers ocl-icd-opencl-dev",
        log.string()));
  if (cl && text.find("-lOpenCL") != std::string::npos)
    throw EnvironmentError(fmt::format(
        "the OpenCL ICD loader is missing (see {}); install ocl-icd-opencl-dev", log.string()));
  if (!cl && text.find("Unsupported gpu architecture") != std::string::npos)
    throw EnvironmentError(fmt::format(
        "this nvcc does not support the GPU architecture {} (see {}); try sm_75, sm_80 or sm_90",
        opts.cudaArch, log.string()));
  throw std::runtime_error(fmt::format(
      "compiling the generated {} host code failed (exit status {}); the compiler's output is in "
      "{}\ncommand: {}\n{}",
      apiName(api), status, log.string(), cmd, firstLines(text, 20)));
}

}  // namespace

GpuBuildOptions GpuBuildOptions::fromEnvironment(GpuApi api) {
  GpuBuildOptions o;
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) o.hostCompiler = cxx;
  if (std::string nv = findNvcc(); !nv.empty()) o.nvcc = nv;  // $NVCC, PATH, /usr/local/cuda
  const char* dev = api == GpuApi::Cpu ? nullptr
                                       : std::getenv(api == GpuApi::OpenCL ? "TESSEL_OPENCL_DEVICE"
                                                                           : "TESSEL_CUDA_DEVICE");
  if (dev) o.device = dev;
  if (const char* opt = std::getenv("TESSEL_HOST_OPT"); opt && *opt) o.hostOpt = opt;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    o.cacheRoot = fs::path(x) / "tessel" / apiDir(api);
  else if (const char* h = std::getenv("HOME"); h && *h)
    o.cacheRoot = fs::path(h) / ".cache" / "tessel" / apiDir(api);
  else
    o.cacheRoot =
        fs::temp_directory_path() / fmt::format("tessel-cache-{}", getuid()) / apiDir(api);
  return o;
}

std::string gpuCompileCommand(GpuApi api, const GpuBuildOptions& opts) {
  bool cl = api == GpuApi::OpenCL, cpu = api == GpuApi::Cpu;
  std::string cmd = shellQuote(cl || cpu ? opts.hostCompiler : opts.nvcc);
  for (auto& f : cl    ? withOptLevel(openclHostCompileFlags(), opts.hostOpt)
                 : cpu ? withOptLevel(cpuTiledCompileFlags(), opts.hostOpt)
                       : cudaCompileFlags(opts.cudaArch))
    cmd.append(" ").append(shellQuote(f));
  cmd.append(" ").append(shellQuote(cl ? kOpenclHostName : cpu ? kCpuSourceName : kCudaSourceName));
  if (cl) cmd += " -lOpenCL";
  return cmd;
}

bool cudaDeviceAvailable(std::string* why) {
  auto no = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return no(fmt::format("no CUDA driver (libcuda.so.1 cannot be loaded: {})", dlerror()));
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(h, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(h, "cuDeviceGetCount"));
  std::string problem;
  int n = 0;
  if (!init || !count)
    problem = "the CUDA driver (libcuda.so.1) lacks cuInit or cuDeviceGetCount";
  else if (int rc = init(0); rc != 0)
    problem = fmt::format("cuInit failed with CUDA driver error {}", rc);
  else if (int rc2 = count(&n); rc2 != 0)
    problem = fmt::format("cuDeviceGetCount failed with CUDA driver error {}", rc2);
  else if (n == 0)
    problem = "the CUDA driver reports no device";
  dlclose(h);
  if (!problem.empty()) return no(problem);
  return true;
}

GpuModule::GpuModule(const Program& prog, GpuApi api, const ResolvedSchedule& resolved,
                     const GpuBuildOptions& opts)
    : prog_(&prog) {
  std::string why;
  if (api == GpuApi::Cuda && !cudaDeviceAvailable(&why))
    throw EnvironmentError("no CUDA device: " + why);
  src_ = generateGpu(prog, api, resolved, opts.cudaArch, opts.passLog);
  load(opts);
}

void GpuModule::load(const GpuBuildOptions& opts) {
  std::string cmd = gpuCompileCommand(src_.api, opts);
  std::string hash =
      fmt::format("{:016x}", fnv1a(src_.hostSource + "\n" + src_.kernelSource + "\n" + cmd));
  dir_ = fs::absolute(opts.directory.empty() ? opts.cacheRoot / hash : opts.directory);
  lib_ = dir_ / fmt::format("libtessel_{}.so", hash);
  fs::create_directories(dir_);
  reused_ = fs::exists(lib_);
  if (!fs::exists(sourcePath()) || readFile(sourcePath()) != src_.hostSource)
    writeGpuProject(src_, dir_);
  if (!reused_) {
    fs::path tmp = tempName(lib_), log = dir_ / "build.log";
    std::string full = cmd + " -o " + shellQuote(tmp.string());
    int status = runInDirectory(dir_, full, log);
    if (status != 0 || !fs::exists(tmp)) {
      std::error_code ec;
      fs::remove(tmp, ec);
      buildFailed(src_.api, opts, status, log, full);
    }
    fs::rename(tmp, lib_);
  }
  lib_handle_ = dlopen(lib_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!lib_handle_)
    throw std::runtime_error(fmt::format("cannot load {}: {}", lib_.string(), dlerror()));
  try {
    auto open = symbol<OpenFn>(lib_handle_, "tessel_gpu_open", lib_);
    auto device = symbol<DeviceFn>(lib_handle_, "tessel_gpu_device", lib_);
    runFn_ = symbol<RunFn>(lib_handle_, "tessel_gpu_run", lib_);
    closeFn_ = symbol<CloseFn>(lib_handle_, "tessel_gpu_close", lib_);
    std::string msg(8192, '\0');
    int32_t st = open(opts.device.c_str(), &gpu_, msg.data(), static_cast<int32_t>(msg.size()));
    msg.resize(msg.find('\0'));
    if (st == kGpuNoDevice) throw EnvironmentError(msg);
    if (st != 0) throw std::runtime_error(fmt::format("{}: {}", apiName(src_.api), msg));
    device_ = device(gpu_);
  } catch (...) {
    close();
    throw;
  }
}

void GpuModule::close() {
  if (gpu_ && closeFn_) closeFn_(gpu_);
  gpu_ = nullptr;
  if (lib_handle_) dlclose(lib_handle_);
  lib_handle_ = nullptr;
}

GpuModule::~GpuModule() { close(); }

GpuModule::GpuModule(GpuModule&& o) noexcept
    : prog_(o.prog_),
      runFn_(o.runFn_),
      closeFn_(o.closeFn_),
      src_(std::move(o.src_)),
      dir_(std::move(o.dir_)),
      lib_(std::move(o.lib_)),
      device_(std::move(o.device_)),
      lib_handle_(o.lib_handle_),
      gpu_(o.gpu_),
      reused_(o.reused_) {
  o.lib_handle_ = nullptr;
  o.gpu_ = nullptr;
}

GpuModule& GpuModule::operator=(GpuModule&& o) noexcept {
  if (this != &o) {
    close();
    prog_ = o.prog_;
    runFn_ = o.runFn_;
    closeFn_ = o.closeFn_;
    src_ = std::move(o.src_);
    dir_ = std::move(o.dir_);
    lib_ = std::move(o.lib_);
    device_ = std::move(o.device_);
    lib_handle_ = o.lib_handle_;
    gpu_ = o.gpu_;
    reused_ = o.reused_;
    o.lib_handle_ = nullptr;
    o.gpu_ = nullptr;
  }
  return *this;
}

fs::path GpuModule::sourcePath() const {
  return dir_ / (src_.api == GpuApi::OpenCL ? kOpenclHostName
                 : src_.api == GpuApi::Cuda ? kCudaSourceName
                                            : kCpuSourceName);
}

double GpuModule::run(ProgramState& state) const {
  if (!gpu_) throw std::logic_error("GpuModule::run on a moved-from module");
  checkState(*prog_, state);
  TypedArrays arrays(state);
  double seconds = 0;
  std::string msg(8192, '\0');
  int32_t status = runFn_(gpu_, arrays.pointers(), state.scalars.data(), state.params.data(),
                          &seconds, msg.data(), static_cast<int32_t>(msg.size()));
  msg.resize(msg.find('\0'));
  arrays.storeBack();
  if (status == 0) return seconds;
  if (status == kGpuNoDevice || status == kGpuDeviceLimit) throw EnvironmentError(msg);
  if (status == kGpuApiError) throw std::runtime_error(fmt::format("{}: {}", apiName(api()), msg));
  std::string what = lir::statusMessage(status);
  if (what.empty())
    throw std::logic_error(
        fmt::format("internal error: tessel_gpu_run of {} returned the unknown status {}",
                    lib_.string(), status));
  throw RuntimeError(fmt::format(
      "{} in the generated {} code of {} (the reference interpreter reports where: "
      "--backend reference)",
      what, apiName(api()), prog_->file ? prog_->file->name() : "a program built in memory"));
}

OpenclModule::OpenclModule(const Program& prog, const ResolvedSchedule& resolved,
                           const GpuBuildOptions& opts)
    : GpuModule(prog, GpuApi::OpenCL, resolved, opts) {}

CpuTiledModule::CpuTiledModule(const Program& prog, const ResolvedSchedule& resolved,
                               const GpuBuildOptions& opts)
    : GpuModule(prog, GpuApi::Cpu, resolved, opts) {}

CudaModule::CudaModule(const Program& prog, const ResolvedSchedule& resolved,
                       const GpuBuildOptions& opts)
    : GpuModule(prog, GpuApi::Cuda, resolved, opts) {}

std::vector<fs::path> writeGpuProject(const GpuSources& src, const fs::path& directory) {
  fs::path dir = fs::absolute(directory);
  fs::create_directories(dir);
  std::vector<fs::path> out;
  if (src.api == GpuApi::OpenCL) {
    writeFile(dir / kOpenclHostName, src.hostSource);
    writeFile(dir / kOpenclKernelName, src.kernelSource);
    out = {dir / kOpenclHostName, dir / kOpenclKernelName};
  } else {
    const char* name = src.api == GpuApi::Cuda ? kCudaSourceName : kCpuSourceName;
    writeFile(dir / name, src.hostSource);
    out = {dir / name};
  }
  writeFile(dir / "CMakeLists.txt", src.cmakeLists);
  out.push_back(dir / "CMakeLists.txt");
  return out;
}

}  // namespace tessel
