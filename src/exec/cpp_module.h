// The C++/OpenMP backend's runner: the C++ of a Program (codegen/cpp_backend.h) built into a
// shared library with the system compiler (cached by hash), loaded with dlopen and run on a
// ProgramState; or written out as a standalone project.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/cpp_backend.h"
#include "ir/program.h"
#include "runtime/state.h"
#include "support/pass_log.h"

namespace tessel {

struct CppBuildOptions {
  /// Where the files go. Empty: `cacheRoot/<hash>`, one directory per (source, compiler, flags).
  std::filesystem::path directory;
  std::filesystem::path cacheRoot;
  std::string compiler = "c++";
  std::vector<std::string> flags;       // default: cppCompileFlags()
  std::vector<std::string> extraFlags;  // appended (e.g. -g, -DNDEBUG)
  PassLog* passLog = nullptr;           // the pipeline's pass log; null: a silent one
  /// Per stencil: fuse its statements (fuse_statements; lower/lower_cpp.h). Empty: none.
  std::vector<bool> fuseStatements;
  /// writeCppProject: the command line that asked for it, in the source's header
  /// (codegen/emitter_support.h, withWrittenBy). Empty: none.
  std::string writtenBy;

  CppBuildOptions();
  /// Reads the environment once, here and nowhere deeper: CXX for the compiler,
  /// TESSEL_HOST_OPT (an optimisation level, e.g. -O0, in place of the flags' own), and for the
  /// cache $XDG_CACHE_HOME/tessel/cpp, else $HOME/.cache/tessel/cpp, else a temp directory.
  static CppBuildOptions fromEnvironment();
};

/// Writes the generated source and a standalone CMakeLists.txt into `directory` without
/// compiling; returns the source's path.
std::filesystem::path writeCppProject(
    const Program& prog, const std::filesystem::path& directory,
    const CppBuildOptions& opts = CppBuildOptions::fromEnvironment());

/// A compiled program. Writes tessel_program.cpp, a CMakeLists.txt that builds the same library
/// standalone, build.log and libtessel_<hash>.so into its directory; a library already built
/// there from the same source, compiler and flags is reused. Compilation failures throw
/// std::runtime_error naming the log file. The Program must outlive the module.
class CppModule {
 public:
  explicit CppModule(const Program& prog,
                     const CppBuildOptions& opts = CppBuildOptions::fromEnvironment());
  ~CppModule();
  CppModule(CppModule&& o) noexcept;
  CppModule& operator=(CppModule&& o) noexcept;
  CppModule(const CppModule&) = delete;
  CppModule& operator=(const CppModule&) = delete;

  /// Runs the whole program on `state` in place: converts each array to its element type,
  /// calls tessel_entry, converts back. Returns the seconds the entry call took. Throws
  /// RuntimeError when the state does not match the program or an access would leave an array,
  /// and when the program meets a run-time error (an integer division or remainder by zero, a
  /// negative integer exponent: the status tessel_entry returns); the generated code does not
  /// say where, and the arrays then hold what it wrote (unspecified values). Runs of modules of
  /// the same library at the same time share its error status: do not overlap them.
  double run(ProgramState& state) const;

  const std::string& source() const { return build_.source; }
  const std::filesystem::path& directory() const { return build_.dir; }
  std::filesystem::path sourcePath() const;
  const std::filesystem::path& libraryPath() const { return build_.lib; }
  /// True if the library was found already built (nothing was compiled).
  bool reused() const { return build_.reused; }

 private:
  /// What building produced: the generated source, the directory and library it is in, and
  /// whether the library was there already.
  struct Build {
    std::string source;
    std::filesystem::path dir, lib;
    bool reused = false;
  };
  /// tessel_entry: returns the error status (lir::Status), 0 without an error.
  using Entry = int32_t (*)(void* const*, const double*, const int64_t*);
  const Program* prog_ = nullptr;
  Build build_;
  void* handle_ = nullptr;  // the loaded library
  Entry entry_ = nullptr;

  /// Generates the source, writes it and compiles it into the library, unless built already.
  static Build compile(const Program& prog, const CppBuildOptions& opts);
};

}  // namespace tessel
