// Statement decomposition and retiming (retiming.h).
#include "analysis/retiming.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "analysis/staging.h"  // planeText

namespace tessel {

namespace {

/// The plane of dimension `sd` that an array access reads (its offset), or nullopt when it
/// reads no plane of it (an array without that dimension, or a fixed plane).
std::optional<int64_t> planeOf(const Expr& ref, int sd) {
  for (const Subscript& s : ref.subs)
    if (!s.fixed() && s.iter == sd) return s.offset;
  return std::nullopt;
}

/// What a term depends on along the streamed dimension.
struct Reads {
  /// Offset -> the first access of that plane; a per-point local scalar is on the iterator's
  /// plane (offset 0: its value at the point, which an earlier statement's kernel computed).
  std::map<int64_t, const Expr*> planes;
  /// The streamed iterator itself: no plane, but not a plane-free factor either (a shifted term
  /// moves it with its accesses).
  const Expr* iter = nullptr;
  bool free() const { return planes.empty() && !iter; }
};

Reads readsOf(const ExprPtr& e, int sd) {
  Reads r;
  visitExpr(e, [&](const ExprPtr& x) {
    if (x->kind == ExprKind::ArrayRef) {
      if (auto o = planeOf(*x, sd)) r.planes.emplace(*o, x.get());
    } else if (isLocalScalarRef(*x)) {
      r.planes.emplace(0, x.get());
    } else if (x->kind == ExprKind::IterRef && x->index == sd) {
      if (!r.iter) r.iter = x.get();
    }
  });
  return r;
}

/// A plane-free factor a term was distributed over: `f * x` (left), `x * f` or `x / f`.
struct Scale {
  Op op = Op::Mul;
  ExprPtr factor;
  bool left = false;
};

/// A term of the sum: `core` with its scales applied, innermost first.
struct Term {
  ExprPtr core;
  bool negative = false;
  std::vector<Scale> scales;

