// MODESTO's hierarchical model (src/modesto, paper 002): the counts of the horizontal-diffusion
// example (paper 002 section 2.2, Figure 1) on a two-level hierarchy, derived by hand in the
// comments below from the paper's definitions (section 2.6), then the halo strategies' lateral
// exchange, the feasibility check, the search, and clear errors for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "model/host.h"
#include "model/machine.h"
#include "modesto/evaluate.h"
#include "modesto/from_program.h"
#include "modesto/grouping.h"
#include "modesto/packed_keys.h"
#include "modesto/run_costs.h"
#include "modesto/search.h"
#include "modesto/tiling.h"
#include "modesto/variant.h"
#include "support/diagnostics.h"
#include "unit/sten_test_util.h"

using namespace tessel::modesto;

namespace {

constexpr int64_t kN = 256;

/// Paper 002's P_hd: lap = (5, in(-1,0), in(1,0), in(0,-1), in(0,1), in(0,0)), fli = (1, lap(1,0),
/// lap(0,0)), flj = (1, lap(0,1), lap(0,0)), out = (5, fli(-1,0), fli(0,0), flj(0,-1), flj(0,0),
/// wgt(0,0)), out evaluated on [0, 256)^2 (one k-level of the paper's (256, 256, 64)).
StencilProgram horizontalDiffusion() {
  StencilProgram p;
  p.dims = 2;
  p.stencils = {
      {"lap",
       5,
       {{"in", {-1, 0}}, {"in", {1, 0}}, {"in", {0, -1}}, {"in", {0, 1}}, {"in", {0, 0}}},
       {}},
      {"fli", 1, {{"lap", {1, 0}}, {"lap", {0, 0}}}, {}},
      {"flj", 1, {{"lap", {0, 1}}, {"lap", {0, 0}}}, {}},
      {"out",
       5,
       {{"fli", {-1, 0}}, {"fli", {0, 0}}, {"flj", {0, -1}}, {"flj", {0, 0}}, {"wgt", {0, 0}}},
       IndexBox{{0, 0}, {kN - 1, kN - 1}}},
  };
  p.outputs = {"out"};
  return p;
}

/// Two levels, both on the fly: level 1 the untiled plane (DRAM), level 2 a 32x32 block
/// (shared memory), with round rates so that times can be checked by hand: C = 1e12 flop/s,
/// V1 = 1e11 values/s, V2 = 1e12 values/s, M2 = 6000 values.
Hierarchy twoLevels(Halo inner = Halo::OnTheFly) {
  Hierarchy h;
  h.levels = {{"DRAM", {0, 0}, Halo::OnTheFly, 1e11, 0, 0},
              {"shared memory", {32, 32}, inner, 1e12, 1e12, 6000}};
  h.compute = 1e12;
  return h;
}

const GroupCounts& groupNamed(const Evaluation& e, const std::string& text) {
  auto it = std::find_if(e.groups.begin(), e.groups.end(),
                         [&](const GroupCounts& g) { return g.text == text; });
  if (it == e.groups.end()) throw std::runtime_error("no group " + text);
  return *it;
}

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

}  // namespace

// Evaluation domains, worked backwards from out's 256x256 (section 2.2, "accumulated access
// patterns"): fli on i in [-1, 255] x j in [0, 255] (out reads fli(-1,0)): 257 x 256 = 65,792;
// flj likewise 65,792; lap where fli or flj read it, the square plus one row on each side:
// 256^2 + 4 x 256 = 66,560; in, lap's plus dilated by the 5-point plus: the 258^2 square
// [-1, 256]^2 (its corners come from the edge rows) plus a row of 256 beyond each side:
// 66,564 + 1,024 = 67,588.

