// Tokens of the stencil language (language.md section 2).
#pragma once

#include <string>

#include "support/source.h"

namespace tessel {

enum class Tok {
  End,
  Ident,      // identifiers and keywords (keywords are checked by text)
  Int,        // 42
  Float,      // 1.0, 1e-3, .5, 1.  (text keeps an f/F suffix)
  Directive,  // `#pragma` or `#assign`; text is "pragma" / "assign"
  Semi,
  Comma,
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Colon,
  DotDot,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Caret,
  Lt,
  Gt,
  Le,
  Ge,
  EqEq,
  Ne,
  Amp,
  Pipe,
  Assign,
  PlusAssign,
  MinusAssign,
  StarAssign,
  SlashAssign,
};

const char* tokSpelling(Tok t);

struct Token {
  Tok kind = Tok::End;
  std::string text;
  SourceLoc loc;
  int line = 0;  // 1-based; directives run to the end of their line
};

bool isKeyword(const std::string& s);

}  // namespace tessel
