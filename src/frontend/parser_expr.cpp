// The expression parser (language.md section 7): one function per precedence level from '|'
// down to '^' and the primary expressions (literals, names, subscripted arrays, calls and
// parentheses), with the bound on how deep an expression tree may grow.
#include <cstdlib>

#include "frontend/parser_internal.h"

namespace tessel::parser {

namespace {

// The depth of the tree an expression builds, bounded so that no later pass (all recursive)
// can exhaust the stack: a chain `a + b + c ...` is as deep as it is long.
constexpr int kMaxTreeDepth = 2000;

int treeDepth(const Expr& e) {
  int d = 0;
  for (auto& a : e.args) d = std::max(d, a->depth);
  return d + 1;
}

}  // namespace

void ExprParser::checkTreeDepth(Expr& e) {
  e.depth = treeDepth(e);
  if (e.depth > kMaxTreeDepth)
    fail(DiagId::expected_expression, e.loc,
         fmt::format("expression too long: more than {} operators deep", kMaxTreeDepth),
         "split it into several statements that accumulate into a local scalar");
}

ExprPtr ExprParser::binaryLevel(Parselet next, std::initializer_list<std::pair<Tok, Op>> ops,
                                Parselet rightOperand) {
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

ExprPtr ExprParser::expr() {
  DepthGuard g(*this, depth_);
  return binaryLevel(&ExprParser::andExpr, {{Tok::Pipe, Op::Or}});
}
ExprPtr ExprParser::andExpr() { return binaryLevel(&ExprParser::eqExpr, {{Tok::Amp, Op::And}}); }
ExprPtr ExprParser::eqExpr() {
  return binaryLevel(&ExprParser::relExpr, {{Tok::EqEq, Op::Eq}, {Tok::Ne, Op::Ne}});
}
ExprPtr ExprParser::relExpr() {
  return binaryLevel(&ExprParser::addExpr,
                     {{Tok::Lt, Op::Lt}, {Tok::Le, Op::Le}, {Tok::Gt, Op::Gt}, {Tok::Ge, Op::Ge}});
}
ExprPtr ExprParser::addExpr() {
  return binaryLevel(&ExprParser::mulExpr, {{Tok::Plus, Op::Add}, {Tok::Minus, Op::Sub}});
}
ExprPtr ExprParser::mulExpr() {
  return binaryLevel(&ExprParser::unaryExpr,
                     {{Tok::Star, Op::Mul}, {Tok::Slash, Op::Div}, {Tok::Percent, Op::Mod}});
}
ExprPtr ExprParser::unaryExpr() {
  if (at(Tok::Minus)) {
    DepthGuard g(*this, depth_);
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
ExprPtr ExprParser::powExpr() {
  return binaryLevel(&ExprParser::primary, {{Tok::Caret, Op::Pow}}, &ExprParser::powRight);
}
ExprPtr ExprParser::powRight() { return at(Tok::Minus) ? unaryExpr() : primary(); }

ExprPtr ExprParser::primary() {
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

void ExprParser::subscripts(Expr& e) {
  while (accept(Tok::LBracket)) {
    do e.args.push_back(expr());
    while (accept(Tok::Comma));
    expect(Tok::RBracket, "after the subscripts");
  }
}

}  // namespace tessel::parser