TEST(Modesto, HorizontalDiffusionFullFusionByHand) {
  const StencilProgram p = horizontalDiffusion();
  const Hierarchy h = twoLevels();
  const Evaluation e = evaluate(p, h, parseVariant("[[lap,fli,flj,out]]", p, 2));
  // Computation. The block group's output is out, 64 tiles of 32x32; on the fly, each tile
  // computes what its out points need: fli 33x32 = 1,056, flj 32x33 = 1,056, lap the block plus
  // one row per side, 32^2 + 4 x 32 = 1,152. Evaluations are per (point, tile):
  EXPECT_EQ(e.stencils[0].evaluations, 64 * 1152);  // lap 73,728 (redundant: 73,728 - 66,560)
  EXPECT_EQ(e.stencils[1].evaluations, 64 * 1056);  // fli 67,584
  EXPECT_EQ(e.stencils[2].evaluations, 64 * 1056);  // flj
  EXPECT_EQ(e.stencils[3].evaluations, 64 * 1024);  // out 65,536
  EXPECT_EQ(e.stencils[0].flops + e.stencils[1].flops + e.stencils[2].flops + e.stencils[3].flops,
            831488);  // 5 x 73,728 + 2 x 67,584 + 5 x 65,536
  // Level 1 (DRAM): the one kernel loads in and wgt, per element of the untiled plane (the
  // paper projects out the levels below the parent's): 67,588 + 65,536; it stores out.
  const GroupCounts& root = groupNamed(e, "[[lap,fli,flj,out]]");
  ASSERT_EQ(root.children.size(), 1u);
  EXPECT_EQ(root.children[0].loads, 67588 + 65536);
  EXPECT_EQ(root.children[0].stores, 65536);
  EXPECT_EQ(sum(root.children[0].lateral), 0);
  // Level 2 (shared memory), per element and block: lap loads in, its plus-shaped tile dilated
  // by the plus, [-1, 32]^2 + 4 x 32 = 1,284; it stores what fli and flj read of it, its 1,152.
  // fli and flj load lap, 34 x 32 = 1,088, and store what out reads, 1,056. out loads fli,
  // flj and wgt, 1,056 + 1,056 + 1,024 = 3,136, and stores its 1,024.
  const GroupCounts& block = groupNamed(e, "[lap,fli,flj,out]");
  ASSERT_EQ(block.children.size(), 4u);
  const double loads[] = {1284, 1088, 1088, 3136}, stores[] = {1152, 1056, 1056, 1024};
  double shared = 0;
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(block.children[s].loads, 64 * loads[s]) << s;
    EXPECT_EQ(block.children[s].stores, 64 * stores[s]) << s;
    EXPECT_EQ(sum(block.children[s].lateral), 0) << s;  // on the fly: nothing is exchanged
    shared += block.children[s].loads + block.children[s].stores;
  }
  EXPECT_EQ(shared, 696576);
  // Storage of one block: in 1,284 + lap 1,152 + fli 1,056 + flj 1,056 + wgt 1,024 = 5,572
  // values (44.6 KB in FP64: it fits the default 48 KiB); out is streamed out, not stored.
  EXPECT_EQ(block.storage, 5572);
  EXPECT_TRUE(e.feasible);
  // Time: the block's t_g sums max(compute, shared / V2) per stencil: lap max(368,640,
  // 155,904) + fli max(67,584, 137,216) + flj the same + out max(327,680, 266,240) values or
  // flops, at 1e12 per second each: 970.752 ns; the root's child is DRAM-bound: (133,124 +
  // 65,536) / 1e11 = 1,986.6 ns.
  EXPECT_NEAR(block.seconds, 970.752e-9, 1e-15);
  EXPECT_EQ(root.children[0].bound, "vertical");
  EXPECT_NEAR(e.seconds, 1986.6e-9, 1e-15);
}

TEST(Modesto, HorizontalDiffusionNoFusionByHand) {
  const StencilProgram p = horizontalDiffusion();
  const Evaluation e = evaluate(p, twoLevels(), parseVariant("[[lap],[fli],[flj],[out]]", p, 2));
  // One stencil per kernel: no redundant evaluations.
  EXPECT_EQ(e.stencils[0].evaluations, 66560);
  EXPECT_EQ(e.stencils[1].evaluations, 65792);
  EXPECT_EQ(e.stencils[3].evaluations, 65536);
  // Level 1, per element: lap loads in (67,588) and stores all of lap (fli and flj read it
  // all, 66,560); fli loads lap where it reads it, i in [-1, 256] x j in [0, 255] = 258 x 256 =
  // 66,048, and stores its 65,792; flj the same; out loads fli, flj and wgt, 65,792 x 2 +
  // 65,536 = 197,120, and stores 65,536. DRAM: 660,484 values against full fusion's 198,660.
  const GroupCounts& root = groupNamed(e, "[[lap],[fli],[flj],[out]]");
  ASSERT_EQ(root.children.size(), 4u);
  const double loads[] = {67588, 66048, 66048, 197120}, stores[] = {66560, 65792, 65792, 65536};
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(root.children[c].loads, loads[c]) << c;
    EXPECT_EQ(root.children[c].stores, stores[c]) << c;
  }
  // Level 2, lap's kernel: its 64 full blocks load 1,152 each (32^2 + 4 x 32); the 32 edge
  // tiles (1 x 32 strips: the row i = -1 is tile -1) load 32 x 3 + 2 = 98 each: 76,864.
  // fli's: 64 x 33 x 32 + 8 strips x 2 x 32 = 68,096.
  EXPECT_EQ(groupNamed(e, "[lap]").children[0].loads, 64 * 1152 + 32 * 98);
  EXPECT_EQ(groupNamed(e, "[fli]").children[0].loads, 64 * 1056 + 8 * 64);
  // Storage of the origin block (tile (0,0) on both levels): lap's needs in for its 32x32
  // points (the strips are other tiles), 1,152; out's needs fli 33x32, flj 32x33 and wgt.
  EXPECT_EQ(groupNamed(e, "[lap]").storage, 1152);
  EXPECT_EQ(groupNamed(e, "[fli]").storage, 33 * 32);
  EXPECT_EQ(groupNamed(e, "[out]").storage, 3136);
  // Every kernel is DRAM-bound here; full fusion is 3.3x faster (660,484 / 198,660 values).
  const Evaluation fused = evaluate(p, twoLevels(), parseVariant("[[lap,fli,flj,out]]", p, 2));
  EXPECT_NEAR(e.seconds, (660484 / 1e11), 1e-15);
  EXPECT_NEAR(e.seconds / fused.seconds, 660484.0 / 198660.0, 1e-9);
}

