#include "exec/cuda_resources.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "exec/build_util.h"
#include "runtime/errors.h"

namespace fs = std::filesystem;

namespace tessel {

const KernelResources* CudaResourceReport::find(const std::string& kernel) const {
  for (auto& k : kernels)
    if (k.name == kernel) return &k;
  return nullptr;
}

std::string findNvcc() {
  if (const char* n = std::getenv("NVCC"); n && *n) return n;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    std::string dir;
    while (std::getline(in, dir, ':'))
      if (!dir.empty() && access((fs::path(dir) / "nvcc").c_str(), X_OK) == 0)
        return (fs::path(dir) / "nvcc").string();
  }
  if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
  return {};
}

std::vector<std::string> cudaResourceFlags(const CudaResourceOptions& opts) {
  std::vector<std::string> f = {"-std=c++17",  "-O3",     "-arch=" + opts.arch,
                                "-fmad=false", "-Xptxas", "-v"};
  if (opts.deviceOnly) {
    f.push_back("-cubin");
    return f;
  }
  f.push_back("-c");
  if (opts.hostWarnings) {
    f.push_back("-Xcompiler");
    f.push_back("-Wall,-Wextra");
  }
  return f;
}

std::vector<KernelResources> parsePtxasReport(const std::string& output) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers(.*))");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex lmem(R"((\d+) bytes lmem)");
  static const std::regex cmem(R"((\d+) bytes cmem\[\d+\])");
  std::vector<KernelResources> out;
  std::map<std::string, KernelResources> frames;  // stack and spills, by function
  std::string propsFor;
  std::istringstream in(output);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry)) {
      out.push_back({});
      out.back().name = m[1];
    } else if (std::regex_search(line, m, props)) {
      propsFor = m[1];
    } else if (std::regex_search(line, m, frame) && !propsFor.empty()) {
      KernelResources& f = frames[propsFor];
      f.stackBytes = std::stoll(m[1]);
      f.spillStores = std::stoll(m[2]);
      f.spillLoads = std::stoll(m[3]);
    } else if (std::regex_search(line, m, used) && !out.empty()) {
      KernelResources& k = out.back();
      k.registers = std::stoi(m[1]);
      std::string rest = m[2];
      std::smatch x;
      if (std::regex_search(rest, x, barriers)) k.barriers = std::stoi(x[1]);
      if (std::regex_search(rest, x, smem)) k.sharedBytes = std::stoll(x[1]);
      if (std::regex_search(rest, x, lmem)) k.localBytes = std::stoll(x[1]);
      for (auto it = std::sregex_iterator(rest.begin(), rest.end(), cmem);
           it != std::sregex_iterator(); ++it)
        k.constantBytes += std::stoll((*it)[1]);
    }
  }
  for (auto& k : out) {
    auto it = frames.find(k.name);
    if (it == frames.end()) continue;
    k.stackBytes = it->second.stackBytes;
    k.spillStores = it->second.spillStores;
    k.spillLoads = it->second.spillLoads;
  }
  return out;
}

CudaResourceReport cudaResources(const std::string& cuSource, const CudaResourceOptions& opts) {
  std::string nvcc = opts.nvcc.empty() ? findNvcc() : opts.nvcc;
  if (nvcc.empty())
    throw EnvironmentError(
        "nvcc not found (looked at $NVCC, the PATH and /usr/local/cuda/bin): install the CUDA "
        "toolkit or set NVCC");
  CudaResourceReport r;
  r.arch = opts.arch;
  std::string cmd = shellQuote(nvcc);
  for (auto& f : cudaResourceFlags(opts)) cmd += " " + shellQuote(f);
  cmd += opts.deviceOnly ? " tessel_program.cu -o tessel_program.cubin"
                         : " tessel_program.cu -o tessel_program.o";
  r.command = cmd;
  std::string hash = fmt::format("{:016x}", fnv1a(cuSource + "\n" + cmd));
  bool temporary = opts.cacheRoot.empty();
  fs::path dir = temporary ? fs::temp_directory_path() /
                                 fmt::format("tessel-resources-{}-{}-{}", getuid(), getpid(), hash)
                           : fs::absolute(opts.cacheRoot / hash);
  fs::path log = dir / "nvcc.log", done = dir / "nvcc.ok";
  if (!temporary && fs::exists(done)) {
    r.output = readFile(log);
    r.reused = true;
  } else {
    fs::create_directories(dir);
    writeFile(dir / "tessel_program.cu", cuSource);
    fs::path tmpLog = tempName(log);
    int status = runInDirectory(dir, cmd, tmpLog);
    r.output = readFile(tmpLog);
    fs::rename(tmpLog, log);
    if (status == 126 || status == 127)
      throw EnvironmentError(fmt::format("nvcc ('{}') cannot be run: {}", nvcc, r.output));
    if (status != 0 && r.output.find("Unsupported gpu architecture") != std::string::npos)
      throw EnvironmentError(fmt::format(
          "this nvcc does not support --arch {} (CUDA 13 dropped sm_70 and older); try sm_75, "
          "sm_80 or sm_90\n{}",
          opts.arch, firstLines(r.output, 3)));
    if (status != 0)
      throw std::runtime_error(
          fmt::format("nvcc failed (exit status {}) on the generated CUDA in {}\ncommand: {}\n{}",
                      status, dir.string(), cmd, firstLines(r.output, 30)));
    if (!temporary) writeFile(done, cmd + "\n");
  }
  if (temporary) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::istringstream in(r.output);
  std::string line;
  while (std::getline(in, line))
    if (line.find("warning") != std::string::npos || line.find("Warning") != std::string::npos)
      r.warnings.push_back(line);
  r.kernels = parsePtxasReport(r.output);
  return r;
}

}  // namespace tessel
