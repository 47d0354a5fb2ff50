// Fusion groups as a program (analysis/regroup.h; issue 13) and where groups come from
// (driver/fusion_groups.h): a call's statements regrouped into calls, the temporaries that cross
// a group boundary promoted to global arrays (a scalar assigned several times per assignment),
// statements that would see a larger region apart pinned to their region, the refusals; the
// greedy plan's and MODESTO's groupings of the horizontal diffusion (paper 002: fused whole with
// room, [[lap],[fli,flj,out]] in a small block memory); ARTEMIS's recompute-fission; `--groups`
// parsing.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/regions.h"
#include "analysis/regroup.h"
#include "driver/fusion_groups.h"
#include "ir/print_program.h"
#include "model/host.h"
#include "modesto/hierarchy.h"
#include "support/command.h"
#include "unit/sten_test_util.h"

namespace tessel {
namespace {

using test::Compiled;

Compiled fileProgram(const std::string& path) {
  std::ifstream in(testing::sourceDir() + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  return test::compileText(text.str(), path);
}

std::vector<std::string> regionTexts(const Program& prog, const CallInst& call) {
  std::vector<std::string> out;
  for (const StmtRegion& r : analyzeRegions(prog, call).stmts) {
    std::string s;
    for (const SymRange& x : r.iter) s += x.str() + " ";
    out.push_back(s);
  }
  return out;
}

}  // namespace

// Paper 002's split of the horizontal diffusion: lap in one kernel, the fluxes and out in the
// other; lap crosses and becomes a global array of lap's extents; fli and flj stay local.
TEST(Regroup, HorizontalDiffusionSplitInTwo) {
  Compiled c = fileProgram("benchmarks/cosmo-hdiff.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  const Program& prog = *c.prog;
  EXPECT_EQ(groupingProblem(prog, 0, {{0}, {1, 2, 3}}), "");
  std::vector<std::string> notes;
  const Program out = regroupProgram(prog, {{{0}, {1, 2, 3}}}, notes);
  ASSERT_EQ(out.calls.size(), 2u);
  ASSERT_EQ(out.body.size(), 2u);
  EXPECT_EQ(out.calls[0].name, "hdiff_g0");
  EXPECT_EQ(out.calls[0].stmts.size(), 1u);
  EXPECT_EQ(out.calls[1].stmts.size(), 3u);
  ASSERT_EQ(out.arrays.size(), prog.arrays.size() + 1);
  const ArrayDecl& lap = out.arrays.back();
  EXPECT_EQ(lap.name, "lap");
  EXPECT_TRUE(lap.data.allocin);
  EXPECT_FALSE(lap.data.copyout);
  EXPECT_EQ(lap.extents.size(), 3u);
  // The first kernel writes the global lap; the second reads it; fli stays a local array.
  EXPECT_FALSE(out.calls[0].stmts[0].lhs->array.local);
  EXPECT_EQ(statementText(out, out.calls[1], out.calls[1].stmts[0]),
            "fli[k][j][i] = lap[k][j][i+1] - lap[k][j][i]");
  EXPECT_TRUE(out.calls[1].stmts[0].lhs->array.local);
  // Every statement iterates where it did (their domains were explicit already: none pinned).
  std::vector<std::string> before = regionTexts(prog, prog.calls[0]), after;
  for (const CallInst& call : out.calls)
    for (const std::string& r : regionTexts(out, call)) after.push_back(r);
  EXPECT_EQ(before, after);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "call 0 (hdiff) -> 2 kernels [s0] [s1,s2,s3]; in global memory between them: lap -> "
            "lap");
  // Given in the other order, the groups still run in dependence order.
  EXPECT_EQ(orderedGroups(prog, 0, {{3, 2, 1}, {0}}), (CallGroups{{0}, {1, 2, 3}}));
}

// The rhs4center-like kernel with its six shared temporaries in a kernel of their own: the
// per-point scalars become global arrays, and each statement that read them would, apart,
// iterate over the whole call domain, so it keeps its region as a statement domain.
TEST(Regroup, SharedScalarTemporariesBecomeGlobalArraysAndRegionsArePinned) {
  Compiled c = fileProgram("tests/e2e/data/rhs4center_like.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  const Program& prog = *c.prog;
  std::vector<std::string> notes;
  const Program out = regroupProgram(prog, {{{0, 1, 2, 3, 4, 5}, {6, 7}, {8, 9}, {10, 11}}}, notes);
  ASSERT_EQ(out.calls.size(), 4u);
  ASSERT_EQ(out.arrays.size(), prog.arrays.size() + 6);
  EXPECT_EQ(out.arrays[prog.arrays.size()].name, "mux1");
  // r0 stays a per-point scalar of its kernel; its statement and uacc0's are pinned.
  const CallInst& k1 = out.calls[1];
  EXPECT_TRUE(k1.stmts[0].lhsIsScalar());
  ASSERT_TRUE(k1.stmts[0].domain.has_value());
  const std::string text = programSource(out, "");
  EXPECT_NE(text.find("[2:L - 3, 2:M - 3, 2:N - 3] : r0 = (2.0 * mux1[k][j][i]"), std::string::npos)
      << text;
  std::vector<std::string> before = regionTexts(prog, prog.calls[0]), after;
  for (const CallInst& call : out.calls)
    for (const std::string& r : regionTexts(out, call)) after.push_back(r);
  EXPECT_EQ(before, after);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("6 statement(s) keep their region as a statement domain"),
            std::string::npos)
      << notes[0];
}

// A scalar assigned several times (rhs4center's m0 accumulates over four statements; denoise's r
// is assigned twice) crosses as one global array per assignment; a compound assignment whose old
// value lives in another kernel reads it from there.
TEST(Regroup, ScalarAssignedSeveralTimesCrossesPerAssignment) {
  const std::string src = R"(
parameter N=32;
iterator i;
double a[N], b[N];
copyin a;
copyout b;
stencil s (b, a) {
  double r;
  r = a[i-1];
  r += a[i+1];
  b[i] = r * 2.0;
}
s (b, a);
)";
  Compiled c = test::compileText(src, "scalars.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  EXPECT_EQ(groupingProblem(*c.prog, 0, {{0}, {1}, {2}}), "");
  std::vector<std::string> notes;
  const Program out = regroupProgram(*c.prog, {{{0}, {1}, {2}}}, notes);
  ASSERT_EQ(out.calls.size(), 3u) << (notes.empty() ? "" : notes[0]);
  const std::string text = programSource(out, "");
  EXPECT_NE(text.find("r_1[i] = a[i-1];"), std::string::npos) << text;
  EXPECT_NE(text.find("r_2[i] = r_1[i] + a[i+1];"), std::string::npos) << text;
  EXPECT_NE(text.find("b[i] = r_2[i] * 2.0;"), std::string::npos) << text;
  // Kept together, the two assignments stay a scalar of one kernel; only the value b reads
  // crosses.
  notes.clear();
  const Program two = regroupProgram(*c.prog, {{{0, 1}, {2}}}, notes);
  const std::string t2 = programSource(two, "");
  EXPECT_NE(t2.find("  double r;\n"), std::string::npos) << t2;
  EXPECT_NE(t2.find("r_2[i] = r + a[i+1];"), std::string::npos) << t2;
}

TEST(Regroup, RefusesGroupingsThatCannotRun) {
  Compiled c = fileProgram("benchmarks/cosmo-hdiff.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  const Program& prog = *c.prog;
  EXPECT_EQ(groupingProblem(prog, 0, {{0}, {1, 2}}), "statement s3 is in no group");
  EXPECT_EQ(groupingProblem(prog, 0, {{0, 1}, {1, 2, 3}}), "statement s1 is in two groups");
  EXPECT_EQ(groupingProblem(prog, 0, {{0, 7}, {1, 2, 3}}),
            "statement s7 does not exist (the call has s0..s3)");
  EXPECT_EQ(groupingProblem(prog, 0, {{0}, {}, {1, 2, 3}}), "a group is empty");
  // lap and out in one kernel, the fluxes between them in another: a path leaves and returns.
  EXPECT_NE(groupingProblem(prog, 0, {{0, 3}, {1, 2}}).find("not convex"), std::string::npos);
  std::vector<std::string> notes;
  const Program out = regroupProgram(prog, {{{0, 3}, {1, 2}}}, notes);
  EXPECT_EQ(out.calls.size(), 1u);  // stays whole
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("call 0 (hdiff) stays whole: the group [s0,s3] is not convex: the path "
                          "#0 hdiff s0 (lap) -> #0 hdiff s2 (flj) -> #0 hdiff s3 (out)"),
            std::string::npos)
      << notes[0];
}

// Paper 002 (section 3.2) on the horizontal diffusion, through a real program: with the
// machine's block memory everything is fused; with 1,300 values lap goes apart, the paper's
// small-capacity grouping (with 1,000, out goes apart instead: a group's storage is its fullest
// tile's); below what any stencil needs, the call stays whole.
TEST(Regroup, ModestoGroupsTheHorizontalDiffusionByCapacity) {
  Compiled c = fileProgram("benchmarks/cosmo-hdiff.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  DiagnosticEngine diags;
  auto m = loadMachine("h100", diags);
  ASSERT_TRUE(m);
  ModestoGroupingOptions opt;
  Groupings large = modestoGroupings(*c.prog, *m, opt);
  EXPECT_EQ(large.groups, (std::vector<CallGroups>{{{0, 1, 2, 3}}}));
  opt.capacity = 1300;
  Groupings small = modestoGroupings(*c.prog, *m, opt);
  EXPECT_EQ(small.groups, (std::vector<CallGroups>{{{0}, {1, 2, 3}}})) << small.notes[0];
  EXPECT_NE(small.notes[0].find("[[lap],[fli,flj,out]]"), std::string::npos) << small.notes[0];
  opt.capacity = 300;
  Groupings none = modestoGroupings(*c.prog, *m, opt);
  EXPECT_EQ(none.groups, (std::vector<CallGroups>{{}}));
  EXPECT_NE(none.notes[0].find("stays whole: no grouping fits"), std::string::npos)
      << none.notes[0];
}

// The same on a CPU's two-level hierarchy (cpuTwoLevel: DRAM and one core's L2), as
// `--machine host` measures it: on figures like this project's 2-core machine's (28.5 GB/s
// DRAM, 192 GB/s L2 copies, 7.8 GFLOP/s), recomputing fli and flj's halo of lap costs more than
// lap's round trip through DRAM, and MODESTO keeps lap apart; with 100x the FLOP rate, the
// recomputation is cheap and everything is fused, as on the H100.
TEST(Regroup, ModestoGroupsForTheHostCpuByItsFigures) {
  Compiled c = fileProgram("benchmarks/cosmo-hdiff.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  HostMachine host;
  host.cpu = "test CPU";
  host.cores = 2;
  host.l2Bytes = 1 << 20;
  host.dramCopyBandwidth = 28.5e9;
  host.l2CopyBandwidth = 192e9;
  host.fp64FlopRate = 7.8e9;
  auto onHost = [&](const HostMachine& h) {
    return modestoGroupings(
        *c.prog,
        [&](std::vector<int64_t> tile, int valueBytes) {
          return modesto::cpuTwoLevel(h, std::move(tile), valueBytes);
        },
        ModestoGroupingOptions{});
  };
  Groupings slow = onHost(host);
  EXPECT_EQ(slow.groups, (std::vector<CallGroups>{{{0}, {1, 2, 3}}})) << slow.notes[0];
  EXPECT_NE(slow.notes[0].find("tile in L2 of 131072 values' capacity"), std::string::npos)
      << slow.notes[0];
  host.fp64FlopRate *= 100;
  Groupings fast = onHost(host);
  EXPECT_EQ(fast.groups, (std::vector<CallGroups>{{{0, 1, 2, 3}}})) << fast.notes[0];
}

// STENCILGEN's greedy plan as groups: all four fused by default; with the order bounded by 2
// the output stencil stays apart (fusing it would make an order-3 kernel).
TEST(Regroup, GreedyPlanGroupsTheHorizontalDiffusion) {
  Compiled c = fileProgram("benchmarks/cosmo-hdiff.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  GreedyFusionOptions opt;
  opt.sharedLimit = 232448;
  EXPECT_EQ(greedyGroupings(*c.prog, opt).groups, (std::vector<CallGroups>{{{0, 1, 2, 3}}}));
  opt.maxOrder = 2;
  EXPECT_EQ(greedyGroupings(*c.prog, opt).groups, (std::vector<CallGroups>{{{0, 1, 2}, {3}}}));
}

// ARTEMIS's recompute-fission (paper 000 VI-B): a chain of six radius-1 stages fused whole
// recomputes the first stage 5 points out, beyond max(4, r) = 4; split after the fifth stage, the
// first kernel's halo is 4 and the second's 0, t5 crossing through global memory. No benchmark
// exceeds the bound (each call stays one kernel).
TEST(Regroup, RecomputeFissionBoundsTheRecomputationHalo) {
  Compiled c = fileProgram("tests/e2e/data/deep_chain.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  const CallInst& call = c.prog->calls.at(0);
  EXPECT_EQ(recomputationHalo(call, {0, 1, 2, 3, 4, 5}), 5);
  EXPECT_EQ(recomputationHalo(call, {0, 1, 2, 3, 4}), 4);
  EXPECT_EQ(recomputationHalo(call, {5}), 0);
  EXPECT_EQ(recomputationHalo(call, {3, 4, 5}), 2);
  EXPECT_EQ(statementOrder(call, {0, 1}), 1);
  Groupings g = recomputeFissionGroupings(*c.prog);
  EXPECT_EQ(g.groups, (std::vector<CallGroups>{{{0, 1, 2, 3, 4}, {5}}}));
  EXPECT_EQ(g.notes.at(0),
            "call 0 (chain): recompute-fission, 2 kernels [s0,s1,s2,s3,s4] [s5] (recomputation "
            "halo 4, 0; bound max(4, r) = 4)");
  std::vector<std::string> notes;
  const Program out = regroupProgram(*c.prog, g.groups, notes);
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.arrays.back().name, "t5");

  for (const char* b : {"cheby", "cosmo-hdiff", "denoise", "diffterm", "fdtd2d", "gradient", "heat",
                        "hypterm", "rhs4center"}) {
    Compiled bc = fileProgram(std::string("benchmarks/") + b + ".sten");
    ASSERT_TRUE(bc.prog) << b << bc.diagText();
    for (const CallGroups& cg : recomputeFissionGroupings(*bc.prog).groups)
      EXPECT_TRUE(cg.empty()) << b << ": " << groupsText(cg);
  }
}

TEST(Regroup, ParsesGroupSpecifications) {
  Compiled c = fileProgram("benchmarks/cosmo-hdiff.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  std::string error;
  auto g = parseGroupings(*c.prog, {"s0|s1-3"}, error);
  ASSERT_TRUE(g) << error;
  EXPECT_EQ(g->groups, (std::vector<CallGroups>{{{0}, {1, 2, 3}}}));
  g = parseGroupings(*c.prog, {"0: 0 , 1 | 2,3"}, error);
  ASSERT_TRUE(g) << error;
  EXPECT_EQ(g->groups, (std::vector<CallGroups>{{{0, 1}, {2, 3}}}));
  for (const char* bad : {"s0||s1", "1:s0|s1", "x:s0", "s3-1", "s0,a", ""}) {
    error.clear();
    EXPECT_FALSE(parseGroupings(*c.prog, {bad}, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
  // The same call twice: refused (the last one won, silently).
  EXPECT_FALSE(parseGroupings(*c.prog, {"s0|s1-3", "0:s0-2|s3"}, error));
  EXPECT_EQ(error, "'0:s0-2|s3': call 0's groups are given twice (also 's0|s1-3')");
}

}  // namespace tessel
