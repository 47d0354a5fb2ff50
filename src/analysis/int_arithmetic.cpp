// Integer arithmetic in a stencil's statements (int_arithmetic.h).
#include "analysis/int_arithmetic.h"

namespace tessel {

bool computesWithInts(const ExprPtr& e) {
  if (!e) return false;
  bool arithmetic =
      e->kind == ExprKind::Unary || e->kind == ExprKind::Binary || e->kind == ExprKind::Call;
  if (arithmetic && e->type == ScalarType::Int) return true;
  for (const ExprPtr& a : e->args)
    if (computesWithInts(a)) return true;
  return false;
}

const Stmt* intArithmeticIn(const Program& prog, int stencil) {
  for (const CallInst& c : prog.calls) {
    if (c.stencil != stencil) continue;
    for (const Stmt& s : c.stmts)
      if (computesWithInts(s.rhs)) return &s;
  }
  return nullptr;
}

}  // namespace tessel
