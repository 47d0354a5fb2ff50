// Pass `unroll-loops` (unroll_loops.h).
#include "transforms/unroll_loops.h"

#include <fmt/format.h>

#include <stdexcept>

#include "ir/loop_ir_walk.h"

namespace tessel::transforms {

using namespace lir;

namespace {

bool isIntLit(const ExprPtr& e) { return e && e->kind == ExprKind::IntLit; }

/// Replaces variable `name` by the literal `value` and folds the integer additions,
/// subtractions and multiplications that thereby get a literal operand.
class Substitute : public StmtMutator {
 public:
  Substitute(std::string name, int64_t value) : name_(std::move(name)), value_(value) {}

 protected:
  ExprPtr mutateExpr(const ExprPtr& e) override {
    return rewriteExpr(e, [&](const ExprPtr& x) -> ExprPtr {
      if (x->kind == ExprKind::Var && x->name == name_) return intLit(value_);
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
  std::string name_;
  int64_t value_;
};

class Unroll : public StmtMutator {
 protected:
  StmtPtr mutateFor(const StmtPtr& s) override {
    StmtPtr inner = StmtMutator::mutateFor(s);  // nested loops first
    if (inner->loop != LoopKind::Unrolled) return inner;
    if (!isIntLit(inner->lo) || !isIntLit(inner->hi) || (inner->step && !isIntLit(inner->step)))
      throw std::logic_error("internal error: unrolled loop over '" + inner->name +
                             "' without constant bounds");
    int64_t lo = inner->lo->ival, hi = inner->hi->ival, step = inner->step ? inner->step->ival : 1;
    if (step <= 0 || (hi >= lo && (hi - lo) / step + 1 > kMaxUnrolledTrips))
      throw std::logic_error(fmt::format("internal error: unrolled loop over '{}' of {}..{} by {}",
                                         inner->name, lo, hi, step));
    std::vector<StmtPtr> copies;
    for (int64_t v = lo; v <= hi; v += step) {
      Substitute sub(inner->name, v);
      bool changed = false;
      copies.push_back(comment(fmt::format("{} = {}", inner->name, v)));
      copies.push_back(block(sub.mutateAll(inner->body, changed)));
    }
    return block(std::move(copies));
  }
};

}  // namespace

Function unrollLoops(const Function& f) {
  if (!f.body) return f;
  Function out = f;
  out.body = Unroll().mutate(f.body);
  return out;
}

Module unrollLoops(const Module& m) {
  Module out = m;
  for (Function& f : out.functions) f = unrollLoops(f);
  return out;
}

}  // namespace tessel::transforms
