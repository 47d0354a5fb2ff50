// Internal declarations shared by the parser files: the token cursor (position, expectations and
// syntax errors), the nesting guard, the expression parser (parser_expr.cpp) and the parser of
// declarations, statements and the top level (parser.cpp, directives in parser_directive.cpp).
// Each layer derives from the one below, so the parsing functions read the cursor unqualified.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "frontend/token.h"
#include "support/diagnostics.h"

namespace tessel::parser {

using ast::Call;
using ast::Decl;
using ast::DimDecl;
using ast::Directive;
using ast::DirectiveClause;
using ast::Expr;
using ast::ExprPtr;
using ast::File;
using ast::Formal;
using ast::Item;
using ast::Iterate;
using ast::Name;
using ast::Placement;
using ast::RangeAst;
using ast::Statement;
using ast::StencilDef;
using ast::VarDecl;

/// A position in the token list and the ways to move over it; every syntax error goes through
/// fail(), which reports it and throws CompilationAborted.
class TokenCursor {
 public:
  TokenCursor(const std::vector<Token>& t, DiagnosticEngine& d) : toks_(t), diags_(d) {}

  const Token& cur() const { return toks_[p_]; }
  const Token& peekTok(size_t k = 1) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  bool at(Tok k) const { return cur().kind == k; }
  bool atWord(const char* w) const { return cur().kind == Tok::Ident && cur().text == w; }
  const Token& advance() {
    const Token& t = toks_[p_];
    if (p_ + 1 < toks_.size()) ++p_;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    advance();
    return true;
  }

  [[noreturn]] void fail(DiagId id, SourceLoc loc, std::string msg, std::string hint = {});
  std::string describe(const Token& t) const;
  const Token& expect(Tok k, const char* context);
  Name name(const char* context);

 private:
  const std::vector<Token>& toks_;
  DiagnosticEngine& diags_;
  size_t p_ = 0;

  SourceLoc missingAt() const;
};

/// Nesting is bounded so that no input can exhaust the stack: a guard counts one level of
/// `counter` while it lives and stops the parse beyond kMaxDepth.
class DepthGuard {
 public:
  static constexpr int kMaxDepth = 200;
  DepthGuard(TokenCursor& c, int& counter, bool iterate = false);
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  ~DepthGuard() { --counter_; }

 private:
  int& counter_;
};

/// Expressions (language.md section 7), one function per precedence level.
class ExprParser : public TokenCursor {
 public:
  using TokenCursor::TokenCursor;

 protected:
  int depth_ = 0;  // expression nesting

  ExprPtr expr();
  void subscripts(Expr& e);

 private:
  using Parselet = ExprPtr (ExprParser::*)();

  void checkTreeDepth(Expr& e);
  ExprPtr binaryLevel(Parselet next, std::initializer_list<std::pair<Tok, Op>> ops,
                      Parselet rightOperand = nullptr);
  ExprPtr andExpr();
  ExprPtr eqExpr();
  ExprPtr relExpr();
  ExprPtr addExpr();
  ExprPtr mulExpr();
  ExprPtr unaryExpr();
  ExprPtr powExpr();
  ExprPtr powRight();
  ExprPtr primary();
};

/// The whole file: top-level items, declarations, stencils, statements and directives.
class Parser : public ExprParser {
 public:
  using ExprParser::ExprParser;
  File file();

 private:
  int iterateDepth_ = 0;  // iterate nesting

  Item topItem();
  Decl decl(bool inBody);
  std::vector<RangeAst> domain();
  Call callItem();
  Iterate iterate();
  StencilDef stencil();
  Statement statement();
  ExprPtr lhs();
  Directive directive();  // parser_directive.cpp
  bool takesWord(const std::string& clause, const DirectiveClause& c) const;
  /// Whether a number, negative too ('-' and a number on line `line`), is at the cursor.
  bool atNumber(int line) const;
  /// The number at the cursor, with a leading '-' (consumed), and where it starts.
  std::pair<double, SourceLoc> number();
};

}  // namespace tessel::parser
