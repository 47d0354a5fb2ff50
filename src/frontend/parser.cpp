#include "frontend/parser.h"

#include <cstdlib>
#include <set>

namespace tessel {

namespace {

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

std::optional<ScalarType> typeKeyword(const std::string& s) {
  if (s == "double") return ScalarType::Double;
  if (s == "float") return ScalarType::Float;
  if (s == "int") return ScalarType::Int;
  if (s == "bool") return ScalarType::Bool;
  return std::nullopt;
}

bool isDataList(const std::string& s) {
  return s == "copyin" || s == "copyout" || s == "allocin" || s == "constant" || s == "coefficient";
}

class Parser {
 public:
  Parser(const std::vector<Token>& t, DiagnosticEngine& d) : toks_(t), diags_(d) {}

  File file() {
    File f;
    std::vector<Directive> pendingPragmas;
    while (!at(Tok::End)) {
      if (at(Tok::Directive)) {
        Directive d = directive();
        if (d.kind != "pragma")
          fail(DiagId::bad_directive, d.loc, "'#assign' is only allowed inside a stencil body",
               "put '#assign shmem (...)' at the start of the stencil it applies to");
        pendingPragmas.push_back(std::move(d));
        continue;
      }
      Item it = topItem();
      if (!pendingPragmas.empty()) {
        if (it.kind != Item::Kind::Stencil)
          fail(DiagId::bad_directive, pendingPragmas.front().loc,
               "'#pragma' must come right before a stencil definition",
               "move it to the line before 'stencil NAME (...)'");
        it.stencil->pragmas = std::move(pendingPragmas);
        pendingPragmas.clear();
      }
      f.items.push_back(std::move(it));
    }
    if (!pendingPragmas.empty())
      fail(DiagId::bad_directive, pendingPragmas.front().loc,
           "'#pragma' must come right before a stencil definition",
           "move it to the line before 'stencil NAME (...)'");
    return f;
  }

 private:
  const std::vector<Token>& toks_;
  DiagnosticEngine& diags_;
  size_t p_ = 0;

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

  [[noreturn]] void fail(DiagId id, SourceLoc loc, std::string msg, std::string hint = {}) {
    diags_.report(id, loc, std::move(msg), std::move(hint));
    throw CompilationAborted{};
  }

  std::string describe(const Token& t) const {
    if (t.kind == Tok::End) return "end of file";
    return "'" + t.text + "'";
  }

  // Where a missing token belongs: right after the previous token when the current one is on a
  // later line (a forgotten ';' is reported at the end of its line, not on the next one).
  SourceLoc missingAt() const {
    if (p_ == 0) return cur().loc;
    const Token& prev = toks_[p_ - 1];
    if (cur().kind != Tok::End && cur().line == prev.line) return cur().loc;
    return SourceLoc{prev.loc.file, static_cast<uint32_t>(prev.loc.offset + prev.text.size())};
  }

  const Token& expect(Tok k, const char* context) {
    if (!at(k)) {
      std::string hint;
      if (k == Tok::Semi) hint = "every declaration, statement and call ends with ';'";
      fail(DiagId::expected_token, missingAt(),
           fmt::format("expected {} {}, found {}", tokSpelling(k), context, describe(cur())), hint);
    }
    return advance();
  }

