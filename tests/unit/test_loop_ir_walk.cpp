// The loop IR's visitor, copy-on-write mutator and kernel verifier (ir/loop_ir_walk.h,
// ir/loop_ir_verify.h), on small kernels built with the IR's factories.
#include <gtest/gtest.h>

#include "ir/loop_ir_verify.h"
#include "ir/loop_ir_walk.h"

using namespace tessel;
using namespace tessel::lir;

namespace {

ExprPtr iv(const std::string& n) { return var(n, ScalarType::Int); }

/// for (k = 0; k <= 9; ++k) { a[k] = b[k] * x; }  if (k0 < 3) { c[0] = 1.0; }
StmtPtr sample() {
  auto loop = forLoop("k", intLit(0), intLit(9), LoopKind::Serial,
                      {store("a", iv("k"),
                             binary(Op::Mul, load("b", iv("k"), ScalarType::Double),
                                    var("x", ScalarType::Double)))});
  auto guard = ifThen(binary(Op::Lt, iv("k0"), intLit(3)),
                      {store("c", intLit(0), floatLit(1.0, ScalarType::Double))});
  return block({loop, guard});
}

class CountStores : public StmtVisitor {
 public:
  int stores = 0, loads = 0;

 protected:
  void visitLeaf(const Stmt& s) override {
    if (s.kind == StmtKind::Store) ++stores;
    StmtVisitor::visitLeaf(s);
  }
  void visitExpr(const ExprPtr& e) override {
    tessel::visitExpr(e, [&](const ExprPtr& x) { loads += x->kind == ExprKind::Load; });
  }
};

/// Renames variable `from` to `to` in every expression.
class Rename : public StmtMutator {
 public:
  Rename(std::string from, std::string to) : from_(std::move(from)), to_(std::move(to)) {}

 protected:
  ExprPtr mutateExpr(const ExprPtr& e) override {
    return rewriteExpr(e, [&](const ExprPtr& x) {
      return x->kind == ExprKind::Var && x->name == from_ ? var(to_, x->type) : x;
    });
  }

 private:
  std::string from_, to_;
};

Function kernel(StmtPtr body, std::vector<SharedArray> shared = {}) {
  Function f;
  f.name = "k";
  f.linkage = Linkage::Kernel;
  f.params = {Param{"a", CType::Double, true}, Param{"n", CType::Int64, false}};
  f.body = block({std::move(body)});
  f.shared = std::move(shared);
  return f;
}

ExprPtr tid() { return intrinsic(Intrinsic::LocalId, 0); }

}  // namespace

TEST(LoopIrWalk, VisitorSeesEveryStatementAndExpression) {
  CountStores c;
  c.visit(sample());
  EXPECT_EQ(c.stores, 2);
  EXPECT_EQ(c.loads, 1);
}

TEST(LoopIrWalk, MutatorReturnsTheSameTreeWhenNothingChanges) {
  StmtPtr s = sample();
  StmtMutator identity;
  EXPECT_EQ(identity.mutate(s), s);
  Rename none("nowhere", "else");
  EXPECT_EQ(none.mutate(s), s);
}

TEST(LoopIrWalk, MutatorRebuildsOnlyThePathToAChange) {
  StmtPtr s = sample();
  Rename r("x", "y");
  StmtPtr out = r.mutate(s);
  ASSERT_NE(out, s);
  // The loop changed (its store reads x); the guard did not and is shared, not copied.
  EXPECT_NE(out->body[0], s->body[0]);
  EXPECT_EQ(out->body[1], s->body[1]);
  const ExprPtr& product = out->body[0]->body[0]->value;
  EXPECT_EQ(product->args[1]->name, "y");
  // The load b[k] did not change: the same expression node.
  EXPECT_EQ(product->args[0], s->body[0]->body[0]->value->args[0]);
  // The input is untouched (nodes are immutable).
  EXPECT_EQ(s->body[0]->body[0]->value->args[1]->name, "x");
}

TEST(LoopIrVerify, GeneratedShapesPass) {
  // A cooperative load loop (bounds from the thread index), then a barrier every thread
  // reaches, then a guarded computation: the shape of a staged kernel.
  std::vector<SharedArray> sh = {sharedArray(CType::Double, "s", 64)};
  auto coop = forStep("e", tid(), intLit(63), intLit(32),
                      {store("s", iv("e"), load("a", iv("e"), ScalarType::Double))});
  auto sweep =
      forLoop("j", intLit(0), iv("n"), LoopKind::Serial,
              {barrier(), ifThen(binary(Op::Lt, tid(), intLit(8)),
                                 {store("a", tid(), load("s", intLit(63), ScalarType::Double))})});
  EXPECT_TRUE(verifyKernel(kernel(block({coop, barrier(), sweep}), sh)).empty());
  // A barrier under a condition every thread of a block evaluates alike is fine too.
  auto uniform = ifThen(binary(Op::Lt, iv("n"), intLit(8)), {barrier()});
  EXPECT_TRUE(verifyKernel(kernel(uniform)).empty());
}

TEST(LoopIrVerify, BarrierUnderAThreadDependentConditionIsReported) {
  // Through a variable: i = local id; if (i < 8) barrier.
  auto body = block({localDecl(CType::Int64, "i", tid()),
                     ifThen(binary(Op::Lt, iv("i"), intLit(8)), {barrier()})});
  auto p = verifyKernel(kernel(body));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("a barrier inside a condition that differs between threads"),
            std::string::npos)
      << p[0];
  // In a cooperative loop.
  auto loop = forStep("e", tid(), intLit(63), intLit(32), {barrier()});
  p = verifyKernel(kernel(loop));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("a loop over 'e' whose bounds differ between threads"), std::string::npos);
}

TEST(LoopIrVerify, UnknownBuffersAndConstantIndicesOutsideASharedArray) {
  std::vector<SharedArray> sh = {sharedArray(CType::Double, "s", 4)};
  auto body = block({store("nowhere", intLit(0), floatLit(1.0, ScalarType::Double)),
                     store("s", intLit(4), floatLit(1.0, ScalarType::Double))});
  auto p = verifyKernel(kernel(body, sh));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_NE(p[0].find("a store to 'nowhere', which the kernel does not have"), std::string::npos);
  EXPECT_NE(p[1].find("shared array 's' at index 4, outside its 4 elements"), std::string::npos);
}

TEST(LoopIrVerify, FunctionsThatAreNoKernelsAreNotChecked) {
  Function f = kernel(ifThen(binary(Op::Lt, tid(), intLit(8)), {barrier()}));
  f.linkage = Linkage::Internal;
  EXPECT_TRUE(verifyKernel(f).empty());
}
