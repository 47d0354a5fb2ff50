// STENCILGEN's greedy resource-driven fusion (analysis/greedy_fusion.h; paper 004 section VI):
// the resource maps of Listing 4, the post-fusion map with the shifted schedule and its five
// metrics, the sort's rule orders and the limits that stop fusion.
#include <gtest/gtest.h>

#include "analysis/greedy_fusion.h"
#include "unit/sten_test_util.h"

namespace tessel {
namespace {

using test::Compiled;

// Paper 004 Listing 4, in Tessel's language: two time steps of a 3-D seven-point Jacobi, each
// associatively reordered into three statements along k (the streaming iterator).
const char* kListing4 = R"(
parameter L=20, M=20, N=20;
iterator k, j, i;
double A[L,M,N], B[L,M,N], C[L,M,N];
copyin A;
stencil j3d7pt (A, B, C) {
  B[k+1][j][i] = (A[k][j][i]);
  B[k][j][i] += (A[k][j-1][i] + A[k][j][i-1] + A[k][j][i] + A[k][j][i+1] + A[k][j+1][i]);
  B[k-1][j][i] += (A[k][j][i]);
  C[k][j][i] = (B[k-1][j][i]);
  C[k-1][j][i] += (B[k-1][j-1][i] + B[k-1][j][i-1] + B[k-1][j][i] + B[k-1][j][i+1]
                   + B[k-1][j+1][i]);
  C[k-2][j][i] += (B[k-1][j][i]);
}
j3d7pt (A, B, C);
copyout C;
)";

ResourceMap mapOf(std::initializer_list<std::tuple<const char*, int64_t, PlaneStorage>> planes) {
  ResourceMap m;
  for (const auto& [v, o, s] : planes) m[{v, o}] = s;
  return m;
}

constexpr PlaneStorage kReg = PlaneStorage::Register, kShm = PlaneStorage::Shared,
                       kGlobal = PlaneStorage::Global;

std::vector<std::vector<size_t>> stmtsOf(const std::vector<FusionOperator>& ops) {
  std::vector<std::vector<size_t>> out;
  for (const FusionOperator& op : ops) out.push_back(op.stmts);
  return out;
}

using Groups = std::vector<std::vector<size_t>>;

}  // namespace

