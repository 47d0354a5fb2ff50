// Semantic analysis of the expressions in a stencil body: values and the initialisers of
// initialised locals (which may not read arrays, per-point locals or iterators), literals,
// operators (bool/int operands of '&' and '|', no negative integer powers), calls of math
// functions and select, and what a name refers to (local, formal argument or global).
// Array accesses are checked in sema_body_arrays.cpp.
#include "frontend/sema_body_internal.h"

namespace tessel::sema {

ExprPtr ExprChecker::initExpr(const ast::Expr& e) {
  switch (e.kind) {
    case ast::Expr::Kind::Index:
      err(DiagId::bad_initialiser, e.loc,
          fmt::format("an initialised local cannot read array '{}'", e.text),
          "initialisers are evaluated once per call; use a local scalar statement for "
          "per-point values");
      return nullptr;
    case ast::Expr::Kind::Name: {
      auto it = locals.find(e.text);
      if (it != locals.end() && it->second.kind != LocalSym::Kind::Init) {
        err(DiagId::bad_initialiser, e.loc,
            fmt::format("an initialised local cannot use per-point local '{}'", e.text));
        return nullptr;
      }
      if (auto* s = S.lookup(e.text);
          it == locals.end() && formalIndex(e.text) < 0 && s && s->kind == Symbol::Kind::Iterator) {
        err(DiagId::bad_initialiser, e.loc,
            fmt::format("an initialised local cannot use iterator '{}'", e.text),
            "it is evaluated once per call, not per point");
        return nullptr;
      }
      return value(e);
    }
    default:
      break;
  }
  // Literals, operators and calls: convert children through initExpr.
  return exprWith(e, [this](const ast::Expr& x) { return initExpr(x); });
}

ExprPtr ExprChecker::value(const ast::Expr& e) {
  return exprWith(e, [this](const ast::Expr& x) { return value(x); });
}

template <typename Rec>
ExprPtr ExprChecker::exprWith(const ast::Expr& e, Rec rec) {
  switch (e.kind) {
    case ast::Expr::Kind::Int:
      return intLit(e.ival, e.loc);
    case ast::Expr::Kind::Float:
      return floatLit(e.floatSuffix ? static_cast<double>(static_cast<float>(e.fval)) : e.fval,
                      e.floatSuffix ? ScalarType::Float : ScalarType::Double, e.loc);
    case ast::Expr::Kind::Bool:
      return boolLit(e.ival != 0, e.loc);
    case ast::Expr::Kind::Name:
      return nameRef(e);
    case ast::Expr::Kind::Index:
      return arrayAccess(e, false);
    case ast::Expr::Kind::Unary: {
      ExprPtr a = rec(*e.args[0]);
      return a ? unary(Op::Neg, a, e.loc) : nullptr;
    }
    case ast::Expr::Kind::Binary: {
      ExprPtr a = rec(*e.args[0]);
      ExprPtr b = rec(*e.args[1]);
      if (!a || !b) return nullptr;
      // Formals have placeholder types in the generic check; the instance decides.
      if (!generic && (e.op == Op::And || e.op == Op::Or) &&
          (isFloating(a->type) || isFloating(b->type))) {
        err(DiagId::bad_operand, e.loc,
            fmt::format("'{}' needs bool or int operands, not {}", opSpelling(e.op),
                        typeName(widest(a->type, b->type))),
            "compare first, e.g. (a > 0) & (b > 0)");
        return nullptr;
      }
      if (e.op == Op::Pow && !isFloating(a->type) && !isFloating(b->type)) {
        bool neg = (b->kind == ExprKind::IntLit && b->ival < 0) ||
                   (b->kind == ExprKind::Unary && b->args[0]->kind == ExprKind::IntLit &&
                    b->args[0]->ival > 0);
        if (neg) {
          err(DiagId::negative_int_power, e.loc, "integer power with a negative exponent",
              "int ^ int is an integer power; write a floating base (2.0 ^ -1) for a fraction");
          return nullptr;
        }
      }
      return binary(e.op, a, b, e.loc);
    }
    case ast::Expr::Kind::Call:
      return callExpr(e, rec);
  }
  return nullptr;
}

template <typename Rec>
ExprPtr ExprChecker::callExpr(const ast::Expr& e, Rec rec) {
  int arity = e.text == "select" ? 3 : mathFunctionArity(e.text);
  if (arity < 0) {
    std::string hint;
    if (auto* s = S.lookup(e.text); s && s->kind == Symbol::Kind::Stencil)
      hint = "stencils are called as top-level statements, not inside expressions";
    else if (auto best = closestName(e.text, mathFunctionNames()))
      hint = fmt::format("did you mean '{}'?", *best);
    else
      hint = "known functions: sqrt exp log pow fabs abs sin cos tan min max floor ceil select";
    err(DiagId::unknown_function, e.loc, fmt::format("unknown function '{}'", e.text), hint);
    return nullptr;
  }
  if (static_cast<int>(e.args.size()) != arity) {
    err(DiagId::wrong_arity, e.loc,
        fmt::format("'{}' takes {} argument{}, but {} {} given", e.text, arity,
                    arity == 1 ? "" : "s", e.args.size(), e.args.size() == 1 ? "was" : "were"));
    return nullptr;
  }
  std::vector<ExprPtr> args;
  for (auto& a : e.args) {
    ExprPtr x = rec(*a);
    if (!x) return nullptr;
    args.push_back(x);
  }
  if (e.text == "select") return select(args[0], args[1], args[2], e.loc);
  return call(e.text, std::move(args), e.loc);
}

ExprPtr ExprChecker::nameRef(const ast::Expr& e) {
  if (auto it = locals.find(e.text); it != locals.end()) {
    const LocalSym& l = it->second;
    if (l.kind == LocalSym::Kind::Init)
      return scalarRef(ScalarKind::Init, l.index, e.text, out.inits[l.index].type, e.loc);
    if (l.kind == LocalSym::Kind::Scalar) {
      if (!assignedScalars.count(l.index)) {
        auto& d = err(DiagId::scalar_before_assignment, e.loc,
                      fmt::format("local scalar '{}' is read before it is assigned", e.text),
                      "assign it in an earlier statement of the body");
        d.notes.emplace_back(l.loc, "declared here");
        return nullptr;
      }
      return scalarRef(ScalarKind::Local, l.index, e.text, out.localScalars[l.index].type, e.loc);
    }
    err(DiagId::not_a_scalar, e.loc,
        fmt::format("'{}' is a local array; index it, e.g. {}[{}]", e.text, e.text, iterList()));
    return nullptr;
  }
  if (int f = formalIndex(e.text); f >= 0) {
    const Binding& b = bind[f];
    if (generic) {
      FormalUse& u = *use(f);
      if (u.kind == FormalUse::Kind::Array) {
        auto& d =
            err(DiagId::not_a_scalar, e.loc,
                fmt::format("argument '{}' is used both as an array and as a scalar", e.text));
        d.notes.emplace_back(u.loc, "indexed as an array here");
        return nullptr;
      }
      if (u.kind == FormalUse::Kind::Unused) u = {FormalUse::Kind::Scalar, 0, false, e.loc};
      return scalarRef(ScalarKind::Global, -1, e.text, ScalarType::Double, e.loc);
    }
    const ScalarDecl& sd = S.prog().scalars.at(b.index);
    return scalarRef(ScalarKind::Global, b.index, sd.name, sd.type, e.loc);
  }
  const Symbol* s = S.lookup(e.text);
  if (!s) {
    undeclared(ast::Name{e.text, e.loc}, "name");
    return nullptr;
  }
  switch (s->kind) {
    case Symbol::Kind::Iterator:
      return iterRef(s->index, e.text, e.loc);
    case Symbol::Kind::Param:
      return paramRef(s->index, e.text, e.loc);
    case Symbol::Kind::Scalar:
      return scalarRef(ScalarKind::Global, s->index, e.text, S.prog().scalars[s->index].type,
                       e.loc);
    case Symbol::Kind::Array:
      err(DiagId::not_a_scalar, e.loc,
          fmt::format("'{}' is an array; index it, e.g. {}[{}]", e.text, e.text, iterList()));
      return nullptr;
    case Symbol::Kind::Stencil:
      err(DiagId::not_a_scalar, e.loc, fmt::format("'{}' is a stencil, not a value", e.text));
      return nullptr;
  }
  return nullptr;
}

}  // namespace tessel::sema
