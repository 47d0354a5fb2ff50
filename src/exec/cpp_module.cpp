#include "exec/cpp_module.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "codegen/emitter_support.h"
#include "exec/build_util.h"
#include "ir/loop_ir.h"
#include "lower/lower_cpp.h"
#include "runtime/errors.h"

namespace fs = std::filesystem;

namespace tessel {

CppBuildOptions::CppBuildOptions() : flags(cppCompileFlags()) {}

CppBuildOptions CppBuildOptions::fromEnvironment() {
  CppBuildOptions o;
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) o.compiler = cxx;
  if (const char* opt = std::getenv("TESSEL_HOST_OPT"); opt && *opt)
    o.flags = withOptLevel(o.flags, opt);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    o.cacheRoot = fs::path(x) / "tessel" / "cpp";
  else if (const char* h = std::getenv("HOME"); h && *h)
    o.cacheRoot = fs::path(h) / ".cache" / "tessel" / "cpp";
  else
    o.cacheRoot = fs::temp_directory_path() / fmt::format("tessel-cache-{}", getuid()) / "cpp";
  return o;
}

namespace {

std::string cmakeLists(const CppBuildOptions& o, const std::string& hash) {
  std::string opts;
  for (auto& f : o.flags)
    if (f.rfind("-std=", 0) != 0 && f != "-fopenmp" && f != "-fPIC" && f != "-shared")
      opts += " " + f;
  for (auto& f : o.extraFlags) opts += " " + f;
  return openmpLibraryCmake(
      {fmt::format("Builds the generated Tessel program ({}) as the shared library the tessel "
                   "runtime",
                   hash),
       "loads: cmake -S . -B build && cmake --build build"},
      kCppSourceName, opts);
}

}  // namespace

// ---- CppModule -----------------------------------------------------------------------------

namespace {

std::string compileCommand(const CppBuildOptions& opts) {
  std::string cmd = shellQuote(opts.compiler);
  for (auto& f : opts.flags) cmd += " " + shellQuote(f);
  for (auto& f : opts.extraFlags) cmd += " " + shellQuote(f);
  return cmd;
}

// The key covers the host CPU too: -march=native code must not be reused on another CPU.
std::string buildHash(const std::string& source, const std::string& cmd) {
  return fmt::format("{:016x}", fnv1a(source + "\n" + cmd + "\n" + hostCpu()));
}

}  // namespace

fs::path writeCppProject(const Program& prog, const fs::path& directory,
                         const CppBuildOptions& opts) {
  std::string source =
      emit::withWrittenBy(generateCpp(prog, opts.passLog, opts.fuseStatements), opts.writtenBy);
  fs::path dir = fs::absolute(directory);
  fs::create_directories(dir);
  writeFile(dir / kCppSourceName, source);
  writeFile(dir / "CMakeLists.txt", cmakeLists(opts, buildHash(source, compileCommand(opts))));
  return dir / kCppSourceName;
}

CppModule::Build CppModule::compile(const Program& prog, const CppBuildOptions& opts) {
  Build b;
  b.source = generateCpp(prog, opts.passLog, opts.fuseStatements);
  std::string cmd = compileCommand(opts);
  std::string hash = buildHash(b.source, cmd);
  // Absolute, because the compiler runs from inside the directory.
  b.dir = fs::absolute(opts.directory.empty() ? opts.cacheRoot / hash : opts.directory);
  b.lib = b.dir / fmt::format("libtessel_{}.so", hash);
  fs::create_directories(b.dir);

  // The library name carries the hash of (source, command): if it exists, it is this program.
  b.reused = fs::exists(b.lib);
  fs::path sourcePath = b.dir / kCppSourceName;
  if (!fs::exists(sourcePath) || readFile(sourcePath) != b.source) {
    writeFile(sourcePath, b.source);
    writeFile(b.dir / "CMakeLists.txt", cmakeLists(opts, hash));
  }
  if (!b.reused) {
    fs::path tmp = tempName(b.lib), log = b.dir / "build.log";
    std::string full =
        fmt::format("cd {} && {} {} -o {} > {} 2>&1", shellQuote(b.dir.string()), cmd,
                    kCppSourceName, shellQuote(tmp.string()), shellQuote(log.string()));
    int rc = std::system(full.c_str());
    if (rc != 0 || !fs::exists(tmp)) {
      std::error_code ec;
      fs::remove(tmp, ec);
      int status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
      if (status == 126 || status == 127)  // the shell could not find or run the compiler
        throw EnvironmentError(fmt::format(
            "the C++ compiler '{}' cannot be run (see {}); install g++ or set CXX to a C++17 "
            "compiler with OpenMP",
            opts.compiler, log.string()));
      throw std::runtime_error(fmt::format(
          "compiling the generated C++ failed (exit status {}); the compiler's output is in {}\n"
          "command: {}\n{}",
          status, log.string(), full, firstLines(readFile(log), 20)));
    }
    fs::rename(tmp, b.lib);
  }
  return b;
}

CppModule::CppModule(const Program& prog, const CppBuildOptions& opts)
    : prog_(&prog), build_(compile(prog, opts)) {
  const fs::path& lib = build_.lib;
  handle_ = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle_)
    throw std::runtime_error(fmt::format("cannot load {}: {}", lib.string(), dlerror()));
  entry_ = reinterpret_cast<Entry>(dlsym(handle_, "tessel_entry"));
  if (!entry_) {
    dlclose(handle_);
    handle_ = nullptr;
    throw std::runtime_error("no tessel_entry in " + lib.string());
  }
}

CppModule::~CppModule() {
  if (handle_) dlclose(handle_);
}

CppModule::CppModule(CppModule&& o) noexcept
    : prog_(o.prog_), build_(std::move(o.build_)), handle_(o.handle_), entry_(o.entry_) {
  o.handle_ = nullptr;
  o.entry_ = nullptr;
}

CppModule& CppModule::operator=(CppModule&& o) noexcept {
  if (this != &o) {
    if (handle_) dlclose(handle_);
    prog_ = o.prog_;
    build_ = std::move(o.build_);
    handle_ = o.handle_;
    entry_ = o.entry_;
    o.handle_ = nullptr;
    o.entry_ = nullptr;
  }
  return *this;
}

fs::path CppModule::sourcePath() const { return build_.dir / kCppSourceName; }

double CppModule::run(ProgramState& state) const {
  if (!entry_) throw std::logic_error("CppModule::run on a moved-from module");
  checkState(*prog_, state);
  TypedArrays arrays(state);
  auto t0 = std::chrono::steady_clock::now();
  int32_t status = entry_(arrays.pointers(), state.scalars.data(), state.params.data());
  auto t1 = std::chrono::steady_clock::now();
  arrays.storeBack();
  if (status != static_cast<int32_t>(lir::Status::Ok)) {
    std::string what = lir::statusMessage(status);
    if (what.empty())
      throw std::logic_error(
          fmt::format("internal error: tessel_entry of {} returned the unknown status {}",
                      build_.lib.string(), status));
    throw RuntimeError(
        fmt::format("{} in the generated code of {} (the reference interpreter reports where: "
                    "--backend reference)",
                    what, prog_->file ? prog_->file->name() : "a program built in memory"));
  }
  return std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace tessel
