#include "driver/load.h"

#include <fstream>
#include <sstream>

#include "frontend/frontend.h"

namespace tessel {

LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diags) {
  LoadedProgram out;
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
