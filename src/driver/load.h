// Reading a program file and running the frontend on it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

struct LoadedProgram {
  std::unique_ptr<SourceFile> file;  // kept alive: the Program's locations point into it
  std::optional<Program> program;    // nullopt after errors
};

/// Reads `path` and checks it. An unreadable file is reported as an error without location.
LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diags);

}  // namespace tessel