// evaluateRootChild (what the dynamic programme calls per run) counts one child of the root as
// evaluate() does, the groups below it included, and leaves the root's other children out.
TEST(Modesto, OneRootChildCountsAsInTheWholeVariant) {
  const StencilProgram p = horizontalDiffusion();
  for (Halo halo : {Halo::OnTheFly, Halo::ExchangeSequential}) {
    const Hierarchy h = twoLevels(halo);
    const Group v = parseVariant("[[lap],[fli,flj],[out]]", p, 2);
    const Evaluation whole = evaluate(p, h, v);
    for (size_t c = 0; c < v.children.size(); ++c) {
      const Evaluation one = evaluateRootChild(p, h, v, c);
      ASSERT_EQ(one.groups.front().children.size(), 1u);
      const ChildCounts& a = one.groups.front().children.front();
      const ChildCounts& b = whole.groups.front().children.at(c);
      EXPECT_EQ(a.text, b.text);
      EXPECT_DOUBLE_EQ(a.loads, b.loads) << a.text;
      EXPECT_DOUBLE_EQ(a.stores, b.stores) << a.text;
      EXPECT_EQ(a.lateral, b.lateral) << a.text;
      EXPECT_DOUBLE_EQ(a.time(), b.time()) << a.text;
      // The child's own group (level 2): the same storage and fit.
      bool found = false;
      for (const GroupCounts& g : one.groups)
        for (const GroupCounts& w : whole.groups)
          if (g.level == 2 && w.level == 2 && g.text == w.text) {
            found = true;
            EXPECT_DOUBLE_EQ(g.storage, w.storage) << g.text;
            EXPECT_EQ(g.fits, w.fits) << g.text;
          }
      EXPECT_TRUE(found) << a.text;
    }
  }
  EXPECT_THROW(evaluateRootChild(p, twoLevels(), parseVariant("[[lap,fli,flj,out]]", p, 2), 1),
               std::invalid_argument);
}

TEST(Modesto, SearchRanksFullFusionFirstAndChecksCapacity) {
  // Two topological orders (fli and flj commute) x 2^3 groupings = 16 variants.
  StencilProgram p = horizontalDiffusion();
  p.stencils[3].domain = IndexBox{{0, 0}, {63, 63}};  // a smaller plane keeps the test quick
  Hierarchy h = twoLevels();
  std::vector<Evaluation> ranked = rankVariants(p, h);
  EXPECT_EQ(ranked.size(), 16u);
  EXPECT_EQ(ranked.front().variant, "[[lap,fli,flj,out]]");
  // Last: no fusion, in either order of fli and flj (the same time).
  EXPECT_TRUE(ranked.back().variant == "[[lap],[fli],[flj],[out]]" ||
              ranked.back().variant == "[[lap],[flj],[fli],[out]]")
      << ranked.back().variant;
  // A 5,000-value block memory (40 KB in FP64) cannot hold the fused kernel's 5,572 values:
  // it is infeasible and ranked after every feasible variant.
  h.levels[1].capacity = 5000;
  ranked = rankVariants(p, h);
  EXPECT_TRUE(ranked.front().feasible);
  EXPECT_NE(ranked.front().variant, "[[lap,fli,flj,out]]");
  auto fused = std::find_if(ranked.begin(), ranked.end(),
                            [](const Evaluation& e) { return e.variant == "[[lap,fli,flj,out]]"; });
  ASSERT_NE(fused, ranked.end());
  EXPECT_FALSE(fused->feasible);
  EXPECT_FALSE(ranked.back().feasible);
}

namespace {

/// A 1-D chain: a = in(0) and b = a(-1) + a(1) on [0, 15], with 4-point blocks at level 2.
StencilProgram chain() {
  StencilProgram p;
  p.dims = 1;
  p.stencils = {{"a", 1, {{"in", {0}}}, {}},
                {"b", 1, {{"a", {-1}}, {"a", {1}}}, IndexBox{{0}, {15}}}};
  p.outputs = {"b"};
  return p;
}

Hierarchy chainLevels(Halo inner) {
  Hierarchy h;
  h.levels = {{"DRAM", {0}, Halo::OnTheFly, 0, 0, 0}, {"shared", {4}, inner, 0, 2, 0}};
  h.compute = 1e30;  // compute and vertical traffic free: the lateral term decides
  return h;
}

}  // namespace

TEST(Modesto, HaloExchangeCountsLateralTraffic) {
  // a is needed on [-1, 16] (18 points). Under hp both stencils keep one tile per point: b's
  // block k reads a on [4k - 1, 4k + 4], two points of which (4k - 1 and 4k + 4) another block
  // computed: 2 x 4 blocks = 8 values exchanged at level 2, none at level 1 (one tile).
  const StencilProgram p = chain();
  const Evaluation hp =
      evaluate(p, chainLevels(Halo::ExchangeParallel), parseVariant("[[a,b]]", p, 2));
  EXPECT_EQ(hp.stencils[0].evaluations, 18);  // no redundancy
  const GroupCounts& blk = groupNamed(hp, "[a,b]");
  ASSERT_EQ(blk.children[0].lateral.size(), 2u);
  EXPECT_EQ(blk.children[0].lateral[0], 0);
  EXPECT_EQ(blk.children[0].lateral[1], 8);
  EXPECT_EQ(blk.children[0].loads, 18);   // in, per element and block
  EXPECT_EQ(blk.children[0].stores, 18);  // a, each point in its own block
  EXPECT_EQ(blk.children[1].loads, 24);   // a, 6 per block of b
  EXPECT_EQ(blk.children[0].bound, "lateral");
  EXPECT_NEAR(hp.seconds, 8.0 / 2, 1e-12);  // 8 values at L2 = 2 values/s
  // On the fly the same blocks compute a on [4k - 1, 4k + 4] themselves: 24 evaluations, 6
  // of them redundant, and nothing is exchanged.
  const Evaluation of = evaluate(p, chainLevels(Halo::OnTheFly), parseVariant("[[a,b]]", p, 2));
  EXPECT_EQ(of.stencils[0].evaluations, 24);
  EXPECT_EQ(sum(groupNamed(of, "[a,b]").children[0].lateral), 0);
}

