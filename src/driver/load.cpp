#include "driver/load.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/frontend.h"

namespace tessel {

LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diags) {
  LoadedProgram out;
  // A directory or a device reads as an empty program ("calls no stencil"): say what it is.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    diags.report(
        DiagId::expected_top_level, {},
        fmt::format("'{}' is {}, not a program file", path,
                    std::filesystem::is_directory(status) ? "a directory" : "not a regular file"),
        "give the path of a stencil program (.sten)");
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.report(DiagId::expected_top_level, {}, fmt::format("cannot read '{}'", path),
                 "check the path; stencil programs usually end in .sten");
    return out;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  out.file = std::make_unique<SourceFile>(path, ss.str());
  out.program = parseProgram(*out.file, diags);
  return out;
}

}  // namespace tessel
