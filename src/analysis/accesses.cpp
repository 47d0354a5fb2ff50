// Accesses: the one walk over a statement's references (see accesses.h).
#include "analysis/accesses.h"

#include <algorithm>

namespace tessel {

Reference Reference::of(const Expr& e, bool lhs) {
  Reference r;
  r.scalar = e.kind == ExprKind::ScalarRef;
  if (r.scalar) {
    r.index = e.index;
  } else {
    r.array = e.array;
    r.subs = e.subs;
  }
  r.lhs = lhs;
  return r;
}

std::optional<int64_t> Reference::along(int iter) const {
  if (scalar) return 0;
  for (const Subscript& s : subs)
    if (!s.fixed() && s.iter == iter) return s.offset;
  return std::nullopt;
}

int64_t Reference::offset(size_t p) const { return subs.at(p).fixed() ? 0 : subs[p].offset; }

bool Reference::fixedPlane() const {
  return std::any_of(subs.begin(), subs.end(), [](const Subscript& s) { return s.fixed(); });
}

bool Reference::offCentre(int except) const {
  return std::any_of(subs.begin(), subs.end(), [&](const Subscript& s) {
    return !s.fixed() && s.iter != except && s.offset != 0;
  });
}

StmtAccesses stmtAccesses(const Stmt& st) {
  StmtAccesses a;
  a.write = Reference::of(*st.lhs, true);
  visitExpr(st.rhs, [&](const ExprPtr& e) {
    if (e->kind == ExprKind::ArrayRef ||
        (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Local))
      a.reads.push_back(Reference::of(*e));
  });
  if (st.op != AssignOp::Set) a.reads.push_back(a.write);
  return a;
}

}  // namespace tessel
