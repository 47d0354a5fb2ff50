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
        // Items separated by commas: an item after every comma, none missing.
        bool expectItem = true;
        while (onLine() && !at(Tok::RParen)) {
          if (at(Tok::Comma)) {
            if (expectItem)
              fail(DiagId::bad_directive, cur().loc,
                   fmt::format("expected a number or a name before ',' in '{}'", c.name.text));
            expectItem = true;
            advance();
            continue;
          }
          if (!expectItem)
            fail(
                DiagId::bad_directive, cur().loc,
                fmt::format("expected ',' or ')' in '{}', found {}", c.name.text, describe(cur())));
          if (atNumber(line)) {
            c.numbers.push_back(number());
            expectItem = false;
            continue;
          }
          if (at(Tok::Ident)) {
            c.list.push_back(Name{cur().text, cur().loc});
          } else {
            fail(DiagId::bad_directive, cur().loc,
                 fmt::format("unexpected {} in a directive list", describe(cur())));
          }
          expectItem = false;
          advance();
        }
        if (!onLine() || !at(Tok::RParen))
          fail(DiagId::bad_directive, open, "unclosed '(' in a directive",
               "a directive ends at the end of its line");
        if (expectItem && (!c.numbers.empty() || !c.list.empty()))
          fail(DiagId::bad_directive, cur().loc,
               fmt::format("expected a number or a name after ',' in '{}'", c.name.text));
        advance();
        continue;
      }
      // A number, negative too (the clause says what it takes: 'time_tile -1' is refused
      // there, with the range).
      if (atNumber(line)) {
        c.numbers.push_back(number());
        continue;
      }
      if (at(Tok::Ident) && peekTok().kind == Tok::Assign && peekTok().line == line) {
        Name n{cur().text, cur().loc};
        advance();
        const SourceLoc eq = advance().loc;
        if (!at(Tok::Int) || cur().line != line)
          fail(DiagId::bad_directive, cur().line == line ? cur().loc : eq,
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

bool Parser::atNumber(int line) const {
  if (at(Tok::Int) || at(Tok::Float)) return true;
  const Token& next = peekTok();
  return at(Tok::Minus) && next.line == line && (next.kind == Tok::Int || next.kind == Tok::Float);
}

std::pair<double, SourceLoc> Parser::number() {
  const SourceLoc loc = cur().loc;
  const bool negative = accept(Tok::Minus);
  const double v = std::strtod(cur().text.c_str(), nullptr);
  advance();
  return {negative ? -v : v, loc};
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
