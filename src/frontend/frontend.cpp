#include "frontend/frontend.h"

#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "frontend/sema.h"

namespace tessel {

std::optional<Program> parseProgram(const SourceFile& file, DiagnosticEngine& diags) {
  try {
    auto tokens = lex(file, diags);
    auto tree = parse(tokens, diags);
    return analyze(file, tree, diags);
  } catch (const CompilationAborted&) {
    return std::nullopt;
  }
}

}  // namespace tessel