  Name name(const char* context) {
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

  // ---- top level ----

  Item topItem() {
    Item it;
    it.loc = cur().loc;
    if (atWord("parameter")) {
      advance();
      it.kind = Item::Kind::Params;
      do {
        Name n = name("in the parameter list");
        ExprPtr def;
        if (accept(Tok::Assign)) def = expr();
        it.params.emplace_back(std::move(n), std::move(def));
      } while (accept(Tok::Comma));
      expect(Tok::Semi, "after the parameter list");
    } else if (atWord("iterator")) {
      advance();
      it.kind = Item::Kind::Iterators;
      do it.names.push_back(name("in the iterator list"));
      while (accept(Tok::Comma));
      expect(Tok::Semi, "after the iterator list");
    } else if (at(Tok::Ident) && typeKeyword(cur().text)) {
      it.kind = Item::Kind::Decl;
      it.decl = std::make_unique<Decl>(decl(false));
    } else if (at(Tok::Ident) && isDataList(cur().text)) {
      it.kind = Item::Kind::DataList;
      it.listKind = advance().text;
      do it.names.push_back(name(("in the " + it.listKind + " list").c_str()));
      while (accept(Tok::Comma));
      expect(Tok::Semi, ("after the " + it.listKind + " list").c_str());
    } else if (atWord("stencil") || atWord("function")) {
      it.kind = Item::Kind::Stencil;
      it.stencil = std::make_unique<StencilDef>(stencil());
    } else if (atWord("iterate")) {
      it.kind = Item::Kind::Iterate;
      it.iterate = std::make_unique<Iterate>(iterate());
    } else if (at(Tok::LBracket) ||
               (at(Tok::Ident) && !isKeyword(cur().text) && peekTok().kind == Tok::LParen)) {
      it.kind = Item::Kind::Call;
      it.call = std::make_unique<Call>(callItem());
    } else {
      std::string hint =
          "a program consists of parameter/iterator lists, declarations, data lists "
          "(copyin, ...), stencil definitions, calls and iterate blocks";
      if (at(Tok::Ident) && !isKeyword(cur().text) &&
          (peekTok().kind == Tok::LBracket || peekTok().kind == Tok::Assign ||
           peekTok().kind == Tok::PlusAssign || peekTok().kind == Tok::MinusAssign))
        hint = "statements belong inside a stencil body: stencil NAME (args) { ... }";
      else if (at(Tok::Ident) && !isKeyword(cur().text) && peekTok().kind != Tok::LParen)
        hint = "a call is written NAME (arguments);";
      fail(DiagId::expected_top_level, cur().loc,
           fmt::format("expected a declaration, stencil, call or iterate, found {}",
                       describe(cur())),
           hint);
    }
    return it;
  }

  Decl decl(bool inBody) {
    Decl d;
    d.loc = cur().loc;
    d.type = *typeKeyword(advance().text);
    do {
      VarDecl v;
      v.name = name("in the declaration");
      while (at(Tok::LBracket)) {
        advance();
        do {
          DimDecl dim;
          ExprPtr first = expr();
          if (accept(Tok::Colon) || accept(Tok::DotDot)) {
            dim.lo = std::move(first);
            dim.hi = expr();
          } else {
            dim.hi = std::move(first);
          }
          v.dims.push_back(std::move(dim));
        } while (accept(Tok::Comma));
        expect(Tok::RBracket, "after the array dimensions");
      }
      if (at(Tok::Assign)) {
        if (!inBody)
          fail(DiagId::expected_token, cur().loc,
               "global scalars cannot be initialised in their declaration",
               "give values at run time (--scalar NAME=VALUE) or use an initialised local "
               "inside a stencil");
        advance();
        v.init = expr();
      }
      d.vars.push_back(std::move(v));
    } while (accept(Tok::Comma));
    expect(Tok::Semi, "after the declaration");
    return d;
  }

  std::vector<RangeAst> domain() {
    std::vector<RangeAst> r;
    while (at(Tok::LBracket)) {
      advance();
      do {
        RangeAst ra;
        ra.loc = cur().loc;
        ra.lo = expr();
        if (!accept(Tok::Colon) && !accept(Tok::DotDot))
          fail(DiagId::expected_token, cur().loc,
               fmt::format("expected ':' in a domain range, found {}", describe(cur())),
               "a domain range is written lo:hi (both inclusive)");
        ra.hi = expr();
        r.push_back(std::move(ra));
      } while (accept(Tok::Comma));
      expect(Tok::RBracket, "after the domain ranges");
    }
    expect(Tok::Colon, "after a domain");
    return r;
  }

  Call callItem() {
    Call c;
    c.loc = cur().loc;
    if (at(Tok::LBracket)) c.domain = domain();
    c.name = name("(the stencil to call)");
    expect(Tok::LParen, "after the stencil name in a call");
    if (!at(Tok::RParen)) {
      do {
        if (!at(Tok::Ident))
          fail(DiagId::bad_call_argument, cur().loc,
               fmt::format("call arguments must be array or scalar names, found {}",
                           describe(cur())),
               at(Tok::Int) || at(Tok::Float) || at(Tok::Minus)
                   ? "declare a scalar, give it a value at run time (--scalar), and pass its name"
                   : "");
        c.args.push_back(name("as a call argument"));
      } while (accept(Tok::Comma));
    }
    expect(Tok::RParen, "to close the call's argument list");
    expect(Tok::Semi, "after the call");
    return c;
  }

  Iterate iterate() {
    DepthGuard g(*this, true);
    Iterate it;
    it.loc = advance().loc;  // 'iterate'
    Tok close = Tok::End;
    if (accept(Tok::LParen))
      close = Tok::RParen;
    else if (accept(Tok::LBracket))
      close = Tok::RBracket;
    ExprPtr first = expr();
    if (accept(Tok::Colon)) {
      it.lo = std::move(first);
      it.hi = expr();
    } else {
      it.hi = std::move(first);
    }
    if (close != Tok::End) expect(close, "to close the iterate range");
    expect(Tok::LBrace, "to open the iterate body");
    while (!at(Tok::RBrace)) {
      if (at(Tok::End)) expect(Tok::RBrace, "to close the iterate body");
      Item item;
      item.loc = cur().loc;
      if (atWord("iterate")) {
        item.kind = Item::Kind::Iterate;
        item.iterate = std::make_unique<Iterate>(iterate());
      } else if (at(Tok::LBracket) || (at(Tok::Ident) && !isKeyword(cur().text))) {
        item.kind = Item::Kind::Call;
        item.call = std::make_unique<Call>(callItem());
      } else {
        fail(DiagId::expected_statement, cur().loc,
             fmt::format("expected a call or a nested iterate in the iterate body, found {}",
                         describe(cur())));
      }
      it.body.push_back(std::move(item));
    }
    advance();
    return it;
  }

  // ---- stencils ----

  StencilDef stencil() {
    StencilDef s;
    s.loc = advance().loc;  // 'stencil' / 'function'
    s.name = name("after 'stencil'");
    expect(Tok::LParen, "after the stencil name");
    if (!at(Tok::RParen)) {
      do {
        Formal f;
        if (atWord("inout")) {
          advance();
          expect(Tok::Colon, "after 'inout'");
          f.inout = true;
        }
        f.name = name("in the argument list");
        s.formals.push_back(std::move(f));
      } while (accept(Tok::Comma));
    }
    expect(Tok::RParen, "to close the argument list");
    expect(Tok::LBrace, "to open the stencil body");
    while (!at(Tok::RBrace)) {
      if (at(Tok::End)) expect(Tok::RBrace, "to close the stencil body");
      if (at(Tok::Directive)) {
        Directive d = directive();
        if (d.kind != "assign")
          fail(DiagId::bad_directive, d.loc, "'#pragma' is not allowed inside a stencil body",
               "put '#pragma' lines before the stencil; use '#assign' inside it");
        s.assigns.push_back(std::move(d));
      } else if (at(Tok::Ident) && typeKeyword(cur().text)) {
        s.decls.push_back(decl(true));
        s.decls.back().beforeStmt = s.stmts.size();
      } else if (atWord("shmem") || atWord("no-shmem") || atWord("gmem")) {
        Placement pl;
        pl.loc = cur().loc;
        pl.kind = advance().text;
        do pl.names.push_back(name(("in the " + pl.kind + " list").c_str()));
        while (accept(Tok::Comma));
        expect(Tok::Semi, ("after the " + pl.kind + " list").c_str());
        s.placements.push_back(std::move(pl));
      } else {
        s.stmts.push_back(statement());
      }
    }
    advance();
    return s;
  }

  Statement statement() {
    Statement st;
    st.loc = cur().loc;
    if (at(Tok::LBracket)) st.domain = domain();
    if (!at(Tok::Ident) && !at(Tok::LParen))
      fail(
          DiagId::expected_statement, cur().loc,
          fmt::format("expected a statement (NAME[...] = expression;), found {}", describe(cur())));
    if (at(Tok::Ident) && peekTok().kind == Tok::LParen)
      fail(DiagId::expected_statement, cur().loc,
           fmt::format("'{}(...)' looks like a call, but stencils cannot be called inside a "
                       "stencil body",
                       cur().text),
           "call stencils at top level; inside a body, write statements NAME[...] = expression;");
    st.lhs = lhs();
    switch (cur().kind) {
      case Tok::Assign:
        st.op = AssignOp::Set;
        break;
      case Tok::PlusAssign:
        st.op = AssignOp::Add;
        break;
      case Tok::MinusAssign:
        st.op = AssignOp::Sub;
        break;
      case Tok::StarAssign:
        st.op = AssignOp::Mul;
        break;
      case Tok::SlashAssign:
        st.op = AssignOp::Div;
        break;
      default:
        fail(DiagId::expected_token, cur().loc,
             fmt::format("expected an assignment ('=', '+=', '-=', '*=', '/='), found {}",
                         describe(cur())),
             at(Tok::EqEq) ? "'==' compares; assignment is '='" : "");
    }
    advance();
    st.rhs = expr();
    expect(Tok::Semi, "after the statement");
    return st;
  }

  ExprPtr lhs() {
    DepthGuard g(*this);
    if (accept(Tok::LParen)) {
      ExprPtr e = lhs();
      expect(Tok::RParen, "after the left-hand side");
      return e;
    }
    Name n = name("on the left-hand side");
    auto e = std::make_unique<Expr>();
    e->loc = n.loc;
    e->text = n.text;
    e->kind = Expr::Kind::Name;
    if (at(Tok::LBracket)) {
      e->kind = Expr::Kind::Index;
      subscripts(*e);
    }
    return e;
  }

  void subscripts(Expr& e) {
    while (accept(Tok::LBracket)) {
      do e.args.push_back(expr());
      while (accept(Tok::Comma));
      expect(Tok::RBracket, "after the subscripts");
    }
  }

  // ---- directives ----

  Directive directive() {
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
  bool takesWord(const std::string& clause, const DirectiveClause& c) const {
    if ((clause == "stream" || clause == "full_stream" || clause == "perspective") &&
        c.words.empty())
      return true;
    if (clause == "unroll" && (cur().text == "blocked" || cur().text == "cyclic")) return true;
    return false;
  }

  // ---- expressions (language.md section 7) ----

  using Parselet = ExprPtr (Parser::*)();

  // The depth of the tree an expression builds, bounded so that no later pass (all recursive)
  // can exhaust the stack: a chain `a + b + c ...` is as deep as it is long.
  static constexpr int kMaxTreeDepth = 2000;
  static int treeDepth(const Expr& e) {
    int d = 0;
    for (auto& a : e.args) d = std::max(d, a->depth);
    return d + 1;
  }
  void checkTreeDepth(Expr& e) {
    e.depth = treeDepth(e);
    if (e.depth > kMaxTreeDepth)
      fail(DiagId::expected_expression, e.loc,
           fmt::format("expression too long: more than {} operators deep", kMaxTreeDepth),
           "split it into several statements that accumulate into a local scalar");
  }

  ExprPtr binaryLevel(Parselet next, std::initializer_list<std::pair<Tok, Op>> ops,
                      Parselet rightOperand = nullptr) {
    ExprPtr lhsE = (this->*next)();
    for (;;) {
      bool matched = false;
      for (auto [t, op] : ops) {
        if (at(t)) {
          SourceLoc loc = advance().loc;
          auto e = std::make_unique<Expr>();
          e->kind = Expr::Kind::Binary;
          e->op = op;
          e->loc = loc;
          e->args.push_back(std::move(lhsE));
          e->args.push_back((this->*(rightOperand ? rightOperand : next))());
          checkTreeDepth(*e);
          lhsE = std::move(e);
          matched = true;
          break;
        }
      }
      if (!matched) return lhsE;
    }
  }

  // Nesting is bounded so that no input can exhaust the stack.
  static constexpr int kMaxDepth = 200;
  int depth_ = 0;         // expression nesting
  int iterateDepth_ = 0;  // iterate nesting
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser, bool iterate = false)
        : p(parser), counter(iterate ? parser.iterateDepth_ : parser.depth_) {
      if (++counter > kMaxDepth)
        p.fail(iterate ? DiagId::expected_statement : DiagId::expected_expression, p.cur().loc,
               fmt::format("{} nested more than {} levels deep",
                           iterate ? "iterate blocks" : "expression", kMaxDepth),
               iterate ? "fold nested iterate loops into fewer levels"
                       : "split it into several statements with local scalars");
    }
    ~DepthGuard() { --counter; }
    int& counter;
  };

