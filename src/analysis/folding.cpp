// Storage and computation folding (folding.h).
#include "analysis/folding.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

namespace tessel {

namespace {

bool foldableOp(Op op) { return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div; }

bool floating(ScalarType t) { return t == ScalarType::Double || t == ScalarType::Float; }

using Key = std::tuple<ArrayId, ArrayId, Op>;

/// The key of `e` if it is `A[s] op B[s]` of two different arrays that could be folded.
bool pairKey(const Program& prog, const CallInst& call, const Expr& e, Key& key) {
  if (e.kind != ExprKind::Binary || !foldableOp(e.op)) return false;
  const Expr& a = *e.args[0];
  const Expr& b = *e.args[1];
  if (a.kind != ExprKind::ArrayRef || b.kind != ExprKind::ArrayRef) return false;
  if (a.array == b.array || a.subs != b.subs || a.type != b.type || !floating(a.type)) return false;
  // The same extents (as written: parameters and literals), so one index addresses both.
  const auto& ea = prog.extents(call, a.array);
  const auto& eb = prog.extents(call, b.array);
  if (ea.size() != eb.size()) return false;
  for (size_t d = 0; d < ea.size(); ++d)
    if (toString(ea[d], {}) != toString(eb[d], {})) return false;
  key = {a.array, b.array, e.op};
  return true;
}

ExprPtr rewrite(const ExprPtr& e, const std::map<Key, int>& chosen, const Program& prog,
                const CallInst& call) {
  Key key;
  if (pairKey(prog, call, *e, key) && chosen.count(key)) return e->args[0];
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) a = rewrite(a, chosen, prog, call);
  return copy;
}

}  // namespace

Folding foldStatement(const Program& prog, const CallInst& call, const Stmt& st) {
  Folding out;
  out.stmt = st;
  std::map<ArrayId, int> refs;  // references per array
  std::map<Key, int> pairs;     // `A[s] op B[s]` per key
  std::map<Key, std::string> text;
  visitExpr(st.rhs, [&](const ExprPtr& e) {
    if (e->kind == ExprKind::ArrayRef) ++refs[e->array];
    Key key;
    if (pairKey(prog, call, *e, key)) {
      ++pairs[key];
      text[key] = fmt::format("{} {} {}", e->args[0]->name, opSpelling(e->op), e->args[1]->name);
    }
  });
  std::map<Key, int> chosen;
  std::map<ArrayId, bool> taken;
  for (const auto& [key, n] : pairs) {
    const auto& [a, b, op] = key;
    const bool written = !st.lhsIsScalar() && (st.lhs->array == a || st.lhs->array == b);
    if (written || refs[a] != n || refs[b] != n || taken[a] || taken[b]) continue;
    taken[a] = taken[b] = true;
    chosen[key] = n;
    out.folds.push_back({a, b, op, text[key], n});
  }
  if (!chosen.empty()) out.stmt.rhs = rewrite(st.rhs, chosen, prog, call);
  return out;
}

std::string describeFolds(const Folding& f) {
  std::string out;
  for (const Fold& x : f.folds)
    out += fmt::format("{}{} ({} combination{} per point)", out.empty() ? "" : "; ", x.text, x.uses,
                       x.uses == 1 ? "" : "s");
  return out;
}

}  // namespace tessel
