#include "codegen/cpp_backend.h"

#include <fmt/format.h>

#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "lower/lower.h"

namespace tessel {

std::string generateCpp(const Program& prog, PassLog* log,
                        const std::vector<bool>& fuseStatements) {
  PassLog silent;
  return CLikeEmitter(cppDialect())
      .emitModule(lowerLoops(prog, log ? *log : silent, fuseStatements));
}

std::string openmpLibraryCmake(const std::vector<std::string>& header, const std::string& source,
                               const std::string& options) {
  std::string out;
  for (const std::string& line : header) out += "# " + line + "\n";
  return out + fmt::format(
                   "cmake_minimum_required(VERSION 3.16)\n"
                   "project(tessel_program LANGUAGES CXX)\n"
                   "find_package(OpenMP REQUIRED)\n"
                   "add_library(tessel_program SHARED {})\n"
                   "set_target_properties(tessel_program PROPERTIES CXX_STANDARD 17 "
                   "CXX_STANDARD_REQUIRED ON\n"
                   "                      CXX_EXTENSIONS OFF POSITION_INDEPENDENT_CODE ON)\n"
                   "target_compile_options(tessel_program PRIVATE{})\n"
                   "target_link_libraries(tessel_program PRIVATE OpenMP::OpenMP_CXX)\n",
                   source, options);
}

}  // namespace tessel
