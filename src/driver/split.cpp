// `tessel split` (split.h).
#include "driver/split.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "ir/print_program.h"

namespace tessel {

SplitResult writeSplit(const Program& prog, const std::string& file, FissionMode mode,
                       const std::string& dir) {
  SplitResult r;
  const Program out = splitProgram(prog, mode, r.notes);
  const std::filesystem::path dest =
      std::filesystem::path(dir) /
      (std::filesystem::path(file).stem().string() + "-" + fissionModeName(mode) + ".sten");
  std::string text;
  try {
    text = programSource(
        out, fmt::format("// {} written by `tessel split --mode {}` from {}.\n// Every call is a "
                         "stencil of its own; #pragma hints are not carried over.\n",
                         dest.filename().string(), fissionModeName(mode), file));
  } catch (const std::invalid_argument& e) {
    r.error = fmt::format("cannot write the split program: {}", e.what());
    r.hint = "mark no arguments inout: in the stencils to split";
    return r;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream f(dest);
  f << text;
  f.close();
  if (!f) {
    r.error = fmt::format("cannot write '{}'", dest.string());
    r.hint = "give a directory that can be created and written";
    return r;
  }
  r.path = dest.string();
  r.calls = out.calls.size();
  return r;
}

}  // namespace tessel