TEST(Modesto, SequentialHaloShiftsTilesSoDependencesPointBackwards) {
  // hs shifts a's tiles by b's largest offset (+1): a's tile of x is floor((x - 1) / 4), so the
  // a values b's block k reads ([4k - 1, 4k + 4]) lie in blocks k - 1 and k, never k + 1: one
  // sweep in increasing k satisfies them. Under hp, 4k + 4 lies in block k + 1.
  const StencilProgram p = chain();
  for (Halo halo : {Halo::ExchangeSequential, Halo::ExchangeParallel}) {
    const Group v = parseVariant("[[a,b]]", p, 2);
    const detail::TilingMaps maps = detail::tileVariant(p, chainLevels(halo), v);
    int ahead = 0;
    for (const detail::Key& bk : *maps.tiles[1])
      for (int64_t off : {-1, 1})
        for (const detail::Key& ak : *maps.tiles[0])
          if (ak[detail::kPoint] == bk[detail::kPoint] + off &&
              ak[detail::kId + 1] > bk[detail::kId + 1])
            ++ahead;
    EXPECT_EQ(ahead, halo == Halo::ExchangeSequential ? 0 : 4) << haloName(halo);
  }
}

TEST(Modesto, GpuTwoLevelHierarchyFromAMachineFile) {
  tessel::DiagnosticEngine diags;
  auto m = tessel::loadMachine("h100", diags);
  ASSERT_TRUE(m.has_value());
  const Hierarchy h = gpuTwoLevel(*m, {32, 32}, 8);
  ASSERT_EQ(h.levels.size(), 2u);
  // 3.0 TB/s measured copy bandwidth / 8 B; 132 SMs x 128 B x 1.98 GHz / 2 / 8 B; 48 KiB / 8 B;
  // the FP64 peak without FMA.
  EXPECT_DOUBLE_EQ(h.levels[0].vertical, *m->memory.measuredDramBandwidth / 8);
  EXPECT_DOUBLE_EQ(h.levels[1].vertical, 132 * 128.0 * *m->compute.smClock / 2 / 8);
  EXPECT_DOUBLE_EQ(h.levels[1].capacity, 49152.0 / 8);
  EXPECT_DOUBLE_EQ(h.compute, m->compute.peakFp64 / 2);
  // On the H100 in FP64, horizontal diffusion fused is DRAM-bound and fits a block.
  const StencilProgram p = horizontalDiffusion();
  const Evaluation e = evaluate(p, h, parseVariant("[[lap,fli,flj,out]]", p, 2));
  EXPECT_TRUE(e.feasible);
  EXPECT_EQ(e.groups[0].children[0].bound, "vertical");
}

