// substitute.h: a variable replaced by an expression, the index arithmetic folded.
#include "transforms/substitute.h"

#include "ir/loop_ir_walk.h"

namespace tessel::transforms {

using namespace lir;

namespace {

bool isIntLit(const ExprPtr& e) { return e && e->kind == ExprKind::IntLit; }

class Substitute : public StmtMutator {
 public:
  Substitute(const std::string& name, const ExprPtr& value) : name_(name), value_(value) {}

 protected:
  ExprPtr mutateExpr(const ExprPtr& e) override {
    return rewriteExpr(e, [&](const ExprPtr& x) -> ExprPtr {
      if (x->kind == ExprKind::Var && x->name == name_) return value_;
      if (x->kind != ExprKind::Binary || x->type != ScalarType::Int) return x;
      if (!isIntLit(x->args[0]) && !isIntLit(x->args[1])) return x;
      switch (x->op) {
        case Op::Add:
          return indexAdd(x->args[0], x->args[1]);
        case Op::Sub:
          return indexSub(x->args[0], x->args[1]);
        case Op::Mul:
          return indexMul(x->args[0], x->args[1]);
        default:
          return x;
      }
    });
  }

 private:
  const std::string& name_;
  const ExprPtr& value_;
};

}  // namespace

std::vector<StmtPtr> substituteVar(const std::vector<StmtPtr>& body, const std::string& name,
                                   const ExprPtr& value) {
  Substitute sub(name, value);
  bool changed = false;
  return sub.mutateAll(body, changed);
}

}  // namespace tessel::transforms
