// Pass work-item-loops (transforms/work_item_loops.h) on a small kernel built with the IR's
// factories: a value that lives across a barrier is one element per thread, unless it is a
// uniform constant that opens a phase (the same for every thread of the block: a retimed
// kernel's ring slot, a block's origin), which is computed once per block before the phase's
// thread loops.
#include <gtest/gtest.h>

#include <set>

#include "transforms/work_item_loops.h"

using namespace tessel;
using namespace tessel::lir;

namespace {

ExprPtr iv(const std::string& n) { return var(n, ScalarType::Int); }
ExprPtr tid() { return intrinsic(Intrinsic::LocalId, 0); }

void allocs(const std::vector<StmtPtr>& body, std::set<std::string>& out) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::Alloc) out.insert(s->name);
    allocs(s->body, out);
    allocs(s->orElse, out);
  }
}

/// The first loop over `var` anywhere in `body`.
StmtPtr loopOver(const std::vector<StmtPtr>& body, const std::string& var) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::For && s->name == var) return s;
    if (StmtPtr in = loopOver(s->body, var)) return in;
  }
  return nullptr;
}

}  // namespace

TEST(WorkItemLoops, AUniformConstantOpeningAPhaseIsComputedOncePerBlock) {
  // for k: { const slot = k % 2 * 32; const mine = tid + k; s[slot + tid] = in[tid];
  //          barrier; out[tid] = s[slot + (tid + 1) % 32] + mine; barrier }
  ExprPtr slot = iv("slot"), mine = iv("mine");
  std::vector<StmtPtr> sweep = {
      localDecl(CType::Int64, "slot", indexMul(binary(Op::Mod, iv("k"), intLit(2)), intLit(32))),
      localDecl(CType::Int64, "mine", indexAdd(tid(), iv("k"))),
      store("s", indexAdd(slot, tid()), load("in", tid(), ScalarType::Double)),
      barrier(),
      store("out", tid(),
            binary(Op::Add,
                   load("s", indexAdd(slot, binary(Op::Mod, indexAddConst(tid(), 1), intLit(32))),
                        ScalarType::Double),
                   binary(Op::Mul, mine, intLit(1)))),
      barrier()};
  Function k;
  k.name = "k";
  k.linkage = Linkage::Kernel;
  k.params = {Param{"in", CType::Double, true}, Param{"out", CType::Double, true},
              Param{"n", CType::Int64, false}};
  k.shared.push_back(sharedArray(CType::Double, "s", 64));
  k.body = block({forLoop("k", intLit(0), iv("n"), LoopKind::Serial, sweep)});
  const Function cpu = transforms::workItemLoops(k);
  std::set<std::string> buffers;
  allocs(cpu.body->body, buffers);
  EXPECT_EQ(buffers.count("slot"), 0u);  // uniform: a scalar
  EXPECT_EQ(buffers.count("mine"), 1u);  // per thread: one element each
  // The slot is declared in the sweep's body before the first loop over the block's threads.
  StmtPtr sweepLoop = loopOver(cpu.body->body, "k");
  ASSERT_TRUE(sweepLoop);
  ASSERT_FALSE(sweepLoop->body.empty());
  const StmtPtr& first = sweepLoop->body.front();
  EXPECT_EQ(first->kind, StmtKind::LocalDecl);
  EXPECT_EQ(first->name, "slot");
}