// VI-B: the first time step reads five elements of plane A[0] (shared memory, rule 1) and
// accumulates B's three planes in explicit registers (rule 2); the second reads five elements of
// B[-1] and accumulates C's three planes.
TEST(GreedyFusion, Listing4ResourceMaps) {
  Compiled c = test::compileText(kListing4);
  ASSERT_TRUE(c.prog) << c.diagText();
  const Program& p = *c.prog;
  EXPECT_EQ(initialOperators(p.calls[0]), (Groups{{0, 1, 2}, {3, 4, 5}}));
  FusionOperator b = makeOperator(p, 0, {0, 1, 2});
  EXPECT_EQ(b.map, mapOf({{"A", 0, kShm}, {"B", 1, kReg}, {"B", 0, kReg}, {"B", -1, kReg}}));
  EXPECT_EQ(b.registers(), 3);
  EXPECT_EQ(b.sharedBuffers(), 1);
  EXPECT_EQ(b.order, 1);
  FusionOperator cop = makeOperator(p, 0, {3, 4, 5});
  EXPECT_EQ(cop.map, mapOf({{"B", -1, kShm}, {"C", 0, kReg}, {"C", -1, kReg}, {"C", -2, kReg}}));

  // VI-D: fused, the second step already lags by the dependence distance (Listing 4 is written
  // shifted), so no statement shifts further; B[-1] is a register in the first step and shared
  // memory in the second: the fused map keeps shared memory.
  FusionOperator fused = makeOperator(p, 0, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(fused.shift, (std::vector<int64_t>{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(fused.map, mapOf({{"A", 0, kShm},
                              {"B", 1, kReg},
                              {"B", 0, kReg},
                              {"B", -1, kShm},
                              {"C", 0, kReg},
                              {"C", -1, kReg},
                              {"C", -2, kReg}}));
  EXPECT_EQ(fused.order, 2);  // B's halo of 1 recomputed for the second step's reads of radius 1

  // VI-E: B carries the flow dependence (a store and a load saved: D_m 2); the registers of both
  // (3 + 3) less the fused map's 5, the shared buffers 1 + 1 less 2.
  GreedyFusionOptions opt;
  opt.tile = {8, 8};
  FusionMetrics m = fusionMetrics(p, 0, b, cop, fused, opt);
  EXPECT_EQ(m.dm, 2);
  EXPECT_EQ(m.sReg, 1);
  EXPECT_EQ(m.sShm, 0);
  EXPECT_EQ(m.tReg, 5);
  EXPECT_EQ(m.tShm, 2);
  EXPECT_EQ(m.sharedBytes, 2 * (8 + 4) * (8 + 4) * 8);  // two planes of the tile grown by 2

  GreedyFusionPlan plan = greedyFusion(p, buildDag(p), 0, opt);
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(stmtsOf(plan.result), (Groups{{0, 1, 2, 3, 4, 5}}));
}

// VI-D's shift: the unshifted second step (reading B at its own plane) must lag one plane behind
// the first, whose B[k-1] is the plane it completes.
TEST(GreedyFusion, ShiftsTheConsumerByTheDependenceDistance) {
  std::string text = kListing4;
  const std::string shifted =
      text.substr(text.find("  C[k][j][i]"), text.find("}\n") - text.find("  C[k][j][i]"));
  text.replace(text.find(shifted), shifted.size(), R"(  C[k+1][j][i] = (B[k][j][i]);
  C[k][j][i] += (B[k][j-1][i] + B[k][j][i-1] + B[k][j][i] + B[k][j][i+1] + B[k][j+1][i]);
  C[k-1][j][i] += (B[k][j][i]);
)");
  Compiled c = test::compileText(text);
  ASSERT_TRUE(c.prog) << c.diagText();
  FusionOperator fused = makeOperator(*c.prog, 0, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(fused.shift, (std::vector<int64_t>{0, 0, 0, -1, -1, -1}));
  // Shifted, the fused map is Listing 4's.
  EXPECT_EQ(fused.map, makeOperator(*test::compileText(kListing4).prog, 0, {0, 1, 2, 3, 4, 5}).map);
}

// COSMO's horizontal diffusion under the default order (data movement first): every pair with a
// flow dependence saves 2; among them the fewest buffers first, then program order: lap with fli,
// then flj, then out: one kernel, of order 3 (lap's halo of 2 plus its own reads).
TEST(GreedyFusion, CosmoFusesWholeWithRoom) {
  Compiled c = test::compileBenchmark("cosmo-hdiff");
  ASSERT_TRUE(c.prog) << c.diagText();
  const Program& p = *c.prog;
  GreedyFusionOptions opt;
  GreedyFusionPlan plan = greedyFusion(p, buildDag(p), 0, opt);
  EXPECT_EQ(plan.maxOrder, 4);
  EXPECT_EQ(stmtsOf(plan.initial), (Groups{{0}, {1}, {2}, {3}}));
  EXPECT_EQ(plan.initial[0].map, mapOf({{"in", 0, kShm}, {"lap", 0, kGlobal}}));
  EXPECT_EQ(plan.initial[3].map,
            mapOf({{"wgt", 0, kReg}, {"fli", 0, kShm}, {"flj", 0, kShm}, {"out", 0, kGlobal}}));
  ASSERT_EQ(plan.steps.size(), 3u);
  EXPECT_EQ(plan.steps[0].fused.stmts, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(plan.steps[1].fused.stmts, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(plan.steps[2].metrics.order, 3);
  EXPECT_EQ(plan.steps[2].metrics.tShm, 4);  // in, lap, fli, flj
  EXPECT_EQ(plan.steps[2].metrics.sharedBytes, 4 * 38 * 38 * 8);
  EXPECT_EQ(stmtsOf(plan.result), (Groups{{0, 1, 2, 3}}));
  EXPECT_TRUE(plan.stops.empty());

  // Less shared memory than the whole needs: out stays apart, and the plan says why.
  opt.sharedLimit = 4 * 38 * 38 * 8 - 1;
  plan = greedyFusion(p, buildDag(p), 0, opt);
  EXPECT_EQ(stmtsOf(plan.result), (Groups{{0, 1, 2}, {3}}));
  ASSERT_EQ(plan.stops.size(), 1u);
  EXPECT_NE(plan.stops[0].find("46207 B per block"), std::string::npos) << plan.stops[0];

  // A lower order bound stops the same step for its recomputation.
  opt.sharedLimit = 0;
  opt.maxOrder = 2;
  plan = greedyFusion(p, buildDag(p), 0, opt);
  EXPECT_EQ(stmtsOf(plan.result), (Groups{{0, 1, 2}, {3}}));
  ASSERT_EQ(plan.stops.size(), 1u);
  EXPECT_NE(plan.stops[0].find("order 3 > 2"), std::string::npos) << plan.stops[0];
}

// VI-F: the rule order decides. Resources first (b before a), fli and flj, which share their
// reads of lap (D_m 1) in one buffer, fuse before anything else.
TEST(GreedyFusion, RuleOrderSelectsTheObjective) {
  Compiled c = test::compileBenchmark("cosmo-hdiff");
  ASSERT_TRUE(c.prog) << c.diagText();
  const Program& p = *c.prog;
  GreedyFusionOptions opt;
  opt.rules = "bcdaefgh";
  GreedyFusionPlan plan = greedyFusion(p, buildDag(p), 0, opt);
  ASSERT_FALSE(plan.steps.empty());
  EXPECT_EQ(plan.steps[0].fused.stmts, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(plan.steps[0].metrics.dm, 1);
  EXPECT_EQ(plan.steps[0].metrics.tShm, 1);
  opt.rules = "abcdefgx";
  EXPECT_THROW(greedyFusion(p, buildDag(p), 0, opt), std::invalid_argument);
  // Rule h (program order) first: the first profitable pair in the program, s0 with s1,
  // whatever the metrics say (it was once only the last tie-break, wherever it stood).
  opt.rules = "hbcdaefg";
  plan = greedyFusion(p, buildDag(p), 0, opt);
  ASSERT_FALSE(plan.steps.empty());
  EXPECT_EQ(plan.steps[0].fused.stmts, (std::vector<size_t>{0, 1}));
}

// Local scalars are registers; a chain of scalars ending in one global write fuses into one
// kernel of order 0, with nothing in shared memory.
TEST(GreedyFusion, ScalarsAreRegisters) {
  Compiled c = test::compileText(R"(
parameter N=16;
iterator i;
double a[N], b[N];
copyin a;
stencil s (b, a) {
  double t, u;
  t = a[i] * 2.0;
  u = t + a[i];
  b[i] = u * t;
}
s (b, a);
copyout b;
)");
  ASSERT_TRUE(c.prog) << c.diagText();
  const Program& p = *c.prog;
  GreedyFusionPlan plan = greedyFusion(p, buildDag(p), 0, {});
  EXPECT_EQ(stmtsOf(plan.result), (Groups{{0, 1, 2}}));
  EXPECT_EQ(plan.result[0].map,
            mapOf({{"a", 0, kReg}, {"t", 0, kReg}, {"u", 0, kReg}, {"b", 0, kGlobal}}));
  EXPECT_EQ(plan.result[0].order, 0);
  std::string text = greedyFusionText(p, plan);
  EXPECT_NE(text.find("result: 1 kernel: [s0-s2]"), std::string::npos) << text;
}

}  // namespace tessel
