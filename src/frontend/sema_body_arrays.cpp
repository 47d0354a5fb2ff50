// Semantic analysis of array accesses in a stencil body: which array a subscripted name refers
// to (local, formal argument, global or a call's scratch copy) and how formals are used, the
// form of each subscript (iterator, iterator +/- offset within bounds, or a constant), the
// subscripts' agreement with the array's rank and the iterator order, the rules for a
// left-hand side, and reads of local arrays before any statement writes them.
#include "frontend/sema_body_internal.h"

namespace tessel::sema {

namespace {

constexpr int64_t kMaxOffset = 2147483647;  // 2^31 - 1, the largest subscript offset

}  // namespace

// Resolves the array an Index expression names. Returns false after an error.
bool ExprChecker::resolveArray(const ast::Expr& e, ArrayId& id, ScalarType& type, int& rank,
                               bool& isConstant, bool isLhs) {
  isConstant = false;
  if (auto it = locals.find(e.text); it != locals.end()) {
    if (it->second.kind != LocalSym::Kind::Array) {
      err(isLhs ? DiagId::bad_lhs : DiagId::not_an_array, e.loc,
          fmt::format("'{}' is a local scalar and cannot be indexed", e.text),
          isLhs ? fmt::format("write '{} = ...' to assign it", e.text) : "");
      return false;
    }
    id = {true, it->second.index};
    type = out.localArrays[id.index].type;
    rank = static_cast<int>(out.localArrays[id.index].extents.size());
    return true;
  }
  int g = -1;
  if (int f = formalIndex(e.text); f >= 0) {
    if (generic) {
      FormalUse& u = *use(f);
      int r = static_cast<int>(e.args.size());
      if (u.kind == FormalUse::Kind::Scalar) {
        auto& d =
            err(DiagId::not_an_array, e.loc,
                fmt::format("argument '{}' is used both as a scalar and as an array", e.text));
        d.notes.emplace_back(u.loc, "used as a scalar here");
        return false;
      }
      if (u.kind == FormalUse::Kind::Array && u.rank != r) {
        auto& d = err(DiagId::subscript_mismatch, e.loc,
                      fmt::format("argument '{}' is indexed with {} subscript{} here and {} "
                                  "elsewhere",
                                  e.text, r, r == 1 ? "" : "s", u.rank));
        d.notes.emplace_back(u.loc, "first indexed here");
        return false;
      }
      if (u.kind == FormalUse::Kind::Unused) u = {FormalUse::Kind::Array, r, false, e.loc};
      if (isLhs) u.written = true;
      if (!placeholders.count(f)) {
        placeholders[f] = static_cast<int>(out.localArrays.size());
        out.localArrays.push_back(
            {e.text, ScalarType::Double, std::vector<ExprPtr>(r, intLit(0)), e.loc, -2});
      }
      id = {true, placeholders[f]};
      type = ScalarType::Double;
      rank = r;
      return true;
    }
    g = bind[f].index;
  } else {
    const Symbol* s = S.lookup(e.text);
    if (!s) {
      undeclared(ast::Name{e.text, e.loc}, "array");
      return false;
    }
    if (s->kind != Symbol::Kind::Array) {
      if (isLhs && s->kind == Symbol::Kind::Scalar)
        err(DiagId::assign_global_scalar, e.loc,
            fmt::format("cannot assign global scalar '{}' inside a stencil", e.text),
            "use a local scalar ('double r;') for per-point values");
      else
        err(isLhs ? DiagId::bad_lhs : DiagId::not_an_array, e.loc,
            fmt::format("'{}' is {} and cannot be indexed", e.text, symbolKindName(s->kind)));
      return false;
    }
    g = s->index;
    isConstant = S.constantNames.count(e.text) > 0;
  }
  const ArrayDecl& a = S.prog().arrays.at(g);
  type = a.type;
  rank = static_cast<int>(a.extents.size());
  if (auto it = scratch.find(g); it != scratch.end())
    id = {true, it->second};
  else
    id = {false, g};
  return true;
}

bool ExprChecker::subscript(const ast::Expr& e, Subscript& out_) {
  auto iterOf = [&](const ast::Expr& x) -> int {
    if (x.kind != ast::Expr::Kind::Name || locals.count(x.text) || formalIndex(x.text) >= 0)
      return -1;
    const Symbol* s = S.lookup(x.text);
    return s && s->kind == Symbol::Kind::Iterator ? s->index : -1;
  };
  if (e.kind == ast::Expr::Kind::Int) {
    out_ = {-1, e.ival};
    return true;
  }
  if (e.kind == ast::Expr::Kind::Unary && e.args[0]->kind == ast::Expr::Kind::Int) {
    out_ = {-1, -e.args[0]->ival};
    return true;
  }
  if (int it = iterOf(e); it >= 0) {
    out_ = {it, 0};
    return true;
  }
  // The halos, regions and tiles summed from offsets stay far inside 64 bits (language.md 4.6).
  auto offset = [&](int it, const ast::Expr& c, int64_t v) {
    if (v > kMaxOffset || v < -kMaxOffset) {
      err(DiagId::bad_subscript, c.loc,
          fmt::format("the offset {} is too large: offsets lie between -{} and {}", v, kMaxOffset,
                      kMaxOffset));
      return false;
    }
    out_ = {it, v};
    return true;
  };
  if (e.kind == ast::Expr::Kind::Binary && (e.op == Op::Add || e.op == Op::Sub)) {
    const ast::Expr& a = *e.args[0];
    const ast::Expr& b = *e.args[1];
    if (int it = iterOf(a); it >= 0 && b.kind == ast::Expr::Kind::Int)
      return offset(it, b, e.op == Op::Add ? b.ival : -b.ival);
    if (int it = iterOf(b); it >= 0 && a.kind == ast::Expr::Kind::Int && e.op == Op::Add)
      return offset(it, a, a.ival);
  }
  err(DiagId::bad_subscript, e.loc,
      "a subscript must be 'iterator', 'iterator + c', 'iterator - c' or an integer constant",
      "offsets are integer literals, e.g. A[k][j][i+1]");
  return false;
}

ExprPtr ExprChecker::arrayAccess(const ast::Expr& e, bool isLhs) {
  ArrayId id;
  ScalarType type;
  int rank = 0;
  bool isConstant = false;
  if (!resolveArray(e, id, type, rank, isConstant, isLhs)) return nullptr;
  if (static_cast<int>(e.args.size()) != rank) {
    err(DiagId::subscript_mismatch, e.loc,
        fmt::format("'{}' has {} dimension{} but is indexed with {} subscript{}", e.text, rank,
                    rank == 1 ? "" : "s", e.args.size(), e.args.size() == 1 ? "" : "s"));
    return nullptr;
  }
  std::vector<Subscript> subs;
  for (auto& a : e.args) {
    Subscript s;
    if (!subscript(*a, s)) return nullptr;
    subs.push_back(s);
  }
  int dims = S.prog().dims();
  auto iters = S.prog().iteratorNames();
  if (rank == dims) {
    for (int k = 0; k < rank; ++k)
      if (!subs[k].fixed() && subs[k].iter != k) {
        err(DiagId::subscript_mismatch, e.args[k]->loc,
            fmt::format("subscript {} of '{}' uses iterator '{}', but dimension {} belongs to "
                        "iterator '{}'",
                        k + 1, e.text, iters[subs[k].iter], k + 1, iters[k]),
            fmt::format("subscripts follow iterator order: {}[{}]", e.text, iterList()));
        return nullptr;
      }
  } else {
    for (int k = 0; k < rank; ++k)
      for (int m = 0; m < k; ++m)
        if (!subs[k].fixed() && subs[k].iter == subs[m].iter) {
          err(DiagId::subscript_mismatch, e.args[k]->loc,
              fmt::format("iterator '{}' is used twice in the subscripts of '{}'",
                          iters[subs[k].iter], e.text));
          return nullptr;
        }
  }
  if (isLhs) {
    bool full = rank == dims;
    for (int k = 0; k < rank && full; ++k) full = !subs[k].fixed();
    if (!full) {
      err(DiagId::bad_lhs, e.loc,
          fmt::format("a left-hand side must name every iterator in order ({}[{}]), with "
                      "offsets but no fixed planes",
                      e.text, iterList()),
          rank < dims ? "arrays with fewer dimensions than iterators are read-only" : "");
      return nullptr;
    }
    if (isConstant) {
      err(DiagId::assign_constant, e.loc,
          fmt::format("'{}' is a constant array and cannot be written", e.text),
          "remove it from the constant list, or write another array");
      return nullptr;
    }
  } else if (id.local && out.localArrays[id.index].scratchOf == -1 &&
             !writtenLocals.count(id.index)) {
    auto& d = err(DiagId::local_before_write, e.loc,
                  fmt::format("local array '{}' is read before any statement writes it", e.text),
                  "local arrays start fresh at every call; write it in an earlier statement");
    d.notes.emplace_back(out.localArrays[id.index].loc, "declared here");
    writtenLocals.insert(id.index);  // said once
    return nullptr;
  }
  return arrayRef(id, e.text, type, std::move(subs), e.loc);
}

}  // namespace tessel::sema
