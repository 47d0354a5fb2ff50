// Arrays that carry a float math function's value (float_math.h).
#include "analysis/float_math.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace tessel {

namespace {

/// Whether `e` calls a float math function that GPUs do not round correctly.
bool callsInexactFloatMath(const ExprPtr& e) {
  if (!e) return false;
  static constexpr std::array<std::string_view, 6> exact = {"abs", "fabs",  "min",
                                                            "max", "floor", "ceil"};
  if (e->kind == ExprKind::Call && e->type == ScalarType::Float &&
      std::find(exact.begin(), exact.end(), e->name) == exact.end())
    return true;
  // `x ^ y` on floating operands is pow.
  if (e->kind == ExprKind::Binary && e->op == Op::Pow && e->type == ScalarType::Float) return true;
  return std::any_of(e->args.begin(), e->args.end(), callsInexactFloatMath);
}

/// Whether `e` reads a global array `carries` marks.
bool readsCarrier(const ExprPtr& e, const std::vector<bool>& carries) {
  if (!e) return false;
  if (e->kind == ExprKind::ArrayRef && !e->array.local && e->array.index >= 0 &&
      static_cast<size_t>(e->array.index) < carries.size() && carries[e->array.index])
    return true;
  return std::any_of(e->args.begin(), e->args.end(),
                     [&](const ExprPtr& a) { return readsCarrier(a, carries); });
}

}  // namespace

std::vector<bool> floatMathArrays(const Program& prog) {
  std::vector<bool> carries(prog.arrays.size(), false);
  // A call whose statements (or initialised locals) take such a value passes it to every global
  // array it writes (its locals may hold it: counted per call, not per statement); until nothing
  // changes, since a loop feeds later calls back into earlier ones.
  for (bool changed = true; changed;) {
    changed = false;
    for (const CallInst& c : prog.calls) {
      bool tainted = std::any_of(c.inits.begin(), c.inits.end(),
                                 [](const InitLocal& l) { return callsInexactFloatMath(l.value); });
      for (const Stmt& s : c.stmts)
        tainted = tainted || callsInexactFloatMath(s.rhs) || readsCarrier(s.rhs, carries) ||
                  (s.lhs->kind == ExprKind::ArrayRef && readsCarrier(s.lhs, carries) &&
                   s.op != AssignOp::Set);
      if (!tainted) continue;
      for (const Stmt& s : c.stmts)
        if (s.lhs->kind == ExprKind::ArrayRef && !s.lhs->array.local &&
            !carries[s.lhs->array.index]) {
          carries[s.lhs->array.index] = true;
          changed = true;
        }
    }
  }
  return carries;
}

}  // namespace tessel