  ExprPtr expr() const { return scaled(core); }
  ExprPtr scaled(ExprPtr x) const {
    for (const Scale& s : scales)
      x = s.left ? binary(s.op, s.factor, x, x->loc) : binary(s.op, x, s.factor, x->loc);
    return x;
  }
  /// Terms with the same key share their scales: their cores are added first, then scaled once
  /// (c1 * (a + b), as written, rather than c1 * a + c1 * b).
  std::string key(const std::vector<std::string>& names) const {
    std::string k;
    for (const Scale& s : scales)
      k += fmt::format("{}{}{};", s.left ? "L" : "R", opSpelling(s.op), toString(s.factor, names));
    return k;
  }
};

/// `e` as a sum of terms: + and - split, a product or (floating) quotient with a factor that
/// reads no plane distributed over the sum it multiplies.
void split(const ExprPtr& e, bool negative, int sd, std::vector<Term>& out) {
  auto distribute = [&](const ExprPtr& sum, Scale scale) {
    std::vector<Term> inner;
    split(sum, negative, sd, inner);
    for (Term& t : inner) {
      t.scales.push_back(scale);
      out.push_back(std::move(t));
    }
  };
  if (e->kind == ExprKind::Unary && e->op == Op::Neg) {
    split(e->args[0], !negative, sd, out);
    return;
  }
  if (e->kind == ExprKind::Binary) {
    const ExprPtr &a = e->args[0], &b = e->args[1];
    switch (e->op) {
      case Op::Add:
        split(a, negative, sd, out);
        split(b, negative, sd, out);
        return;
      case Op::Sub:
        split(a, negative, sd, out);
        split(b, !negative, sd, out);
        return;
      case Op::Mul:
        if (readsOf(a, sd).free()) {
          distribute(b, {Op::Mul, a, true});
          return;
        }
        if (readsOf(b, sd).free()) {
          distribute(a, {Op::Mul, b, false});
          return;
        }
        break;
      case Op::Div:  // integer division does not distribute over a sum
        if (isFloating(e->type) && readsOf(b, sd).free()) {
          distribute(a, {Op::Div, b, false});
          return;
        }
        break;
      default:
        break;
    }
  }
  out.push_back({e, negative, {}});
}

/// `e` with every access to dimension `sd` moved by `by` planes, and the iterator of `sd` with
/// them (`k` becomes `k + by`: a term evaluated while another plane is streamed in still sees
/// its output's iterator).
ExprPtr shifted(const ExprPtr& e, int sd, int64_t by) {
  if (by == 0) return e;
  if (e->kind == ExprKind::IterRef && e->index == sd)
    return binary(by > 0 ? Op::Add : Op::Sub, e, intLit(std::abs(by), e->loc), e->loc);
  if (e->kind == ExprKind::ArrayRef) {
    auto c = std::make_shared<Expr>(*e);
    for (Subscript& s : c->subs)
      if (!s.fixed() && s.iter == sd) s.offset += by;
    return c;
  }
  if (e->args.empty()) return e;
  auto c = std::make_shared<Expr>(*e);
  for (ExprPtr& a : c->args) a = shifted(a, sd, by);
  return c;
}

/// An access as messages show it: `a[k-1][j][i]`, or `r` (a per-point local scalar).
std::string accessText(const Expr& x, const std::vector<std::string>& names) {
  const std::string text = toString(std::make_shared<Expr>(x), names);
  return x.kind == ExprKind::ScalarRef ? fmt::format("`{}`, a per-point local scalar", text)
                                       : fmt::format("`{}`", text);
}

/// A term as messages show it: its text, cut after 60 characters.
std::string brief(const ExprPtr& e, const std::vector<std::string>& names) {
  std::string t = toString(e, names);
  return t.size() <= 60 ? t : t.substr(0, 57) + "...";
}

/// The distinct accesses of the streamed arrays in `e` (array and every subscript).
void streamedAccesses(const ExprPtr& e, int sd, std::set<std::string>& out,
                      const std::vector<std::string>& names) {
  visitExpr(e, [&](const ExprPtr& x) {
    if (x->kind == ExprKind::ArrayRef && planeOf(*x, sd)) out.insert(toString(x, names));
  });
}

}  // namespace

Retiming retime(const Program& prog, const CallInst& call, const Stmt& stmt, int streamDim) {
  (void)call;
  Retiming r;
  r.streamDim = streamDim;
  const std::vector<std::string> names = prog.iteratorNames();
  const std::string k = names.at(static_cast<size_t>(streamDim));
  const int64_t lhsPlane = planeOf(*stmt.lhs, streamDim).value_or(0);
  r.lhsPlane = lhsPlane;
  r.writesLocalScalar = stmt.lhsIsScalar();
  auto add = [](ExprPtr sum, const ExprPtr& x, bool negative) {
    if (!sum) return negative ? unary(Op::Neg, x, x->loc) : x;
    return binary(negative ? Op::Sub : Op::Add, sum, x, x->loc);
  };
  auto readsOwnArray = [&](const ExprPtr& e) {  // the array or local scalar it writes
    bool own = false;
    visitExpr(e, [&](const ExprPtr& x) {
      own = own ||
            (stmt.lhsIsScalar() ? isLocalScalarRef(*x) && x->index == stmt.lhs->index
                                : x->kind == ExprKind::ArrayRef && x->array == stmt.lhs->array);
    });
    return own;
  };
  std::vector<Term> terms;
  split(stmt.rhs, false, streamDim, terms);
  std::map<int64_t, std::vector<Term>> byPlane;
  for (const Term& t : terms) {
    const ExprPtr whole = t.expr();
    Reads reads = readsOf(whole, streamDim);
    const std::string term = brief(whole, names);
    if (readsOwnArray(whole)) {
      // Read at the output's own point (language.md 5.8): evaluated there, from memory.
      const ExprPtr scaled = t.scaled(shifted(t.core, streamDim, -lhsPlane));
      r.atOutput = add(r.atOutput, scaled, t.negative);
      ++r.atOutputTerms;
      continue;
    }
    if (reads.planes.size() > 1) {
      auto first = reads.planes.begin(), second = std::next(first);
      r.whyNot = fmt::format(
          "the term `{}` reads planes {} ({}) and {} ({}) of the streamed dimension: it "
          "cannot be homogenised (every access of a term must read one plane)",
          term, planeText(k, first->first), accessText(*first->second, names),
          planeText(k, second->first), accessText(*second->second, names));
      r.where = second->second->loc;
      return r;
    }
    const int64_t plane = reads.planes.empty() ? lhsPlane : reads.planes.begin()->first;
    byPlane[plane - lhsPlane].push_back(t);
  }
  if (byPlane.empty()) {
    // Every term reads the array the statement writes: one empty part keeps the sweep's shape
    // (an accumulator that starts from zero).
    RetimedPart none;
    none.sum = isFloating(stmt.rhs->type) ? floatLit(0.0, stmt.rhs->type, stmt.rhs->loc)
                                          : intLit(0, stmt.rhs->loc);
    r.parts.push_back(none);
  }
  std::set<std::string> before, after;
  streamedAccesses(stmt.rhs, streamDim, before, names);
  for (auto& [offset, ts] : byPlane) {
    RetimedPart part;
    part.offset = offset;
    part.terms = static_cast<int>(ts.size());
    // Terms that share their scales summed first, in order of first appearance.
    std::vector<std::string> order;
    std::map<std::string, std::vector<const Term*>> byKey;
    for (const Term& t : ts) {
      const std::string key = t.key(names);
      if (!byKey.count(key)) order.push_back(key);
      byKey[key].push_back(&t);
    }
    for (const std::string& key : order) {
      const std::vector<const Term*>& group = byKey[key];
      ExprPtr x;
      for (const Term* t : group)
        x = add(x, shifted(t->core, streamDim, -offset - lhsPlane), t->negative);
      part.sum = add(part.sum, group.front()->scaled(x), false);
    }
    streamedAccesses(part.sum, streamDim, after, names);
    r.parts.push_back(part);
  }
  if (r.atOutput) streamedAccesses(r.atOutput, streamDim, after, names);
  r.ok = true;
  r.accumulators = r.parts.back().offset - r.parts.front().offset + 1;
  r.readsBefore = static_cast<int>(before.size());
  r.readsAfter = static_cast<int>(after.size());
  return r;
}

ExprPtr planeSum(const Retiming& r, int64_t lhsPlane) {
  ExprPtr sum;
  for (const RetimedPart& p : r.parts) {
    ExprPtr x = shifted(p.sum, r.streamDim, p.offset + lhsPlane);
    sum = sum ? binary(Op::Add, sum, x, x->loc) : x;
  }
  if (r.atOutput) {
    ExprPtr x = shifted(r.atOutput, r.streamDim, lhsPlane);
    sum = binary(Op::Add, sum, x, x->loc);
  }
  return sum;
}

ExprPtr retimedAt(const RetimedPart& p, int streamDim, int64_t plane) {
  return shifted(p.sum, streamDim, plane);
}

ExprPtr atOutputAt(const Retiming& r, int64_t plane) {
  return shifted(r.atOutput, r.streamDim, plane);
}

ExprPtr planeReads(const Retiming& r) {
  ExprPtr sum;
  for (const RetimedPart& p : r.parts) sum = sum ? binary(Op::Add, sum, p.sum, p.sum->loc) : p.sum;
  return sum;
}

std::string describeRetiming(const Program& prog, const Retiming& r) {
  const std::vector<std::string> names = prog.iteratorNames();
  if (!r.ok) return "not retimed: " + r.whyNot;
  const std::string k = names.at(static_cast<size_t>(r.streamDim));
  std::string out = fmt::format(
      "retimed along {}: {} part{}, {} accumulator{}, {} distinct plane reads per point -> {}", k,
      r.parts.size(), r.parts.size() == 1 ? "" : "s", r.accumulators,
      r.accumulators == 1 ? "" : "s", r.readsBefore, r.readsAfter);
  for (const RetimedPart& p : r.parts)
    out += fmt::format(
        "\n  plane {} ({} term{}; the plane streamed in adds them to the output {}): {}",
        planeText(k, p.offset), p.terms, p.terms == 1 ? "" : "s",
        p.offset == 0
            ? std::string("on it")
            : fmt::format("{} plane{} {}", std::abs(p.offset), std::abs(p.offset) == 1 ? "" : "s",
                          p.offset < 0 ? "ahead" : "behind"),
        toString(p.sum, names));
  if (r.atOutput)
    out += fmt::format(
        "\n  at the output ({} term{} reading the {} it writes, from memory when the output "
        "is complete): {}",
        r.atOutputTerms, r.atOutputTerms == 1 ? "" : "s",
        r.writesLocalScalar ? "local scalar" : "array", toString(r.atOutput, names));
  return out;
}

std::string whyFusedKernelsCannotRetime(const Stmt& st, const Retiming& r, SourceLoc& at) {
  const std::string only =
      "which only the per-statement kernels of stream and global-stream retime; the fused "
      "streamed kernels (time_tile, fuse_statements) keep it in a register";
  if (st.lhsIsScalar()) {
    at = st.lhs->loc;
    return fmt::format("it writes the per-point local scalar '{}', {}", st.lhs->name, only);
  }
  std::string why;
  visitExpr(st.rhs, [&](const ExprPtr& x) {
    if (!why.empty()) return;
    if (isLocalScalarRef(*x))
      why = fmt::format("it reads the per-point local scalar '{}', {}", x->name, only);
    else if (r.atOutput && x->kind == ExprKind::ArrayRef && x->array == st.lhs->array)
      why = fmt::format(
          "it reads '{}', the array it writes, which only the per-statement kernels of stream "
          "and global-stream evaluate at the output; the fused streamed kernels (time_tile, "
          "fuse_statements) accumulate their stages from the rings",
          x->name);
    if (!why.empty()) at = x->loc;
  });
  return why;
}

}  // namespace tessel
