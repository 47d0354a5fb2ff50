// The parser's token cursor: how syntax errors are reported (fail, expect, the place a missing
// token belongs), how names are read, and the guard that bounds nesting depth. The parsing
// functions themselves live in parser.cpp, parser_expr.cpp and parser_directive.cpp.
#include "frontend/parser_internal.h"

namespace tessel::parser {

void TokenCursor::fail(DiagId id, SourceLoc loc, std::string msg, std::string hint) {
  diags_.report(id, loc, std::move(msg), std::move(hint));
  throw CompilationAborted{};
}

std::string TokenCursor::describe(const Token& t) const {
  if (t.kind == Tok::End) return "end of file";
  return "'" + t.text + "'";
}

// Where a missing token belongs: right after the previous token when the current one is on a
// later line (a forgotten ';' is reported at the end of its line, not on the next one).
SourceLoc TokenCursor::missingAt() const {
  if (p_ == 0) return cur().loc;
  const Token& prev = toks_[p_ - 1];
  if (cur().kind != Tok::End && cur().line == prev.line) return cur().loc;
  return SourceLoc{prev.loc.file, static_cast<uint32_t>(prev.loc.offset + prev.text.size())};
}

const Token& TokenCursor::expect(Tok k, const char* context) {
  if (!at(k)) {
    std::string hint;
    if (k == Tok::Semi) hint = "every declaration, statement and call ends with ';'";
    fail(DiagId::expected_token, missingAt(),
         fmt::format("expected {} {}, found {}", tokSpelling(k), context, describe(cur())), hint);
  }
  return advance();
}

Name TokenCursor::name(const char* context) {
  if (!at(Tok::Ident))
    fail(DiagId::expected_token, cur().loc,
         fmt::format("expected a name {}, found {}", context, describe(cur())));
  if (isKeyword(cur().text))
    fail(DiagId::expected_token, cur().loc,
         fmt::format("'{}' is a keyword and cannot be used as a name", cur().text),
         "choose another name");
  const Token& t = advance();
  return Name{t.text, t.loc};
}

DepthGuard::DepthGuard(TokenCursor& c, int& counter, bool iterate) : counter_(counter) {
  if (++counter_ > kMaxDepth)
    c.fail(iterate ? DiagId::expected_statement : DiagId::expected_expression, c.cur().loc,
           fmt::format("{} nested more than {} levels deep",
                       iterate ? "iterate blocks" : "expression", kMaxDepth),
           iterate ? "fold nested iterate loops into fewer levels"
                   : "split it into several statements with local scalars");
}

}  // namespace tessel::parser
