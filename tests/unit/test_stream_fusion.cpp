// The streamed plan of a fused sequence (analysis/stream_fusion.h): ring leads, sources, the
// prologue, and the sequences it refuses.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/stream_fusion.h"
#include "unit/sten_test_util.h"

namespace tessel {
namespace {

using test::Compiled;
using test::compileText;

Compiled benchmark(const std::string& name) { return test::compileBenchmark(name); }

// j3d7pt, T = 4, tile 26x26 streamed along k: stage s runs 3 - s planes ahead (s = 0..3); the
// input ring's newest plane is stage 1's lead + 1 = 4. The first output plane p0 needs stage 1
// from plane p0 - 3, which reads the input from p0 - 4; the input ring gets plane q + 4 at step
// q, so the block starts at q = p0 - 8: a prologue of 8 steps.
TEST(StreamFusion, J3d7ptT4LeadsSourcesAndPrologue) {
  Compiled c = benchmark("j3d7pt");
  const Program& p = *c.prog;
  TileAnalysis a = analyzeTile(p, fuseCalls(p, {0, 1}, 4), {{1, 26, 26}, 0, std::nullopt});
  StreamedPlan sp = streamedPlan(p, a);
  ASSERT_TRUE(sp.supported) << sp.whyNot;
  ASSERT_EQ(a.buffers.size(), 4u);
  for (size_t b = 0; b < a.buffers.size(); ++b) {
    int producer = a.buffers[b].producer;
    EXPECT_EQ(sp.bufferLead[b], producer < 0 ? 4 : 3 - producer) << b;
  }
  EXPECT_EQ(sp.prologue, 8);
  // Stage 2 reads 'out' from stage 1's ring; stage 1 reads 'in' from the input ring; stage 3
  // keeps stage 1's 'out' where it does not compute; the last two stages write the results.
  TileValue in{TileValue::Kind::Global, -1, 0}, out{TileValue::Kind::Global, -1, 1};
  if (p.arrays[0].name != "in") std::swap(in, out);
  EXPECT_EQ(streamSource(a, 1, out).producer, 0);
  EXPECT_EQ(streamSource(a, 1, out).kind, StreamSource::Kind::Ring);
  EXPECT_EQ(streamSource(a, 0, in).producer, -1);
  EXPECT_EQ(streamSource(a, 0, in).kind, StreamSource::Kind::Ring);
  EXPECT_EQ(streamSource(a, 2, out).producer, 0);
  EXPECT_EQ(sp.finalWriteOf, (std::vector<int>{-1, -1, out.index, in.index}));
  // Issue 11, no prologue stage computes from ring slots not yet loaded: stage s (lead 3 - s)
  // computes planes p0 - 3 + s .. at step q = plane - lead, so it is needed from step
  // p0 - 6 + 2s; the input ring from step p0 - 8 (plane p0 - 4, read by stage 1 at p0 - 6).
  EXPECT_EQ(sp.stageFrom, (std::vector<int64_t>{-6, -4, -2, 0}));
  for (size_t b = 0; b < a.buffers.size(); ++b)
    EXPECT_EQ(sp.loadFrom[b], a.buffers[b].producer < 0 ? -8 : INT64_MAX) << b;
}

// denoise's run of two calls: diffusivity's stage runs a plane ahead (rician reads g at k+1) and
// reads u at k+1, rician's last stage reads u at k-1: u's input ring spans the four planes its
// readers read with their leads added (newest q + 2, oldest q - 1), not the three of its offsets
// (until 2026-11-26 it held three, and the plan refused: "stage 4 reads 'u' 3 planes behind the
// newest of its ring of 3"), plus the spare plane. heat's Laplacian is a local array: a ring of
// planes like any value a later stage reads (until 2026-11-28 the plan refused it, and the group
// ran per statement).
TEST(StreamFusion, InputRingsSpanTheirReadersLeadsAndLocalArraysRing) {
  Compiled d = benchmark("denoise");
  const Program& p = *d.prog;
  TileAnalysis a = analyzeTile(p, fuseCalls(p, {0, 1}, 2), {{1, 8, 30}, 0, std::nullopt});
  StreamedPlan sp = streamedPlan(p, a);
  ASSERT_TRUE(sp.supported) << sp.whyNot;
  EXPECT_EQ(a.stages[0].lead, 1);
  EXPECT_EQ(a.stages[3].lead, 0);
  bool sawU = false;
  for (size_t b = 0; b < a.buffers.size(); ++b) {
    const TileBuffer& buf = a.buffers[b];
    if (buf.producer >= 0 || p.arrays[static_cast<size_t>(buf.value.index)].name != "u") continue;
    sawU = true;
    EXPECT_TRUE(buf.shared);
    EXPECT_EQ(buf.window, 4);
    EXPECT_EQ(buf.planes, 5);  // and the spare
    EXPECT_EQ(sp.bufferLead[b], 2);
  }
  EXPECT_TRUE(sawU);
  // Without the spare plane the ring still spans the four planes.
  TileAnalysis noSpare =
      analyzeTile(p, fuseCalls(p, {0, 1}, 2), {{1, 8, 30}, 0, std::nullopt, false});
  EXPECT_TRUE(streamedPlan(p, noSpare).supported);

  Compiled h = benchmark("heat");
  TileAnalysis b =
      analyzeTile(*h.prog, fuseCalls(*h.prog, {0, 1}, 2), {{1, 8, 30}, 0, std::nullopt});
  StreamedPlan hp = streamedPlan(*h.prog, b);
  // heat's local array lap is a value of the kernel like any other (issue 13; it was refused):
  // one buffer per step, a register, as each step reads it at its own point only.
  ASSERT_TRUE(hp.supported) << hp.whyNot;
  int lapBuffers = 0;
  for (const TileBuffer& buf : b.buffers)
    if (buf.value.kind == TileValue::Kind::LocalArray) {
      ++lapBuffers;
      EXPECT_GE(buf.producer, 0);
      EXPECT_FALSE(buf.shared);
    }
  EXPECT_EQ(lapBuffers, 2);
}

// j3d7pt, T = 4, retimed (parts at k-1, k, k+1): every stage reads its rings at +1 only, so
// the leads stay those of the plain plan, but the rings shrink: the input keeps its newest
// plane and the spare one (2), and each stage's result one plane (its reader takes the
// newest); the ping-pong's repeated statements take their previous values from memory (the
// arrays before the kernel), so no ring keeps planes for them. Each stage starts accumulating
// 2 steps before its first output is needed, and reads no plane behind the newest: the stages
// start at steps -8, -6, -4, -2 (the plain plan's, shifted by 2) and the prologue stays 8.
TEST(StreamFusion, J3d7ptT4RetimedRingsHoldOnePlane) {
  Compiled c = benchmark("j3d7pt");
  const Program& p = *c.prog;
  TileSpec spec{{1, 26, 26}, 0, std::nullopt};
  for (int call : {0, 1})
    spec.retimed.push_back({call, 0, retime(p, p.calls[call], p.calls[call].stmts[0], 0)});
  for (const RetimedStmt& r : spec.retimed) {
    ASSERT_EQ(r.lo(), -1);
    ASSERT_EQ(r.hi(), 1);
  }
  TileAnalysis a = analyzeTile(p, fuseCalls(p, {0, 1}, 4), spec);
  StreamedPlan sp = streamedPlan(p, a);
  ASSERT_TRUE(sp.supported) << sp.whyNot;
  ASSERT_EQ(a.buffers.size(), 4u);
  for (size_t b = 0; b < a.buffers.size(); ++b) {
    int producer = a.buffers[b].producer;
    EXPECT_EQ(sp.bufferLead[b], producer < 0 ? 4 : 3 - producer) << b;
    EXPECT_EQ(a.buffers[b].planes, producer < 0 ? 2 : 1) << b;
    EXPECT_TRUE(a.buffers[b].shared) << b;
  }
  for (size_t s = 0; s < a.stages.size(); ++s) {
    EXPECT_EQ(a.stages[s].lead, 3 - static_cast<int64_t>(s)) << s;
    ASSERT_TRUE(a.stages[s].retimed) << s;
    EXPECT_TRUE(sp.previousFromMemory[s]) << s;
    EXPECT_EQ(sp.accumulateAhead[s], 2) << s;
  }
  EXPECT_EQ(sp.prologue, 8);
  EXPECT_EQ(sp.stageFrom, (std::vector<int64_t>{-6, -4, -2, 0}));
  // The plain plan of the same tile: rings of 4 (the input's, with the spare) and 3 planes.
  TileAnalysis plain = analyzeTile(p, fuseCalls(p, {0, 1}, 4), {{1, 26, 26}, 0, std::nullopt});
  EXPECT_GT(plain.totals.sharedBytes, a.totals.sharedBytes);
  EXPECT_EQ(plain.totals.redundant, a.totals.redundant);
}

}  // namespace
}  // namespace tessel