  ExprPtr expr() {
    DepthGuard g(*this);
    return binaryLevel(&Parser::andExpr, {{Tok::Pipe, Op::Or}});
  }
  ExprPtr andExpr() { return binaryLevel(&Parser::eqExpr, {{Tok::Amp, Op::And}}); }
  ExprPtr eqExpr() {
    return binaryLevel(&Parser::relExpr, {{Tok::EqEq, Op::Eq}, {Tok::Ne, Op::Ne}});
  }
  ExprPtr relExpr() {
    return binaryLevel(
        &Parser::addExpr,
        {{Tok::Lt, Op::Lt}, {Tok::Le, Op::Le}, {Tok::Gt, Op::Gt}, {Tok::Ge, Op::Ge}});
  }
  ExprPtr addExpr() {
    return binaryLevel(&Parser::mulExpr, {{Tok::Plus, Op::Add}, {Tok::Minus, Op::Sub}});
  }
  ExprPtr mulExpr() {
    return binaryLevel(&Parser::unaryExpr,
                       {{Tok::Star, Op::Mul}, {Tok::Slash, Op::Div}, {Tok::Percent, Op::Mod}});
  }
  ExprPtr unaryExpr() {
    if (at(Tok::Minus)) {
      DepthGuard g(*this);
      SourceLoc loc = advance().loc;
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::Unary;
      e->op = Op::Neg;
      e->loc = loc;
      e->args.push_back(unaryExpr());
      checkTreeDepth(*e);
      return e;
    }
    return powExpr();
  }
  // `^` binds tighter than unary minus on its left (-x^2 is -(x^2)); its right operand may
  // start with a minus (2.0 ^ -1), which then covers the rest of the power chain.
  ExprPtr powExpr() {
    return binaryLevel(&Parser::primary, {{Tok::Caret, Op::Pow}}, &Parser::powRight);
  }
  ExprPtr powRight() { return at(Tok::Minus) ? unaryExpr() : primary(); }

