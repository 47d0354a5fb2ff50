// The lexer: source text -> tokens, with located errors for bad characters and numbers.
#pragma once

#include <vector>

#include "frontend/token.h"
#include "support/diagnostics.h"

namespace tessel {

/// Tokenises the whole file. Reports lexical errors to `diags` and throws CompilationAborted on
/// the first one (a bad character makes the rest of the line unreliable).
std::vector<Token> lex(const SourceFile& file, DiagnosticEngine& diags);

}  // namespace tessel
