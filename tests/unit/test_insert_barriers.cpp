// Pass insert-barriers (transforms/insert_barriers.h) on small kernels built with the IR's
// factories: where it places barriers, where it must not, loops, and idempotence.
#include <gtest/gtest.h>

#include <chrono>

#include "ir/loop_ir_verify.h"
#include "transforms/insert_barriers.h"

using namespace tessel;
using namespace tessel::lir;

namespace {

ExprPtr iv(const std::string& n) { return var(n, ScalarType::Int); }
ExprPtr tid() { return intrinsic(Intrinsic::LocalId, 0); }
ExprPtr ld(const std::string& buf, ExprPtr at) {
  return load(buf, std::move(at), ScalarType::Double);
}

/// A cooperative loop (its bounds differ between threads) that writes shared array `s`.
StmtPtr cooperativeLoad(const std::string& s) {
  return forStep("e", tid(), intLit(63), intLit(32), {store(s, iv("e"), ld("in", iv("e")))});
}
/// A guarded compute that reads `s` around the thread's point and writes `out`.
StmtPtr compute(const std::string& s, const std::string& out = "out") {
  return ifThen(
      binary(Op::Lt, iv("i"), iv("n")),
      {store(out, iv("i"), binary(Op::Add, ld(s, iv("i")), ld(s, indexAddConst(iv("i"), 1))))});
}

Function kernel(std::vector<StmtPtr> body, std::vector<std::string> shared) {
  Function f;
  f.name = "k";
  f.linkage = Linkage::Kernel;
  f.params = {Param{"in", CType::Double, true}, Param{"out", CType::Double, true},
              Param{"n", CType::Int64, false}};
  for (auto& s : shared) f.shared.push_back(sharedArray(CType::Double, s, 64));
  f.body = block(std::move(body));
  return f;
}

/// The statements' shape: `|` a barrier, W<name> a store, d a declaration, for(...) / if(...) /
/// {...} their bodies; comments left out.
std::string shape(const std::vector<StmtPtr>& body) {
  std::string out;
  for (auto& s : body) {
    std::string x;
    switch (s->kind) {
      case StmtKind::Barrier:
        x = "|";
        break;
      case StmtKind::Store:
        x = "W" + s->name;
        break;
      case StmtKind::LocalDecl:
      case StmtKind::Assign:
        x = "d";
        break;
      case StmtKind::For:
        x = "for(" + shape(s->body) + ")";
        break;
      case StmtKind::If:
        x = "if(" + shape(s->body) + ")";
        break;
      case StmtKind::Block:
        x = "{" + shape(s->body) + "}";
        break;
      case StmtKind::Comment:
        continue;
      default:
        x = "?";
    }
    out += (out.empty() ? "" : " ") + x;
  }
  return out;
}
std::string shape(const Function& f) { return shape(f.body->body); }

TEST(InsertBarriers, ReadAfterCooperativeWrite) {
  // The shared family: the tile loaded by the block, then each thread's point. The barrier
  // goes right after the loads (as early as is correct): the point's coordinates are computed
  // after it, so they need not live across it.
  Function k =
      kernel({cooperativeLoad("s"), localDecl(CType::Int64, "i", tid()), compute("s")}, {"s"});
  Function b = transforms::insertBarriers(k);
  EXPECT_EQ(shape(b), "for(Ws) | d if(Wout)");
  EXPECT_TRUE(verifyKernel(b).empty());
}

TEST(InsertBarriers, NoBarrierBetweenPhasesThatShareNoArray) {
  // Two stages: the second reads only what was loaded before the first barrier.
  Function k =
      kernel({cooperativeLoad("a"), localDecl(CType::Int64, "i", tid()),
              ifThen(boolLit(true), {store("b", iv("i"), ld("a", iv("i")))}),
              ifThen(boolLit(true), {store("c", iv("i"), ld("a", iv("i")))}), compute("b")},
             {"a", "b", "c"});
  // a's loads, then a barrier (before the first read of a); b and c are written (no read of
  // either before), so no barrier between the stages; a barrier before b is read.
  EXPECT_EQ(shape(transforms::insertBarriers(k)), "for(Wa) | d if(Wb) if(Wc) | if(Wout)");
}

TEST(InsertBarriers, WriteAfterReadAcrossLoopIterations) {
  // The stream family: planes before the sweep, then per plane the leading plane's store, the
  // compute and the rotation. The store of plane k+1 must wait for the reads of plane k.
  StmtPtr sweep =
      forLoop("k", iv("first"), iv("last"), LoopKind::Serial,
              {store("s", tid(), ld("in", iv("k"))), compute("s"), assign("r", ld("in", iv("k")))});
  Function k = kernel({localDecl(CType::Int64, "i", tid()), cooperativeLoad("s"), sweep}, {"s"});
  Function b = transforms::insertBarriers(k);
  EXPECT_EQ(shape(b), "d for(Ws) for(| Ws | if(Wout) d)");
  EXPECT_TRUE(verifyKernel(b).empty());
}

TEST(InsertBarriers, AFreshLoadNeedsNoBarrierBeforeIt) {
  // Stream + time_tile: per plane the input ring's newest plane, a stage that reads it and
  // writes its own ring, a stage that reads that ring and the input ring. Taken whole, the load
  // of plane q+1 writes the array the last stage of plane q read: a barrier at the top.
  auto sweep = [](StmtPtr load) {
    return forLoop(
        "q", iv("first"), iv("last"), LoopKind::Serial,
        {load, ifThen(boolLit(true), {store("r", tid(), ld("in_ring", tid()))}),
         ifThen(boolLit(true),
                {store("out", tid(), binary(Op::Add, ld("r", tid()), ld("in_ring", tid())))})});
  };
  Function plain = kernel({sweep(block({cooperativeLoad("in_ring")}))}, {"in_ring", "r"});
  EXPECT_EQ(shape(transforms::insertBarriers(plain)), "for(| {for(Win_ring)} | if(Wr) | if(Wout))");
  // The builder's word that the load goes to a slot no thread reads any more (the ring holds a
  // plane more than its readers span): its writes race with nothing before it, and the barrier
  // at the top goes. The barrier after it stays: the first stage reads what it wrote.
  Function fresh = kernel({sweep(freshBlock({cooperativeLoad("in_ring")}))}, {"in_ring", "r"});
  Function b = transforms::insertBarriers(fresh);
  EXPECT_EQ(shape(b), "for({for(Win_ring)} | if(Wr) | if(Wout))");
  EXPECT_TRUE(verifyKernel(b).empty());
  // Its reads still count: a fresh block that reads what was written since the last barrier
  // waits for it.
  Function reads =
      kernel({cooperativeLoad("a"),
              freshBlock({forStep("e", tid(), intLit(63), intLit(32),
                                  {store("b", iv("e"), ld("a", indexAddConst(iv("e"), 1)))})})},
             {"a", "b"});
  EXPECT_EQ(shape(transforms::insertBarriers(reads)), "for(Wa) | {for(Wb)}");
}

TEST(InsertBarriers, NeverInsideControlThatDiffersBetweenThreads) {
  // A loop whose bounds depend on the thread writes and reads s: no barrier can stand inside;
  // the barrier goes before it (it reads what the load wrote).
  StmtPtr varying = forStep(
      "e", tid(), intLit(63), intLit(32),
      {store("s", iv("e"), binary(Op::Add, ld("s", iv("e")), floatLit(1.0, ScalarType::Double)))});
  Function k = kernel({cooperativeLoad("s"), varying}, {"s"});
  Function b = transforms::insertBarriers(k);
  EXPECT_EQ(shape(b), "for(Ws) | for(Ws)");
  EXPECT_TRUE(verifyKernel(b).empty());
}

TEST(InsertBarriers, InsideUniformConditions) {
  // A condition the same for every thread (a parameter) may hold a barrier.
  StmtPtr cond = ifThen(binary(Op::Gt, iv("n"), intLit(4)), {cooperativeLoad("s"), compute("s")});
  Function b =
      transforms::insertBarriers(kernel({localDecl(CType::Int64, "i", tid()), cond}, {"s"}));
  EXPECT_EQ(shape(b), "d if(for(Ws) | if(Wout))");
  EXPECT_TRUE(verifyKernel(b).empty());
}

// Each level of nesting asked whether its children need a barrier inside and then entered them
// again: the work doubled per level, and a stream + time_tile kernel of a small random program
// (seed 49, program 202) took minutes to compile. The answer is memoised per statement: 28
// uniform conditions deep (2^28 entries before) place the barrier at once.
TEST(InsertBarriers, DeepNestingTakesLinearTime) {
  StmtPtr inner = ifThen(binary(Op::Gt, iv("n"), intLit(4)), {cooperativeLoad("s"), compute("s")});
  std::string want = "if(for(Ws) | if(Wout))";
  for (int level = 0; level < 27; ++level) {
    inner = ifThen(binary(Op::Gt, iv("n"), intLit(level)), {inner});
    want = "if(" + want + ")";
  }
  const auto start = std::chrono::steady_clock::now();
  Function b =
      transforms::insertBarriers(kernel({localDecl(CType::Int64, "i", tid()), inner}, {"s"}));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(shape(b), "d " + want);
  EXPECT_LT(seconds, 2.0);
}

TEST(InsertBarriers, ABlockWithoutInnerConflictStaysWhole) {
  // A stage's scope (declarations, then its store): the barrier goes before the block, so that
  // its locals do not live across a barrier.
  StmtPtr stage =
      block({localDecl(CType::Int64, "i", tid()), store("t", iv("i"), ld("s", iv("i")))});
  Function b = transforms::insertBarriers(kernel({cooperativeLoad("s"), stage}, {"s", "t"}));
  EXPECT_EQ(shape(b), "for(Ws) | {d Wt}");
  // A block that needs one inside gets it inside.
  StmtPtr both = block({cooperativeLoad("s"), localDecl(CType::Int64, "i", tid()), compute("s")});
  EXPECT_EQ(shape(transforms::insertBarriers(kernel({both}, {"s"}))), "{for(Ws) | d if(Wout)}");
}

TEST(InsertBarriers, WriteAfterWriteUnlessOnePhase) {
  // Previous values loaded, then a stage overwrites some of them from other threads: ordered.
  StmtPtr stage =
      forStep("i", tid(), intLit(31), intLit(32), {store("s", iv("i"), ld("in", iv("i")))});
  Function k = kernel(
      {cooperativeLoad("s"), stage, localDecl(CType::Int64, "i", tid()), compute("s")}, {"s"});
  EXPECT_EQ(shape(transforms::insertBarriers(k)), "for(Ws) | for(Ws) | d if(Wout)");
  // The builder's word that they are disjoint (a thread's own point, then the halo): one phase.
  StmtPtr own = store("s", tid(), ld("in", tid()));
  Function p = kernel(
      {phaseBlock({own, cooperativeLoad("s")}), localDecl(CType::Int64, "i", tid()), compute("s")},
      {"s"});
  EXPECT_EQ(shape(transforms::insertBarriers(p)), "{Ws for(Ws)} | d if(Wout)");
}

TEST(InsertBarriers, IdempotentAndKeepsKernelsWithoutSharedMemory) {
  Function k =
      kernel({cooperativeLoad("s"), localDecl(CType::Int64, "i", tid()), compute("s")}, {"s"});
  Function once = transforms::insertBarriers(k);
  EXPECT_EQ(shape(transforms::insertBarriers(once)), shape(once));
  Function plain = kernel({localDecl(CType::Int64, "i", tid()), compute("in")}, {});
  EXPECT_EQ(transforms::insertBarriers(plain).body, plain.body);  // the very same tree
  // Host functions are not kernels: unchanged.
  Function host = k;
  host.linkage = Linkage::Internal;
  EXPECT_EQ(transforms::insertBarriers(host).body, k.body);
}

}  // namespace