  ExprPtr primary() {
    auto e = std::make_unique<Expr>();
    e->loc = cur().loc;
    if (at(Tok::Int)) {
      e->kind = Expr::Kind::Int;
      e->text = cur().text;
      e->ival = std::strtoll(cur().text.c_str(), nullptr, 10);
      advance();
      return e;
    }
    if (at(Tok::Float)) {
      e->kind = Expr::Kind::Float;
      e->text = cur().text;
      e->floatSuffix = !e->text.empty() && (e->text.back() == 'f' || e->text.back() == 'F');
      e->fval = std::strtod(e->text.c_str(), nullptr);
      advance();
      return e;
    }
    if (atWord("true") || atWord("false")) {
      e->kind = Expr::Kind::Bool;
      e->ival = cur().text == "true";
      advance();
      return e;
    }
    if (accept(Tok::LParen)) {
      ExprPtr inner = expr();
      expect(Tok::RParen, "to close '('");
      return inner;
    }
    if (at(Tok::Ident) && !isKeyword(cur().text)) {
      e->text = advance().text;
      if (accept(Tok::LParen)) {
        e->kind = Expr::Kind::Call;
        if (!at(Tok::RParen)) {
          do e->args.push_back(expr());
          while (accept(Tok::Comma));
        }
        expect(Tok::RParen, "to close the function's arguments");
        checkTreeDepth(*e);
        return e;
      }
      if (at(Tok::LBracket)) {
        e->kind = Expr::Kind::Index;
        subscripts(*e);
        return e;
      }
      e->kind = Expr::Kind::Name;
      return e;
    }
    std::string hint;
    if (at(Tok::Plus)) hint = "the language has no unary '+'";
    fail(DiagId::expected_expression, cur().loc,
         fmt::format("expected an expression, found {}", describe(cur())), hint);
  }
};

}  // namespace

ast::File parse(const std::vector<Token>& tokens, DiagnosticEngine& diags) {
  return Parser(tokens, diags).file();
}

}  // namespace tessel
