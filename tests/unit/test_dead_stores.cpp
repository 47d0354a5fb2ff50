// Dead stores of fused kernels (analysis/dead_stores.h): which arrays a fused launch writes
// back, decided on small ping-pong programs where the answer is clear by hand, and what the
// resolved schedule and the generated kernels do with it.
#include <gtest/gtest.h>

#include "analysis/dead_stores.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

/// A 2-D ping-pong pair (j2d5pt's shape): `tail` follows the loop, `data` is the data lists.
std::string pingPong(const std::string& data, const std::string& tail = "") {
  return "parameter M=40, N=50, T=4;\n"
         "iterator j, i;\n"
         "double in[M,N], out[M,N], other[M,N];\n"
         "copyin in, out, other;\n"
         "stencil s (b, a) {\n"
         "  b[j][i] = 0.25 * (a[j-1][i] + a[j+1][i] + a[j][i-1] + a[j][i+1]);\n"
         "}\n"
         "stencil cp (b, a) { b[j][i] = a[j][i]; }\n"
         "iterate 1:T {\n"
         "  s (out, in);\n"
         "  s (in, out);\n"
         "}\n" +
         tail + data;
}

/// Overlapped tiling of `t` steps with 16x16 blocks.
Config overlapped(int t) {
  Config c;
  c.family = ScheduleFamily::Overlapped;
  c.block = {16, 16, 1};
  c.timeTile = t;
  return c;
}

/// The results of the first fused variant of `prog` under overlapped tiling of `t` steps.
std::vector<int> results(const Program& prog, int t, int phase = 0) {
  ResolvedSchedule r = resolved(prog, overlapped(t));
  for (const FusionGroup& g : r.groups)
    if (const FusedVariant* v = g.variant(phase)) return v->analysis.results;
  ADD_FAILURE() << "no fused variant at phase " << phase;
  return {};
}

int arrayIndex(const Program& prog, const std::string& name) {
  for (size_t a = 0; a < prog.arrays.size(); ++a)
    if (prog.arrays[a].name == name) return static_cast<int>(a);
  return -1;
}

}  // namespace

TEST(DeadStores, PingPongIntermediateIsNotWrittenBack) {
  // T = 2 fuses s(out, in), s(in, out). `out` is copied out nowhere, and the next launch's first
  // step writes it (the same statement, the same region) before anything reads it: dead. `in`
  // is read by the next launch and copied out: live.
  Parsed p = parse(pingPong("copyout in;\n"));
  ASSERT_TRUE(p.prog);
  EXPECT_EQ(results(*p.prog, 2), std::vector<int>{arrayIndex(*p.prog, "in")});
}

TEST(DeadStores, WithoutACopyoutListEveryWrittenArrayIsLive) {
  Parsed p = parse(pingPong(""));
  ASSERT_TRUE(p.prog);
  EXPECT_EQ(results(*p.prog, 2).size(), 2u);
}

TEST(DeadStores, CopiedOutArraysAreLive) {
  Parsed p = parse(pingPong("copyout in, out;\n"));
  ASSERT_TRUE(p.prog);
  EXPECT_EQ(results(*p.prog, 2).size(), 2u);
}

TEST(DeadStores, AnArrayReadAfterTheLoopIsLive) {
  // cp(other, out) after the loop reads `out`.
  Parsed p = parse(pingPong("copyout in, other;\n", "cp (other, out);\n"));
  ASSERT_TRUE(p.prog);
  EXPECT_EQ(results(*p.prog, 2).size(), 2u);
}

TEST(DeadStores, AnArrayTheNextLaunchReadsFirstIsLive) {
  // T = 3 over a body of two calls: the launch at phase 0 runs s(out,in), s(in,out), s(out,in)
  // and the next one (phase 1) starts with s(in, out), which reads `out`: both are live. The
  // launch at phase 1 ends with s(in, out), and the next (phase 0) writes `out` first without
  // reading it, but reads `in`: `out` is dead there.
  Parsed p = parse(pingPong("copyout in;\n"));
  ASSERT_TRUE(p.prog);
  EXPECT_EQ(results(*p.prog, 3, 0).size(), 2u);
  EXPECT_EQ(results(*p.prog, 3, 1), std::vector<int>{arrayIndex(*p.prog, "in")});
}

TEST(DeadStores, KeepingThemWritesEveryArray) {
  // --dead-stores keep (Schedule::keepDeadStores): the write-back of every array, as before.
  Parsed p = parse(pingPong("copyout in;\n"));
  ASSERT_TRUE(p.prog);
  std::vector<Schedule> all;
  for (size_t k = 0; k < p.prog->stencils.size(); ++k) {
    all.push_back(scheduleOf(*p.prog, static_cast<int>(k), overlapped(2)));
    all.back().keepDeadStores.value = true;
  }
  ResolvedSchedule r = resolve(*p.prog, all);
  ASSERT_FALSE(r.groups.empty());
  ASSERT_NE(r.groups[0].variant(0), nullptr);
  EXPECT_EQ(r.groups[0].variant(0)->analysis.results.size(), 2u);
}

TEST(DeadStores, TheKernelHasNoSecondBufferForADeadArray) {
  // The generated kernel takes the second buffer of `in` only, and the host swaps `in` alone.
  Parsed p = parse(pingPong("copyout in;\n"));
  ASSERT_TRUE(p.prog);
  GpuSources src = generate(*p.prog, GpuApi::OpenCL, overlapped(2));
  EXPECT_TRUE(contains(src.kernelSource, "in_next")) << src.kernelSource;
  EXPECT_FALSE(contains(src.kernelSource, "out_next")) << src.kernelSource;
}
