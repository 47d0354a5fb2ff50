// The frontend in one call: text -> tokens -> syntax tree -> checked Program.
#pragma once

#include <optional>

#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

/// Parses and checks `file`. Diagnostics (errors and warnings) go to `diags`; returns nullopt
/// if any error was reported. Never throws on bad input.
std::optional<Program> parseProgram(const SourceFile& file, DiagnosticEngine& diags);

}  // namespace tessel
