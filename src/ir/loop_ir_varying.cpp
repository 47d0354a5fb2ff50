#include "ir/loop_ir_varying.h"

#include "ir/loop_ir_walk.h"

namespace tessel::lir {

namespace {

/// One sweep over the body, adding the variables found thread-varying; `grew` says whether it
/// found any new one.
class Sweep : public StmtVisitor {
 public:
  Sweep(std::set<std::string>& names, const VaryingValues& vary) : names_(names), vary_(vary) {}
  bool grew = false;

 protected:
  void visitFor(const Stmt& s) override {
    if (vary_.varyingLoop(s)) mark(s.name);
    StmtVisitor::visitFor(s);
  }
  void visitLeaf(const Stmt& s) override {
    if ((s.kind == StmtKind::LocalDecl || s.kind == StmtKind::Assign) && vary_.varying(s.value))
      mark(s.name);
  }

 private:
  void mark(const std::string& n) { grew = names_.insert(n).second || grew; }
  std::set<std::string>& names_;
  const VaryingValues& vary_;
};

}  // namespace

VaryingValues::VaryingValues(const StmtPtr& body) {
  if (!body) return;
  Sweep sweep(names_, *this);
  do {
    sweep.grew = false;
    sweep.visit(body);
  } while (sweep.grew);
}

bool VaryingValues::varying(const ExprPtr& e) const {
  if (!e) return false;
  bool v = false;
  tessel::visitExpr(e, [&](const ExprPtr& x) {
    if (x->kind == ExprKind::Intrinsic) {
      auto k = static_cast<Intrinsic>(x->ival);
      v = v || k == Intrinsic::LocalId || k == Intrinsic::GlobalId;
    }
    if (x->kind == ExprKind::Var) v = v || names_.count(x->name) > 0;
  });
  return v;
}

bool VaryingValues::varyingLoop(const Stmt& s) const {
  return varying(s.lo) || varying(s.hi) || varying(s.step);
}

}  // namespace tessel::lir
