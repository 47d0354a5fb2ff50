// Storage and computation folding (folding.h).
#include "analysis/folding.h"

#include <fmt/format.h>

#include <map>
#include <set>
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

ExprPtr rewrite(const ExprPtr& e, const std::set<Key>& chosen, const Program& prog,
                const CallInst& call) {
  Key key;
  if (pairKey(prog, call, *e, key) && chosen.count(key)) return e->args[0];
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) a = rewrite(a, chosen, prog, call);
  return copy;
}

/// Per statement: its references per array and its combinations per key.
struct Census {
  std::map<ArrayId, int> refs;
  std::map<Key, int> pairs;
  std::map<Key, std::string> text;
};

Census census(const Program& prog, const CallInst& call, const Stmt& st) {
  Census c;
  visitExpr(st.rhs, [&](const ExprPtr& e) {
    if (e->kind == ExprKind::ArrayRef) ++c.refs[e->array];
    Key key;
    if (pairKey(prog, call, *e, key)) {
      ++c.pairs[key];
      c.text[key] = fmt::format("{} {} {}", e->args[0]->name, opSpelling(e->op), e->args[1]->name);
    }
  });
  return c;
}

bool writes(const Stmt& st, ArrayId a) { return !st.lhsIsScalar() && st.lhs->array == a; }

/// The folds every statement of `items` allows: each pair's arrays referenced only in its
/// combinations and written by none; `global`: global arrays only (a sequence's locals belong to
/// one step).
std::vector<Fold> choose(const Program& prog, const std::vector<FoldItem>& items, bool global) {
  std::map<ArrayId, int> refs;
  std::map<Key, int> pairs;
  std::map<Key, std::string> text;
  std::set<ArrayId> written;
  for (const FoldItem& it : items) {
    Census c = census(prog, *it.call, *it.stmt);
    for (auto& [a, n] : c.refs) refs[a] += n;
    for (auto& [k, n] : c.pairs) pairs[k] += n;
    text.insert(c.text.begin(), c.text.end());
    if (!it.stmt->lhsIsScalar()) written.insert(it.stmt->lhs->array);
  }
  std::vector<Fold> out;
  std::set<ArrayId> taken;
  for (const auto& [key, n] : pairs) {
    const auto& [a, b, op] = key;
    if (global && (a.local || b.local)) continue;
    if (written.count(a) || written.count(b) || refs[a] != n || refs[b] != n || taken.count(a) ||
        taken.count(b))
      continue;
    taken.insert(a);
    taken.insert(b);
    out.push_back({a, b, op, text[key], n});
  }
  return out;
}

std::set<Key> keysOf(const std::vector<Fold>& folds) {
  std::set<Key> keys;
  for (const Fold& f : folds) keys.insert({f.array, f.partner, f.op});
  return keys;
}

}  // namespace

Folding foldStatement(const Program& prog, const CallInst& call, const Stmt& st) {
  Folding out;
  out.stmt = st;
  out.folds = choose(prog, {{&call, &st}}, false);
  if (!out.folds.empty()) out.stmt.rhs = rewrite(st.rhs, keysOf(out.folds), prog, call);
  return out;
}

std::vector<Fold> foldSequence(const Program& prog, const std::vector<FoldItem>& items) {
  return choose(prog, items, true);
}

std::string whyNotSequenceFold(const Program& prog, const std::vector<FoldItem>& items,
                               const Fold& fold) {
  const Key key{fold.array, fold.partner, fold.op};
  for (const FoldItem& it : items) {
    Census c = census(prog, *it.call, *it.stmt);
    const int n = c.pairs.count(key) ? c.pairs.at(key) : 0;
    const size_t k = static_cast<size_t>(it.stmt - it.call->stmts.data());  // s0, s1, ...
    for (ArrayId a : {fold.array, fold.partner}) {
      const std::string name = prog.arrayName(*it.call, a);
      if (writes(*it.stmt, a))
        return fmt::format("statement s{} of '{}' writes '{}'", k, it.call->name, name);
      if (c.refs[a] != n)
        return fmt::format("statement s{} of '{}' reads '{}' otherwise", k, it.call->name, name);
    }
  }
  return "";
}

ExprPtr applyFolds(const Program& prog, const CallInst& call, const ExprPtr& e,
                   const std::vector<Fold>& folds) {
  return folds.empty() ? e : rewrite(e, keysOf(folds), prog, call);
}

std::string describeFolds(const Folding& f) {
  std::string out;
  for (const Fold& x : f.folds)
    out += fmt::format("{}{} ({} combination{} per point)", out.empty() ? "" : "; ", x.text, x.uses,
                       x.uses == 1 ? "" : "s");
  return out;
}

std::string foldTexts(const std::vector<Fold>& folds) {
  std::string out;
  for (const Fold& f : folds) out += (out.empty() ? "" : ", ") + f.text;
  return out;
}

}  // namespace tessel
