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
  std::vector<std::string> notes;
  const Program out = splitProgram(prog, mode, notes);
  return writeSplitProgram(out, file, fissionModeName(mode), dir, std::move(notes));
}

SplitResult writeSplitProgram(const Program& out, const std::string& file, const std::string& mode,
                              const std::string& dir, std::vector<std::string> notes) {
  SplitResult r;
  r.notes = std::move(notes);
  const std::filesystem::path dest =
      std::filesystem::path(dir) /
      (std::filesystem::path(file).stem().string() + "-" + mode + ".sten");
  std::string text;
  try {
    std::string header = fmt::format(
        "// {} written by `tessel split --mode {}` from {}.\n// Every call is a stencil of its "
        "own; #pragma hints are not carried over.\n",
        dest.filename().string(), mode, file);
    for (const std::string& n : r.notes) header += "// " + n + "\n";
    text = programSource(out, header);
  } catch (const std::invalid_argument& e) {
    r.error = fmt::format("cannot write the split program: {}", e.what());
    r.hint = "mark no arguments inout: in the stencils to split";
    return r;
  }
  writeProgramText(dir, dest.filename().string(), text, r);
  if (!r.path.empty()) r.calls = out.calls.size();
  return r;
}

void writeProgramText(const std::string& dir, const std::string& name, const std::string& text,
                      SplitResult& r) {
  const std::filesystem::path dest = std::filesystem::path(dir) / name;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream f(dest);
  f << text;
  f.close();
  if (!f) {
    r.error = fmt::format("cannot write '{}'", dest.string());
    r.hint = "give a directory that can be created and written";
    return;
  }
  r.path = dest.string();
}

}  // namespace tessel
