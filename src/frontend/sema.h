// Semantic analysis: ast::File -> Program (the Algorithm IR), with located diagnostics.
#pragma once

#include <optional>

#include "frontend/ast.h"
#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

/// Resolves names, checks the rules of language.md sections 3-9 and instantiates every call.
/// Returns nullopt when an error was reported.
std::optional<Program> analyze(const SourceFile& file, const ast::File& tree,
                               DiagnosticEngine& diags);

}  // namespace tessel
