// Recursive-descent parser: tokens -> ast::File. Stops at the first syntax error.
#pragma once

#include "frontend/ast.h"
#include "frontend/token.h"
#include "support/diagnostics.h"

namespace tessel {

/// Parses a whole file. On a syntax error, reports it and throws CompilationAborted.
ast::File parse(const std::vector<Token>& tokens, DiagnosticEngine& diags);

}  // namespace tessel
