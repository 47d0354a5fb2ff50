#include "driver/emit.h"

#include <fmt/format.h>

#include <stdexcept>

#include "codegen/cpp_backend.h"

namespace tessel {

std::string emitProgram(const Program& prog, const std::string& target, const std::string& dir) {
  if (target != "cpp") throw std::runtime_error("unknown target '" + target + "'");
  auto source = writeCppProject(prog, dir);
  std::string d = source.parent_path().string();
  return fmt::format(
      "wrote {}\n  and {}/CMakeLists.txt\n"
      "  build it standalone: cmake -S {} -B {}/build && cmake --build {}/build\n",
      source.string(), d, d, d, d);
}

}  // namespace tessel
