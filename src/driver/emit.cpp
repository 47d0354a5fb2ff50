#include "driver/emit.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "codegen/cpp_backend.h"

namespace tessel {

std::string emitProgram(const Program& prog, const std::string& target, const std::string& dir) {
  if (target != "cpp") throw std::runtime_error("unknown target '" + target + "'");
  CppBuildOptions o = CppBuildOptions::fromEnvironment();
  o.directory = dir;
  std::filesystem::create_directories(dir);
  // Building it here proves the emitted code compiles; the directory keeps source and CMakeLists.
  CppModule m(prog, o);
  return fmt::format(
      "wrote {}\n  build it standalone: cmake -S {} -B {}/build && cmake --build {}/build\n",
      m.sourcePath().string(), dir, dir, dir);
}

}  // namespace tessel