TEST(Modesto, BadInputIsRefusedWithTheReason) {
  const StencilProgram p = horizontalDiffusion();
  auto message = [&](const std::string& text) {
    try {
      parseVariant(text, p, 2);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("[[fli,lap,flj,out]]").find("'fli' comes before 'lap'"), std::string::npos);
  EXPECT_NE(message("[[lap,fli,flj]]").find("'out' is in no group"), std::string::npos);
  EXPECT_NE(message("[[lap,lap,fli,flj,out]]").find("appears twice"), std::string::npos);
  EXPECT_NE(message("[[[lap],fli,flj,out]]").find("deeper than"), std::string::npos);
  EXPECT_NE(message("[[lap,fli,flj,outt]]").find("no stencil is named 'outt'"), std::string::npos);
  StencilProgram bad = p;
  bad.stencils[3].domain.reset();
  EXPECT_THROW(evaluate(bad, twoLevels(), parseVariant("[[lap,fli,flj,out]]", p, 2)),
               std::invalid_argument);
  Hierarchy wrong = twoLevels();
  wrong.levels[1].tile = {32};
  EXPECT_THROW(evaluate(p, wrong, parseVariant("[[lap,fli,flj,out]]", p, 2)),
               std::invalid_argument);
}

TEST(Modesto, ATesselCallBecomesAStencilProgram) {
  // benchmarks/cosmo-hdiff.sten is the same program written in Tessel's language (3-D, k the
  // vertical level, lap/fli/flj local arrays): each statement becomes a stencil named by the
  // array it writes, with its offsets along (k, j, i) and its iteration box.
  std::ifstream f(std::string(TESSEL_SOURCE_DIR) + "/benchmarks/cosmo-hdiff.sten");
  std::stringstream text;
  text << f.rdbuf();
  tessel::test::Compiled c = tessel::test::compileText(text.str(), "cosmo-hdiff.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  const tessel::ParamValues params = {1, 66, 66};  // L, M, N: one level of 66 x 66
  const StencilProgram p = fromCall(*c.prog, c.prog->calls.at(0), params);
  ASSERT_EQ(p.stencils.size(), 4u);
  EXPECT_EQ(p.stencils[0].name, "lap");
  EXPECT_EQ(p.stencils[3].name, "out");
  EXPECT_EQ(p.outputs, std::vector<std::string>{"out"});
  EXPECT_EQ(p.stencils[0].ops, 5);
  ASSERT_EQ(p.stencils[1].in.size(), 2u);  // fli = lap[k][j][i+1] - lap[k][j][i]
  EXPECT_EQ(p.stencils[1].in[0].field, "lap");
  EXPECT_EQ(p.stencils[1].in[0].offset, (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(p.stencils[3].domain->lo, (std::vector<int64_t>{0, 2, 2}));
  EXPECT_EQ(p.stencils[3].domain->hi, (std::vector<int64_t>{0, 63, 63}));
  EXPECT_EQ(p.inputFields(), (std::vector<std::string>{"in", "wgt"}));
  // Its evaluation domains are the ones Tessel's statements declare (lap on [1, 64]^2 holds
  // all that fli and flj read), and the search ranks full fusion first, as for the paper's.
  Hierarchy h;
  h.levels = {{"DRAM", {0, 0, 0}, Halo::OnTheFly, 1e11, 0, 0},
              {"shared memory", {1, 32, 32}, Halo::OnTheFly, 1e12, 1e12, 6000}};
  h.compute = 1e12;
  const std::vector<Evaluation> ranked = rankVariants(p, h);
  EXPECT_EQ(ranked.front().variant, "[[lap,fli,flj,out]]");
  const Evaluation none = evaluate(p, h, parseVariant("[[lap],[fli],[flj],[out]]", p, 2));
  EXPECT_EQ(none.stencils[3].evaluations, 62 * 62);
  EXPECT_EQ(none.stencils[1].evaluations, 62 * 63);  // fli on j in [2, 63] x i in [1, 63]
  // A field written by two statements is a field per write, each read taking the version
  // written last before it: b's update reads the first b at its own point (the compound
  // assignment's read), and both versions leave the program (the second may cover less).
  tessel::test::Compiled twice = tessel::test::compileText(R"(
parameter N=16;
iterator i;
double a[N], b[N], c[N];
copyin a;
stencil s (c, b, a) {
  double r;
  [1:N-2] : b[i] = a[i-1] + a[i+1];
  [1:N-2] : b[i] += a[i];
  r = b[i] * 2.0;
  r = r + a[i];
  c[i] = r;
}
s (c, b, a);
copyout b, c;
)");
  ASSERT_TRUE(twice.prog) << twice.diagText();
  const StencilProgram v = fromCall(*twice.prog, twice.prog->calls.at(0), {16});
  std::vector<std::string> names;
  for (const Stencil& st : v.stencils) names.push_back(st.name);
  EXPECT_EQ(names, (std::vector<std::string>{"b", "b#2", "r", "r#2", "c"}));
  auto reads = [&](size_t s) {
    std::vector<std::string> out;
    for (const Access& a : v.stencils.at(s).in)
      out.push_back(a.field + "@" + std::to_string(a.offset[0]));
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(reads(1), (std::vector<std::string>{"a@0", "b@0"}));
  EXPECT_EQ(reads(2), (std::vector<std::string>{"b#2@0"}));
  EXPECT_EQ(reads(3), (std::vector<std::string>{"a@0", "r@0"}));
  EXPECT_EQ(reads(4), (std::vector<std::string>{"r#2@0"}));
  EXPECT_EQ(v.outputs, (std::vector<std::string>{"b", "b#2", "c"}));
  EXPECT_EQ(parseVariant("[[b,b#2],[r,r#2,c]]", v, 2).children.size(), 2u);
  // An array read before the call writes it is an input under its own name; its writes are
  // versions 1, 2, ...
  tessel::test::Compiled update = tessel::test::compileText(R"(
parameter N=16;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (b, a) {
  a[i] = b[i] * 2.0;
  [1:N-2] : b[i] = a[i-1] + a[i+1];
}
s (b, a);
copyout a, b;
)");
  ASSERT_TRUE(update.prog) << update.diagText();
  const StencilProgram u = fromCall(*update.prog, update.prog->calls.at(0), {16});
  ASSERT_EQ(u.stencils.size(), 2u);
  EXPECT_EQ(u.stencils[0].name, "a");
  EXPECT_EQ(u.stencils[0].in.at(0).field, "b");
  EXPECT_EQ(u.stencils[1].name, "b#1");
  EXPECT_EQ(u.inputFields(), std::vector<std::string>{"b"});
  // A statement the model cannot take is refused with its line: a fixed plane of a field the
  // call computes (its consumers must read it at constant offsets).
  tessel::test::Compiled plane = tessel::test::compileText(R"(
parameter M=16, N=16;
iterator j, i;
double a[M,N], b[M,N], c[M,N];
copyin a;
stencil s (c, b, a) {
  b[j][i] = a[j][i] + a[0][i];
  c[j][i] = b[0][i];
}
s (c, b, a);
copyout b, c;
)");
  ASSERT_TRUE(plane.prog) << plane.diagText();
  try {
    fromCall(*plane.prog, plane.prog->calls.at(0), {16, 16});
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("test.sten:8: call 's': 'b' is read at a fixed plane "
                                         "after a statement of the call writes it"),
              std::string::npos)
        << e.what();
  }
}

TEST(Modesto, CpuTwoLevelHierarchyFromTheMeasuredHost) {
  // Paper 002's Table 1 on a CPU: the whole domain in DRAM, a tile in L2, from the host's
  // measured figures (here given, not measured, so that the test is exact).
  tessel::HostMachine host;
  host.cores = 2;
  host.l2Bytes = 1 << 20;
  host.dramCopyBandwidth = 20e9;
  host.l2CopyBandwidth = 100e9;
  host.fp64FlopRate = 4e9;
  const Hierarchy h = cpuTwoLevel(host, {8, 8});
  ASSERT_EQ(h.levels.size(), 2u);
  EXPECT_EQ(h.levels[0].tile, (std::vector<int64_t>{0, 0}));
  EXPECT_DOUBLE_EQ(h.levels[0].vertical, 20e9 / 8);
  EXPECT_DOUBLE_EQ(h.levels[1].vertical, 100e9 / 8);
  EXPECT_DOUBLE_EQ(h.levels[1].capacity, (1 << 20) / 8.0);
  EXPECT_DOUBLE_EQ(h.compute, 4e9);
  // Horizontal diffusion on it: every grouping of 8x8 tiles fits the L2 (the fused kernel's
  // tile stores in 10^2 + 4 x 8, lap 8^2 + 4 x 8, fli and flj 9 x 8, wgt 8^2: 436 values). Here
  // compute is dear (4 GFLOP/s against 2.5 G values/s of DRAM), so the model splits off lap, whose
  // 50% redundant evaluations at 8x8 cost more than the DRAM traffic of its result:
  // [[lap],[fli,flj,out]] beats full fusion.
  StencilProgram p = horizontalDiffusion();
  p.stencils[3].domain = IndexBox{{0, 0}, {31, 31}};
  const std::vector<Evaluation> ranked = rankVariants(p, h);
  EXPECT_TRUE(
      std::all_of(ranked.begin(), ranked.end(), [](const Evaluation& e) { return e.feasible; }));
  EXPECT_EQ(ranked.front().variant, "[[lap],[fli,flj,out]]");
  const Evaluation fused = evaluate(p, h, parseVariant("[[lap,fli,flj,out]]", p, 2));
  EXPECT_EQ(groupNamed(fused, "[lap,fli,flj,out]").storage, 436);
  EXPECT_TRUE(ranked.front().feasible);
}

// Issue 13, MODESTO's dynamic programme over contiguous groupings (modesto/grouping.h) on the
// horizontal diffusion (paper 002 Figure 2): with room for everything in the block memory it
// fuses all four stencils; with 5,000 values (40 KB in FP64), which cannot hold the fused
// kernel's 5,572, it splits them in two groups. Either way it finds what the exhaustive search
// ranks first among the feasible variants.
TEST(Modesto, DynamicProgrammeGroupsHorizontalDiffusionByCapacity) {
  StencilProgram p = horizontalDiffusion();
  p.stencils[3].domain = IndexBox{{0, 0}, {63, 63}};  // as SearchRanksFullFusionFirst...
  Hierarchy h = twoLevels();
  std::optional<Evaluation> large = groupByDynamicProgram(p, h);
  ASSERT_TRUE(large);
  EXPECT_EQ(large->variant, "[[lap,fli,flj,out]]");
  EXPECT_TRUE(large->feasible);
  EXPECT_DOUBLE_EQ(large->seconds, rankVariants(p, h).front().seconds);

  h.levels[1].capacity = 5000;
  std::optional<Evaluation> small = groupByDynamicProgram(p, h);
  ASSERT_TRUE(small);
  EXPECT_TRUE(small->feasible);
  const Evaluation exhaustive = rankVariants(p, h).front();
  ASSERT_TRUE(exhaustive.feasible);
  EXPECT_DOUBLE_EQ(small->seconds, exhaustive.seconds)
      << small->variant << " vs " << exhaustive.variant;
  // Split in two: the root holds two level-2 groups.
  int groups = 0;
  for (const GroupCounts& g : small->groups) groups += g.level == 2 ? 1 : 0;
  EXPECT_EQ(groups, 2) << small->variant;
  EXPECT_EQ(small->variant, "[[lap],[fli,flj,out]]");  // lap apart, the fluxes fused with out

  // Nothing fits a 100-value memory (no stencil's own inputs fit): no grouping.
  h.levels[1].capacity = 100;
  EXPECT_FALSE(groupByDynamicProgram(p, h));
  // More levels: the exhaustive search's job.
  Hierarchy three = twoLevels();
  three.levels.push_back(three.levels[1]);
  EXPECT_THROW(groupByDynamicProgram(p, three), std::invalid_argument);
}

// The runs' counts spread over threads (grouping.h): one thread or several give the same
// grouping and the same figures, counted incrementally (both levels on the fly) and run by run
// (a level-2 halo exchanged between tiles), with capacities that fuse all, split, and fit nothing.
TEST(Modesto, DynamicProgrammeGivesTheSameGroupingOnAnyNumberOfThreads) {
  StencilProgram p = horizontalDiffusion();
  p.stencils[3].domain = IndexBox{{0, 0}, {63, 63}};
  for (Halo inner : {Halo::OnTheFly, Halo::ExchangeParallel})
    for (double capacity : {6000.0, 5000.0, 100.0}) {
      Hierarchy h = twoLevels(inner);
      h.levels[1].capacity = capacity;
      const std::optional<Evaluation> one = groupByDynamicProgram(p, h, 100, 1);
      for (unsigned threads : {2u, 3u, 8u}) {
        const std::optional<Evaluation> many = groupByDynamicProgram(p, h, 100, threads);
        ASSERT_EQ(one.has_value(), many.has_value()) << capacity << " " << threads;
        if (!one) continue;
        EXPECT_EQ(one->variant, many->variant) << capacity << " " << threads;
        EXPECT_EQ(one->seconds, many->seconds) << capacity << " " << threads;
        EXPECT_EQ(one->feasible, many->feasible) << capacity << " " << threads;
      }
    }
}

// The counting engine's packed keys (modesto/packed_keys.h): a shift by an offset is an addition,
// a projection a mask, and the set counts what a std::set of the keys themselves counts, on keys
// with negative coordinates and ranges of 1 to 2^12 values.
TEST(Modesto, PackedKeysCountAsTheKeysThemselves) {
  using detail::Key;
  const int dims = 3;
  Key lo{}, hi{};
  hi[0] = 5;
  for (int i = detail::kPoint; i < static_cast<int>(lo.size()); ++i) {
    lo[static_cast<size_t>(i)] = -(i % 4) * 3;
    hi[static_cast<size_t>(i)] = (i % 3 == 0) ? 0 : 1 << (i % 13);
  }
  const detail::KeyPacking packing(lo, hi, dims);
  uint64_t state = 12345;
  auto next = [&](int32_t a, int32_t b) {  // uniform in [a, b]
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return a + static_cast<int32_t>((state >> 33) % static_cast<uint64_t>(b - a + 1));
  };
  for (int keep = 0; keep <= 4; ++keep) {
    detail::PackedSet set;
    std::set<Key> reference;
    for (int n = 0; n < 20000; ++n) {
      Key k;
      for (size_t i = 0; i < k.size(); ++i) k[i] = next(lo[i], hi[i] / 4 + lo[i] / 2);
      // An offset along each point dimension that stays in range.
      Key shifted = k;
      detail::Packed packed = packing.pack(k);
      for (int d = 0; d < dims; ++d) {
        const int32_t by = next(lo[detail::kPoint + d] - k[detail::kPoint + d],
                                hi[detail::kPoint + d] - k[detail::kPoint + d]);
        shifted[detail::kPoint + d] += by;
        packed += packing.delta(detail::kPoint + d, by);
      }
      ASSERT_TRUE(packed == packing.pack(shifted));
      Key projected = shifted;
      std::fill(projected.begin() + detail::kId + keep * dims, projected.end(), 0);
      set.insert(packing.projected(packed, keep));
      reference.insert(projected);
      bool outerZero = true;
      for (int i = 0; i < keep * dims; ++i) outerZero = outerZero && shifted[detail::kId + i] == 0;
      ASSERT_EQ(packing.outerTilesZero(packed, keep), outerZero);
    }
    EXPECT_EQ(set.size(), reference.size()) << "keep " << keep;
    EXPECT_TRUE(set.contains(packing.projected(packing.pack(*reference.begin()), keep)));
  }
  // Ranges needing more than 127 bits are refused, not packed wrong.
  Key wide{};
  wide.fill(1 << 20);
  EXPECT_THROW(detail::KeyPacking(Key{}, wide, dims), std::invalid_argument);
}

namespace {

/// Every run order[a..b) of `p`'s first `orders` topological orders counted incrementally
/// (detail::runsEndingAt) against evaluateRootChild of the run in a variant of singletons
/// around it (what the dynamic programme counted before): the same time and fit.
void expectRunCostsAsCounted(const StencilProgram& p, const Hierarchy& h, size_t orders) {
  ASSERT_TRUE(detail::runCostsApply(h));
  size_t runs = 0;
  for (const std::vector<int>& order : topologicalOrders(p, orders)) {
    const size_t n = order.size();
    const detail::RootTiling base = detail::tileRoot(
        p, h,
        parseVariant(
            [&] {
              std::string t = "[";
              for (size_t i = 0; i < n; ++i)
                t += (i ? ",[" : "[") + p.stencils[static_cast<size_t>(order[i])].name + "]";
              return t + "]";
            }(),
            p, 2));
    for (size_t b = 1; b <= n; ++b) {
      const auto incremental = detail::runsEndingAt(p, h, base, order, b);
      ASSERT_EQ(incremental.size(), b);
      for (size_t a = 0; a < b; ++a) {
        Group v, run;
        for (size_t k = 0; k < a; ++k) v.children.push_back(Group{-1, {Group{order[k], {}}}});
        for (size_t k = a; k < b; ++k) run.children.push_back(Group{order[k], {}});
        v.children.push_back(run);
        for (size_t k = b; k < n; ++k) v.children.push_back(Group{-1, {Group{order[k], {}}}});
        const Evaluation e = evaluateRootChild(p, h, v, a);
        const ChildCounts& c = e.groups.front().children.front();
        bool fits = true;
        for (const GroupCounts& g : e.groups)
          if (g.level == 2) fits = g.fits;
        EXPECT_NEAR(incremental[a].first, c.time(), 1e-12 * c.time()) << c.text;
        EXPECT_EQ(incremental[a].second, fits) << c.text;
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 0u);
}

}  // namespace

// The dynamic programme's incremental run costs (modesto/run_costs.h) are the counting
// engine's: the horizontal diffusion in a memory where some runs fit and some do not, a chain
// on a tiled line, and a call with per-point scalars and an array written twice (fromCall's
// versions), each over several orders.
TEST(Modesto, IncrementalRunCostsAreTheCountedOnes) {
  Hierarchy h = twoLevels();
  h.levels[1].capacity = 1500;
  expectRunCostsAsCounted(horizontalDiffusion(), h, 4);
  Hierarchy line;
  line.levels = {{"DRAM", {0}, Halo::OnTheFly, 1e9, 0, 0},
                 {"shared", {4}, Halo::OnTheFly, 1e10, 0, 5}};
  line.compute = 1e9;
  expectRunCostsAsCounted(chain(), line, 4);
  tessel::test::Compiled c = tessel::test::compileText(R"(
parameter M=14, N=19;
iterator j, i;
double a[M,N], b[M,N], c[M,N], d[M,N];
copyin a, d;
stencil s (c, b, a, d) {
  double r;
  [1:M-2, 1:N-2] : b[j][i] = a[j-1][i] + a[j+1][i] + d[j][i-1];
  [1:M-2, 1:N-2] : b[j][i] += a[j][i];
  [2:M-3, 2:N-3] : r = b[j][i-1] * 2.0 + d[j+1][i];
  c[j][i] = r + b[j][i+1];
  [2:M-3, 2:N-3] : d[j][i] = 0.5 * d[j][i];
}
s (c, b, a, d);
copyout b, c, d;
)");
  ASSERT_TRUE(c.prog) << c.diagText();
  const StencilProgram versions = fromCall(*c.prog, c.prog->calls.at(0), {14, 19});
  Hierarchy small;
  small.levels = {{"DRAM", {0, 0}, Halo::OnTheFly, 1e11, 0, 0},
                  {"shared memory", {4, 8}, Halo::OnTheFly, 1e12, 1e12, 60}};
  small.compute = 1e12;
  expectRunCostsAsCounted(versions, small, 6);
}

/// A 2-D call reading an input at a fixed plane (a[0][i+1]) and a 1-D array along i (w[i],
/// w[i-1]), both inputs: read at absolute coordinates (Access::absolute).
namespace {

tessel::test::Compiled absoluteReads() {
  return tessel::test::compileText(R"(
parameter M=16, N=40;
iterator j, i;
double a[M,N], b[M,N], c[M,N], w[N];
copyin a, w;
stencil s (c, b, a, w) {
  [1:M-2, 1:N-2] : b[j][i] = w[i] * a[j][i] + a[0][i+1];
  [2:M-3, 2:N-3] : c[j][i] = b[j-1][i] + b[j+1][i] + w[i-1];
}
s (c, b, a, w);
copyout b, c;
)");
}

}  // namespace

// Inputs read at a fixed plane or with fewer subscripts than the call has iterators
// (hypterm's strx[i], fdtd2d's src[i]) are read at absolute coordinates: the coordinates their
// subscripts leave out are 0, a fixed plane is its own. Counted by hand, level 1 the untiled
// DRAM: b is evaluated on its declared region j in [1, 14] x i in [1, 38] (14 x 38 = 532
// points: it leaves the program), c on j in [2, 13] x i in [2, 37] (12 x 36). b alone loads
// a[j][i] (532 elements), a[0][i+1] (row 0, i in [2, 39]: 38 more) and w[i] (i in [1, 38]: 38):
// 608; c alone loads b on j in [1, 14] x i in [2, 37] (504) and w[i-1] (i in [1, 36]: 36): 540.
// Fused, w[i-1]'s elements are among w[i]'s: 608. Read relative to the point instead, w would
// count one element per point (532 and 432).
TEST(Modesto, InputsReadAtAbsoluteCoordinatesCountTheirElements) {
  const tessel::test::Compiled c = absoluteReads();
  ASSERT_TRUE(c.prog) << c.diagText();
  const StencilProgram p = fromCall(*c.prog, c.prog->calls.at(0), {16, 40});
  ASSERT_EQ(p.stencils.size(), 2u);
  const Access& plane = p.stencils[0].in.at(2);  // a[0][i+1]
  EXPECT_EQ(plane.field, "a");
  EXPECT_EQ(plane.offset, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(plane.absolute, (std::vector<bool>{true, false}));
  const Access& coefficient = p.stencils[1].in.at(2);  // w[i-1]
  EXPECT_EQ(coefficient.field, "w");
  EXPECT_EQ(coefficient.offset, (std::vector<int64_t>{0, -1}));
  EXPECT_EQ(coefficient.absolute, (std::vector<bool>{true, false}));
  Hierarchy h = twoLevels();
  h.levels[1].tile = {4, 8};
  const Evaluation split = evaluate(p, h, parseVariant("[[b],[c]]", p, 2));
  const GroupCounts& root = split.groups.front();
  ASSERT_EQ(root.children.size(), 2u);
  EXPECT_EQ(root.children[0].loads, 608);
  EXPECT_EQ(root.children[1].loads, 540);
  const Evaluation fused = evaluate(p, h, parseVariant("[[b,c]]", p, 2));
  EXPECT_EQ(fused.groups.front().children.at(0).loads, 608);
  // The dynamic programme's incremental counts agree with these (a level-2 capacity that
  // some runs exceed).
  h.levels[1].capacity = 90;
  expectRunCostsAsCounted(p, h, 2);
  // hypterm's 1-D strx[i] in its 3-D call: absolute along k and j, relative along i.
  const tessel::test::Compiled hyp = tessel::test::compileBenchmark("hypterm");
  ASSERT_TRUE(hyp.prog) << hyp.diagText();
  const StencilProgram hp = fromCall(*hyp.prog, hyp.prog->calls.at(0), {4, 5, 12});
  bool sawStrx = false;
  for (const Access& a : hp.stencils.at(0).in)
    if (a.field == "strx") {
      sawStrx = true;
      EXPECT_EQ(a.absolute, (std::vector<bool>{true, true, false}));
      EXPECT_EQ(a.offset, (std::vector<int64_t>{0, 0, 0}));
    }
  EXPECT_TRUE(sawStrx);
  // A computed field read so is refused by the program's check too.
  StencilProgram bad = p;
  bad.stencils[1].in[0].absolute = {true, false};
  EXPECT_THROW(validate(bad), std::invalid_argument);
}
