// The parser of directives: a '#pragma' or '#assign' line becomes a list of clauses, each with
// its words, numbers, name=integer assignments and parenthesised lists. Which directive may
// stand where is decided by the callers in parser.cpp; what the clauses mean, by sema_hints.cpp.
#include <cstdlib>

#include "frontend/parser_internal.h"

namespace tessel::parser {

Directive Parser::directive() {
  const Token& d = advance();
  Directive dir;
  dir.kind = d.text;
  dir.loc = d.loc;
  int line = d.line;
  auto onLine = [&] { return cur().kind != Tok::End && cur().line == line; };
  while (onLine()) {
    DirectiveClause c;
    if (!at(Tok::Ident))
      fail(DiagId::bad_directive, cur().loc,
           fmt::format("expected a clause name in '#{}', found {}", dir.kind, describe(cur())));
    const Token& nt = advance();
    c.name = Name{nt.text, nt.loc};
    // Clause arguments: everything up to the next clause name on this line.
    while (onLine()) {
      if (at(Tok::Comma) && dir.kind == "assign") {
        advance();
        break;
      }
      if (at(Tok::LParen)) {
        SourceLoc open = advance().loc;
        while (onLine() && !at(Tok::RParen)) {
          if (at(Tok::Int) || at(Tok::Float)) {
            c.numbers.emplace_back(std::strtod(cur().text.c_str(), nullptr), cur().loc);
          } else if (at(Tok::Ident)) {
            c.list.push_back(Name{cur().text, cur().loc});
          } else if (!at(Tok::Comma)) {
            fail(DiagId::bad_directive, cur().loc,
                 fmt::format("unexpected {} in a directive list", describe(cur())));
          }
          advance();
        }
        if (!onLine() || !at(Tok::RParen))
          fail(DiagId::bad_directive, open, "unclosed '(' in a directive",
               "a directive ends at the end of its line");
        advance();
        continue;
      }
      if (at(Tok::Int) || at(Tok::Float)) {
        c.numbers.emplace_back(std::strtod(cur().text.c_str(), nullptr), cur().loc);
        advance();
        continue;
      }
      if (at(Tok::Ident) && peekTok().kind == Tok::Assign && peekTok().line == line) {
        Name n{cur().text, cur().loc};
        advance();
        advance();
        if (!at(Tok::Int) || cur().line != line)
          fail(DiagId::bad_directive, cur().loc,
               fmt::format("expected an integer after '{}=' in '{}'", n.text, c.name.text));
        c.assignments.emplace_back(n, std::strtoll(cur().text.c_str(), nullptr, 10));
        advance();
        accept(Tok::Comma);
        continue;
      }
      if (at(Tok::Ident) && takesWord(c.name.text, c)) {
        c.words.push_back(Name{cur().text, cur().loc});
        advance();
        continue;
      }
      break;  // the next clause
    }
    dir.clauses.push_back(std::move(c));
  }
  if (dir.clauses.empty())
    fail(DiagId::bad_directive, dir.loc, fmt::format("empty '#{}' directive", dir.kind));
  return dir;
}

// Whether the identifier at the cursor is an argument of clause `clause` rather than a new
// clause: stream/full_stream take one iterator, perspective one word, unroll a distribution.
bool Parser::takesWord(const std::string& clause, const DirectiveClause& c) const {
  if ((clause == "stream" || clause == "full_stream" || clause == "perspective") && c.words.empty())
    return true;
  if (clause == "unroll" && (cur().text == "blocked" || cur().text == "cyclic")) return true;
  return false;
}

}  // namespace tessel::parser
