// Pass contract-fma (contract_fma.h).
#include "transforms/contract_fma.h"

#include "ir/loop_ir_walk.h"

namespace tessel::transforms {

namespace {

bool floating(ScalarType t) { return t == ScalarType::Float || t == ScalarType::Double; }

/// A floating product of the same type as `sum`.
bool productOf(const ExprPtr& x, const Expr& sum) {
  return x->kind == ExprKind::Binary && x->op == Op::Mul && x->type == sum.type;
}

ExprPtr fma3(const ExprPtr& a, const ExprPtr& b, const ExprPtr& c) {
  return call("fma", {a, b, c});
}

class Contract : public lir::StmtMutator {
 protected:
  ExprPtr mutateExpr(const ExprPtr& e) override { return contractFma(e); }
};

}  // namespace

ExprPtr contractFma(const ExprPtr& e) {
  if (!e) return e;
  return lir::rewriteExpr(e, [](const ExprPtr& x) -> ExprPtr {
    if (x->kind != ExprKind::Binary || !floating(x->type)) return x;
    if (x->op != Op::Add && x->op != Op::Sub) return x;
    const ExprPtr &l = x->args[0], &r = x->args[1];
    if (productOf(l, *x)) {
      const ExprPtr c = x->op == Op::Add ? r : unary(Op::Neg, r);
      return fma3(l->args[0], l->args[1], c);
    }
    if (productOf(r, *x)) {
      const ExprPtr a = x->op == Op::Add ? r->args[0] : unary(Op::Neg, r->args[0]);
      return fma3(a, r->args[1], l);
    }
    return x;
  });
}

GpuProgram contractFma(const GpuProgram& p, const Program& prog, const ResolvedSchedule& r) {
  GpuProgram out = p;
  for (size_t k = 0; k < p.kernels.size() && k < p.device.functions.size(); ++k) {
    const GpuKernelInfo& info = p.kernels[k];
    if (!r.gridOfCall(prog, info.call).fma) continue;
    lir::Function& f = out.device.functions[k];
    bool changed = false;
    f.body = lir::block(Contract().mutateAll(f.body->body, changed));
    out.kernels[k].fma = changed;
  }
  return out;
}

}  // namespace tessel::transforms
