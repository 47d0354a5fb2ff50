// Recursive-descent parser, declarations and statements: the top-level items (parameter and
// iterator lists, declarations, data lists, stencil definitions, calls, iterate blocks), the
// body of a stencil and its statements, and parse() itself. Expressions are parsed in
// parser_expr.cpp, directives in parser_directive.cpp, the token cursor is in parser_cursor.cpp.
#include "frontend/parser.h"

#include "frontend/parser_internal.h"

namespace tessel {

namespace parser {

namespace {

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

}  // namespace

File Parser::file() {
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

// ---- top level ----

Item Parser::topItem() {
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
         fmt::format("expected a declaration, stencil, call or iterate, found {}", describe(cur())),
         hint);
  }
  return it;
}

Decl Parser::decl(bool inBody) {
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

std::vector<RangeAst> Parser::domain() {
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

Call Parser::callItem() {
  Call c;
  c.loc = cur().loc;
  if (at(Tok::LBracket)) c.domain = domain();
  c.name = name("(the stencil to call)");
  expect(Tok::LParen, "after the stencil name in a call");
  if (!at(Tok::RParen)) {
    do {
      if (!at(Tok::Ident))
        fail(DiagId::bad_call_argument, cur().loc,
             fmt::format("call arguments must be array or scalar names, found {}", describe(cur())),
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

Iterate Parser::iterate() {
  DepthGuard g(*this, iterateDepth_, true);
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

StencilDef Parser::stencil() {
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

Statement Parser::statement() {
  Statement st;
  st.loc = cur().loc;
  if (at(Tok::LBracket)) st.domain = domain();
  if (!at(Tok::Ident) && !at(Tok::LParen))
    fail(DiagId::expected_statement, cur().loc,
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

ExprPtr Parser::lhs() {
  DepthGuard g(*this, depth_);
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

}  // namespace parser

ast::File parse(const std::vector<Token>& tokens, DiagnosticEngine& diags) {
  return parser::Parser(tokens, diags).file();
}

}  // namespace tessel
