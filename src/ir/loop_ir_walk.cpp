#include "ir/loop_ir_walk.h"

namespace tessel::lir {

namespace {

/// The expression fields of a statement, in a fixed order (for visitors and mutators alike).
template <typename S, typename F>
void forEachExprField(S& s, F&& f) {
  f(s.lo);
  f(s.hi);
  f(s.step);
  f(s.index);
  f(s.value);
  for (auto& a : s.args) f(a);
  for (auto& g : s.grid) f(g);
  for (auto& b : s.blockShape) f(b);
}

}  // namespace

void StmtVisitor::visit(const StmtPtr& s) {
  switch (s->kind) {
    case StmtKind::Block:
      visitBlock(*s);
      return;
    case StmtKind::For:
      visitFor(*s);
      return;
    case StmtKind::If:
      visitIf(*s);
      return;
    default:
      visitLeaf(*s);
      return;
  }
}

void StmtVisitor::visitAll(const std::vector<StmtPtr>& body) {
  for (auto& s : body) visit(s);
}

void StmtVisitor::visitBlock(const Stmt& s) { visitAll(s.body); }

void StmtVisitor::visitFor(const Stmt& s) {
  forEachExprField(s, [&](const ExprPtr& e) {
    if (e) visitExpr(e);
  });
  visitAll(s.body);
}

void StmtVisitor::visitIf(const Stmt& s) {
  if (s.value) visitExpr(s.value);
  visitAll(s.body);
  visitAll(s.orElse);
}

void StmtVisitor::visitLeaf(const Stmt& s) {
  forEachExprField(s, [&](const ExprPtr& e) {
    if (e) visitExpr(e);
  });
}

void StmtVisitor::visitExpr(const ExprPtr&) {}

StmtPtr StmtMutator::mutate(const StmtPtr& s) {
  switch (s->kind) {
    case StmtKind::Block:
      return mutateBlock(s);
    case StmtKind::For:
      return mutateFor(s);
    case StmtKind::If:
      return mutateIf(s);
    default:
      return mutateLeaf(s);
  }
}

std::vector<StmtPtr> StmtMutator::mutateAll(const std::vector<StmtPtr>& body, bool& changed) {
  std::vector<StmtPtr> out;
  out.reserve(body.size());
  for (auto& s : body) {
    out.push_back(mutate(s));
    changed = changed || out.back() != s;
  }
  return out;
}

std::shared_ptr<Stmt> StmtMutator::withMutatedExprs(const Stmt& s) {
  auto copy = std::make_shared<Stmt>(s);
  bool changed = false;
  forEachExprField(*copy, [&](ExprPtr& e) {
    if (!e) return;
    ExprPtr m = mutateExpr(e);
    changed = changed || m != e;
    e = std::move(m);
  });
  return changed ? copy : nullptr;
}

StmtPtr StmtMutator::mutateBlock(const StmtPtr& s) {
  bool changed = false;
  auto body = mutateAll(s->body, changed);
  if (!changed) return s;
  auto copy = std::make_shared<Stmt>(*s);
  copy->body = std::move(body);
  return copy;
}

StmtPtr StmtMutator::mutateFor(const StmtPtr& s) {
  auto copy = withMutatedExprs(*s);
  bool changed = copy != nullptr;
  auto body = mutateAll(s->body, changed);
  if (!changed) return s;
  if (!copy) copy = std::make_shared<Stmt>(*s);
  copy->body = std::move(body);
  return copy;
}

StmtPtr StmtMutator::mutateIf(const StmtPtr& s) {
  auto copy = withMutatedExprs(*s);
  bool changed = copy != nullptr;
  auto then = mutateAll(s->body, changed);
  auto orElse = mutateAll(s->orElse, changed);
  if (!changed) return s;
  if (!copy) copy = std::make_shared<Stmt>(*s);
  copy->body = std::move(then);
  copy->orElse = std::move(orElse);
  return copy;
}

StmtPtr StmtMutator::mutateLeaf(const StmtPtr& s) {
  auto copy = withMutatedExprs(*s);
  return copy ? StmtPtr(copy) : s;
}

ExprPtr StmtMutator::mutateExpr(const ExprPtr& e) { return e; }

namespace {

class Uses : public StmtVisitor {
 public:
  std::set<std::string> names;

 protected:
  void visitExpr(const ExprPtr& e) override {
    if (!e) return;
    tessel::visitExpr(e, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::Var || x->kind == ExprKind::Load) names.insert(x->name);
    });
  }
  void visitLeaf(const Stmt& s) override {
    if (s.kind == StmtKind::Assign || s.kind == StmtKind::Store) names.insert(s.name);
    StmtVisitor::visitLeaf(s);
  }
};

}  // namespace

std::set<std::string> namesUsed(const std::vector<StmtPtr>& body) {
  Uses u;
  u.visitAll(body);
  return u.names;
}

std::set<std::string> namesUsed(const StmtPtr& s) {
  Uses u;
  u.visit(s);
  return u.names;
}

namespace {

/// The names a body declares: locals and loop variables.
class Declared : public StmtVisitor {
 public:
  std::set<std::string> names;

 protected:
  void visitLeaf(const Stmt& s) override {
    if (s.kind == StmtKind::LocalDecl) names.insert(s.name);
    StmtVisitor::visitLeaf(s);
  }
  void visitFor(const Stmt& s) override {
    names.insert(s.name);
    StmtVisitor::visitFor(s);
  }
};

}  // namespace

std::set<std::string> namesTaken(const Function& f) {
  std::set<std::string> out;
  for (const Param& p : f.params) out.insert(p.name);
  for (const SharedArray& a : f.shared) out.insert(a.name);
  if (!f.body) return out;
  Declared d;
  d.visit(f.body);
  out.merge(d.names);
  out.merge(namesUsed(f.body));
  return out;
}

}  // namespace tessel::lir
