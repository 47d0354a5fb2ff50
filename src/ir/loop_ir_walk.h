// Walking and rewriting the loop (kernel) IR: a read-only visitor and a copy-on-write mutator,
// after Halide's IRVisitor and IRMutator. One virtual function per statement kind; the defaults
// walk (or rebuild) the children, so a pass overrides only the kinds it cares about. The
// mutator returns the very same node when nothing below it changed, so an unchanged tree is
// shared, not copied, and a pass can tell cheaply whether it did anything (pointer equality).
#pragma once

#include <set>
#include <string>

#include "ir/loop_ir.h"

namespace tessel::lir {

class StmtVisitor {
 public:
  virtual ~StmtVisitor() = default;
  /// Dispatches on s->kind to the visit function of that kind.
  void visit(const StmtPtr& s);
  /// Visits every statement of `body` in order.
  void visitAll(const std::vector<StmtPtr>& body);

 protected:
  // The defaults visit the expressions (through visitExpr) and then the nested statements.
  virtual void visitBlock(const Stmt& s);
  virtual void visitFor(const Stmt& s);
  virtual void visitIf(const Stmt& s);
  /// Every other kind (no nested statements).
  virtual void visitLeaf(const Stmt& s);
  /// Each expression a statement holds (bounds, index, value, arguments, grid), top-level only;
  /// the default does nothing. Use tessel::visitExpr inside to walk an expression.
  virtual void visitExpr(const ExprPtr& e);
};

class StmtMutator {
 public:
  virtual ~StmtMutator() = default;
  /// Dispatches on s->kind; returns s itself when nothing changed.
  StmtPtr mutate(const StmtPtr& s);
  /// Mutates each statement of `body`; sets `changed` when any result differs from its input.
  std::vector<StmtPtr> mutateAll(const std::vector<StmtPtr>& body, bool& changed);

 protected:
  virtual StmtPtr mutateBlock(const StmtPtr& s);
  virtual StmtPtr mutateFor(const StmtPtr& s);
  virtual StmtPtr mutateIf(const StmtPtr& s);
  /// Every other kind: its expressions through mutateExpr.
  virtual StmtPtr mutateLeaf(const StmtPtr& s);
  /// Each expression a statement holds (null ones are passed through); the default returns e.
  virtual ExprPtr mutateExpr(const ExprPtr& e);

 private:
  /// A copy of `s` whose expression fields went through mutateExpr, or null if none changed.
  std::shared_ptr<Stmt> withMutatedExprs(const Stmt& s);
};

/// Rebuilds expression `e` bottom-up with `f` applied to every node after its operands (f
/// returns its argument to keep it); returns e itself when f changed nothing.
/// The names the statements use anywhere: variables and buffers read, variables assigned and
/// buffers stored to (their expressions walked, nested statements included).
std::set<std::string> namesUsed(const std::vector<StmtPtr>& body);
/// The same for one statement.
std::set<std::string> namesUsed(const StmtPtr& s);
/// Every name function `f` has: its parameters and shared arrays, and the locals, loop
/// variables and buffers its body declares or uses (a pass's new names avoid them).
std::set<std::string> namesTaken(const Function& f);

template <typename F>
ExprPtr rewriteExpr(const ExprPtr& e, F&& f) {
  if (!e) return e;
  bool changed = false;
  std::vector<ExprPtr> args;
  args.reserve(e->args.size());
  for (auto& a : e->args) {
    args.push_back(rewriteExpr(a, f));
    changed = changed || args.back() != a;
  }
  ExprPtr self = e;
  if (changed) {
    auto copy = std::make_shared<Expr>(*e);
    copy->args = std::move(args);
    self = copy;
  }
  return f(self);
}

}  // namespace tessel::lir
