// The tile-region analysis (analysis/tile_regions.h) against the papers' worked examples and
// hand derivations. Tile coordinates: the output tile is [0, l-1] along each dimension.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/tile_regions.h"
#include "unit/sten_test_util.h"

namespace tessel {
namespace {

using test::Compiled;
using test::compileText;

Compiled compiled(const std::string& text) {
  Compiled c = compileText(text);
  EXPECT_TRUE(c.prog.has_value()) << c.diagText();
  return c;
}

Compiled benchmark(const std::string& name) { return test::compileBenchmark(name); }

/// lo..hi along one dimension of a box.
std::pair<int64_t, int64_t> span(const Box& b, size_t d) { return {b.lo.at(d), b.hi.at(d)}; }
using Span = std::pair<int64_t, int64_t>;

// Paper 001, section 4.2: fA(B)[1..N-2] = B[-1] + B[0]; fB(A)[1..N-2] = A[0] + A[1]; T = 3.
const char* kPaper1D = R"(
parameter N=64;
iterator i;
double A[N], B[N];
copyin A, B;
stencil fA (A, B) { A[i] = B[i-1] + B[i]; }
stencil fB (B, A) { B[i] = A[i] + A[i+1]; }
iterate 1:3 {
  [1:N-2] : fA (A, B);
  [1:N-2] : fB (B, A);
}
)";

TEST(TileRegions, Paper001OneDimensionalTwoStencilsT3) {
  Compiled c = compiled(kPaper1D);
  const Program& p = *c.prog;
  // Three time steps of the body {fA, fB}: six stages. Tile (x0, l0) = (0, 10).
  TileAnalysis a = analyzeTile(p, fuseCalls(p, {0, 1}, 6), {{10}, -1, std::nullopt});
  ASSERT_TRUE(a.supported);
  ASSERT_EQ(a.stages.size(), 6u);
  // Derivation, backwards (paper: "we start by assigning (x0, l0) to grid B"):
  //   step 3 fB computes B on (x0, l0)        = 0..9;  it reads A[0], A[1] -> A on (x0, l0+1)
  //   step 3 fA computes A on (x0, l0+1)      = 0..10; it reads B[-1], B[0] -> B on (x0-1, l0+2)
  //   step 2 fB computes B on (x0-1, l0+2)    = -1..10 -> A on (x0-1, l0+3)
  //   step 2 fA computes A on (x0-1, l0+3)    = -1..11 -> B on (x0-2, l0+4)
  //   step 1 fB computes B on (x0-2, l0+4)    = -2..11 (the paper's final B region)
  //   step 1 fA computes A on (x0-2, l0+5)    = -2..12 (the paper's final A region)
  //   and reads B from global memory on (x0-3, l0+6) = -3..12.
  EXPECT_EQ(span(a.stages[5].region, 0), Span(0, 9));
  EXPECT_EQ(span(a.stages[4].region, 0), Span(0, 10));
  EXPECT_EQ(span(a.stages[3].region, 0), Span(-1, 10));
  EXPECT_EQ(span(a.stages[2].region, 0), Span(-1, 11));
  EXPECT_EQ(span(a.stages[1].region, 0), Span(-2, 11));
  EXPECT_EQ(span(a.stages[0].region, 0), Span(-2, 12));
  ASSERT_EQ(a.inputs.size(), 1u);
  EXPECT_EQ(p.arrays[static_cast<size_t>(a.inputs[0].array)].name, "B");
  EXPECT_EQ(span(a.inputs[0].footprint, 0), Span(-3, 12));
  EXPECT_EQ(a.inputs[0].points, 16);
  // Points: 15 + 14 + 13 + 12 + 11 + 10 = 75 computed for 10 outputs; each stage owns 10 points
  // of the tile, so 75 - 6*10 = 15 are redundant (20.0% of the computed points).
  EXPECT_EQ(a.totals.computed, 75);
  EXPECT_EQ(a.totals.redundant, 15);
  EXPECT_NEAR(a.totals.redundancyPercent, 20.0, 1e-9);
}

// Paper 004, section II: an 8x8x8 block, two time steps of an order-1 3-D stencil: 10^3 points
// in the first step (488 of them redundant) and a 12^3 input footprint for 8^3 outputs.
const char* kPaper3D = R"(
parameter L=32, M=32, N=32;
iterator k, j, i;
double in[L,M,N], out[L,M,N];
copyin in, out;
stencil s7 (out, in) {
  out[k][j][i] = in[k][j][i] + in[k-1][j][i] + in[k+1][j][i] + in[k][j-1][i]
               + in[k][j+1][i] + in[k][j][i-1] + in[k][j][i+1];
}
s7 (out, in);
s7 (in, out);
)";

TEST(TileRegions, Paper004ThreeDimensionalTwoSteps) {
  Compiled c = compiled(kPaper3D);
  const Program& p = *c.prog;
  TileAnalysis a = analyzeTile(p, fuseCallRange(p, 0, 2), {{8, 8, 8}, -1, std::nullopt});
  ASSERT_EQ(a.stages.size(), 2u);
  // Step 2 computes the 8^3 tile; it reads out at +-1, so step 1 computes 10^3 = 1000 points,
  // of which 1000 - 512 = 488 lie outside the tile; step 1 reads in at +-1: 12^3 = 1728.
  EXPECT_EQ(a.stages[1].points, 512);
  EXPECT_EQ(a.stages[1].redundant, 0);
  EXPECT_EQ(a.stages[0].points, 1000);
  EXPECT_EQ(a.stages[0].redundant, 488);
  for (size_t d = 0; d < 3; ++d) EXPECT_EQ(span(a.stages[0].region, d), Span(-1, 8));
  ASSERT_EQ(a.inputs.size(), 1u);
  EXPECT_EQ(a.inputs[0].points, 1728);
  EXPECT_EQ(a.totals.tilePoints, 512);
  EXPECT_EQ(a.totals.computed, 1512);
  EXPECT_EQ(a.totals.redundant, 488);
  // Buffers: the input (12^3) and step 1's result (10^3), both read at offsets: shared.
  // (1728 + 1000) * 8 bytes = 21,824.
  EXPECT_EQ(a.totals.sharedBytes, 21824);
  EXPECT_NEAR(a.totals.loadsPerPoint, 1728.0 / 512.0, 1e-12);
  EXPECT_EQ(a.totals.storesPerPoint, 2);  // in and out are both results
  // One buffer per value: in over 12^3 (read by step 1 before step 2 writes it: all loaded),
  // out over 10^3, which step 1 writes before anything reads it: nothing to load.
  ASSERT_EQ(a.hulls.size(), 2u);
  EXPECT_EQ(a.hulls[0].elements, 1000);  // out, written first
  EXPECT_EQ(a.hulls[0].firstWriter, 0);
  EXPECT_EQ(a.hulls[0].loads, 0);
  EXPECT_EQ(a.hulls[1].elements, 1728);
  EXPECT_EQ(a.hulls[1].firstWriter, -1);
  EXPECT_EQ(a.hulls[1].loads, 1728);
  EXPECT_EQ(a.totals.sharedBytesHulls, 21824);
}

// j3d7pt (benchmarks/j3d7pt.sten): ping-pong, order-1 star, 32x32 tile in (j, i), k streamed,
// T = 4 steps. Per plane the stages compute (32+2*3)^2, (32+2*2)^2, (32+2*1)^2, 32^2 points.
TEST(TileRegions, J3d7ptStreamedTile32T4) {
  Compiled c = benchmark("j3d7pt");
  const Program& p = *c.prog;
  FusedSequence seq = fuseCalls(p, {0, 1}, 4);
  TileAnalysis a = analyzeTile(p, seq, {{1, 32, 32}, 0, std::nullopt});
  ASSERT_EQ(a.stages.size(), 4u);
  const int64_t pts[] = {38 * 38, 36 * 36, 34 * 34, 32 * 32};  // 1444, 1296, 1156, 1024
  const int64_t lead[] = {3, 2, 1, 0};                         // planes ahead of the output plane
  for (size_t s = 0; s < 4; ++s) {
    EXPECT_EQ(a.stages[s].points, pts[s]) << s;
    EXPECT_EQ(a.stages[s].redundant, pts[s] - 1024) << s;
    EXPECT_EQ(a.stages[s].lead, lead[s]) << s;
  }
  // 1444 + 1296 + 1156 + 1024 = 4920 computed per plane, 4920 - 4*1024 = 824 redundant:
  // redundancy = redundant / computed = 824 / 4920 = 16.75%.
  EXPECT_EQ(a.totals.computed, 4920);
  EXPECT_EQ(a.totals.redundant, 824);
  EXPECT_NEAR(a.totals.redundancyPercent, 100.0 * 824 / 4920, 1e-9);
  ASSERT_EQ(a.inputs.size(), 1u);
  EXPECT_EQ(a.inputs[0].points, 40 * 40);  // 1600 per plane, 4 planes ahead
  EXPECT_EQ(span(a.inputs[0].footprint, 0), Span(-4, 4));
  // Shared: 3 planes (2r+1, r = 1) of each stage result read later (stages 1-3; stage 4 goes
  // to global memory), and of the input a spare plane more (its next plane loads there while
  // the current ones are read): (4 * 1600 + 3 * (1444 + 1296 + 1156)) * 8 = 144,704 bytes.
  EXPECT_EQ(a.buffers.size(), 4u);
  for (auto& b : a.buffers) {
    EXPECT_TRUE(b.shared);
    EXPECT_EQ(b.window, 3);
    EXPECT_EQ(b.planes, b.producer < 0 ? 4 : 3);
  }
  EXPECT_EQ(a.totals.sharedBytes, 144704);
  // Without the spare plane (Schedule::sparePlane off): 3 * (1600 + 1444 + 1296 + 1156) * 8.
  EXPECT_EQ(analyzeTile(p, seq, {{1, 32, 32}, 0, std::nullopt, false}).totals.sharedBytes, 131904);
  EXPECT_NEAR(a.totals.loadsPerPoint, 1600.0 / 1024.0, 1e-12);

  // As a 32x32 thread block covering stage 1's region: tile 32 - 2*1*(4-1) = 26.
  auto t = tileForBlock(p, seq, {1, 32, 32}, 0);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ((*t)[1], 26);
  EXPECT_EQ((*t)[2], 26);
  TileAnalysis b = analyzeTile(p, seq, {*t, 0, std::nullopt});
  // 32^2 + 30^2 + 28^2 + 26^2 = 1024 + 900 + 784 + 676 = 3384; 3384 - 4*676 = 680 redundant.
  EXPECT_EQ(b.totals.computed, 3384);
  EXPECT_EQ(b.totals.redundant, 680);
  // (4 * 34^2 + 3 * (32^2 + 30^2 + 28^2)) * 8 = (4624 + 3 * 2708) * 8 = 101,984 bytes; without
  // the input's spare plane 3 * (1156 + 1024 + 900 + 784) * 8 = 92,736 (issue 11's figure).
  EXPECT_EQ(b.totals.sharedBytes, 101984);
  EXPECT_EQ(analyzeTile(p, seq, {*t, 0, std::nullopt, false}).totals.sharedBytes, 92736);
  // A block no larger than the halo (6) leaves no tile.
  EXPECT_FALSE(tileForBlock(p, seq, {1, 6, 32}, 0).has_value());
  EXPECT_EQ(accumulatedHalo(p, seq, 0), (std::vector<int64_t>{0, 6, 6}));
  std::string text = describe(b, p);
  EXPECT_NE(text.find("3384 points computed per plane"), std::string::npos) << text;
  EXPECT_NE(text.find("101984 bytes"), std::string::npos) << text;
}

// cosmo-hdiff: four statements, three local intermediates. Tile 4x8x8 (k, j, i), T = 1.
TEST(TileRegions, CosmoHdiffMultiStatement) {
  Compiled c = benchmark("cosmo-hdiff");
  const Program& p = *c.prog;
  TileAnalysis a = analyzeTile(p, fuseCallRange(p, 0, 1), {{4, 8, 8}, -1, std::nullopt});
  ASSERT_TRUE(a.supported);
  ASSERT_EQ(a.stages.size(), 4u);
  // Backwards: out on the tile reads fli[i-1], fli[i] (fli: j 0..7, i -1..7) and flj[j-1],
  // flj[j] (flj: j -1..7, i 0..7). fli reads lap[i+1], lap[i] (j 0..7, i -1..8); flj reads
  // lap[j+1], lap[j] (j -1..8, i 0..7): lap's hull is j -1..8, i -1..8, so lap reads `in` at
  // +-1 on j -2..9, i -2..9. k is never offset: 0..3 throughout.
  EXPECT_EQ(span(a.stages[3].region, 2), Span(0, 7));
  EXPECT_EQ(span(a.stages[1].region, 1), Span(0, 7));
  EXPECT_EQ(span(a.stages[1].region, 2), Span(-1, 7));
  EXPECT_EQ(span(a.stages[2].region, 1), Span(-1, 7));
  EXPECT_EQ(span(a.stages[2].region, 2), Span(0, 7));
  EXPECT_EQ(span(a.stages[0].region, 1), Span(-1, 8));
  EXPECT_EQ(span(a.stages[0].region, 2), Span(-1, 8));
  EXPECT_EQ(span(a.stages[0].region, 0), Span(0, 3));
  // lap 4*10*10 = 400, fli and flj 4*8*9 = 288 each, out 256: 1232 points, 1232 - 4*256 = 208
  // redundant.
  EXPECT_EQ(a.totals.computed, 1232);
  EXPECT_EQ(a.totals.redundant, 208);
  // Inputs: in on 4*12*12 = 576 points, wgt on the tile (256, read at its centre only).
  ASSERT_EQ(a.inputs.size(), 2u);
  EXPECT_EQ(a.inputs[0].points + a.inputs[1].points, 576 + 256);
  EXPECT_NEAR(a.totals.loadsPerPoint, (576.0 + 256.0) / 256.0, 1e-12);
  EXPECT_EQ(a.totals.storesPerPoint, 1);  // only out: the intermediates are local
  bool wgtInRegisters = false;
  for (auto& b : a.buffers)
    if (b.producer < 0 && valueName(p, a.seq, b.value) == "wgt") wgtInRegisters = !b.shared;
  EXPECT_TRUE(wgtInRegisters);
}

// Every benchmark, each call alone and (where the body repeats) several steps: no crash, and
// every result array's writers cover the tile.
TEST(TileRegions, EveryBenchmarkAnalyses) {
  for (const char* name :
       {"cheby", "cosmo-hdiff", "denoise", "fdtd2d", "gaussian", "gradient", "heat", "helmholtz",
        "hypterm", "j2d5pt", "j2d9pt-gol", "j2d9pt", "j3d13pt", "j3d17pt", "j3d27pt", "j3d7pt",
        "jacobi1d-boundary", "poisson"}) {
    SCOPED_TRACE(name);
    Compiled c = benchmark(name);
    const Program& p = *c.prog;
    std::vector<int64_t> tile(static_cast<size_t>(p.dims()), 4);
    std::vector<int> all;
    for (size_t k = 0; k < p.calls.size(); ++k) all.push_back(static_cast<int>(k));
    for (int steps : {1, 3}) {
      TileAnalysis a = analyzeTile(p, fuseCalls(p, all, steps * static_cast<int>(all.size())),
                                   {tile, -1, std::nullopt});
      EXPECT_TRUE(a.supported) << a.whyNot;
      EXPECT_GT(a.totals.computed, 0);
      for (auto& s : a.stages) {
        if (s.writes.kind != TileValue::Kind::Global) continue;
        for (size_t d = 0; d < tile.size(); ++d) {
          EXPECT_LE(s.region.lo[d], 0);
          EXPECT_GE(s.region.hi[d], 3);
        }
      }
      EXPECT_FALSE(describe(a, p).empty());
    }
  }
}

// denoise: two calls (diffusivity writes g, rician reads g at offsets) and a local scalar
// assigned twice; hypterm: five statements, 1-D coefficient array strx[i].
TEST(TileRegions, DenoiseAndHypterm) {
  Compiled d = benchmark("denoise");
  const Program& p = *d.prog;
  TileAnalysis a = analyzeTile(p, fuseCallRange(p, 0, 2), {{8, 8, 8}, -1, std::nullopt});
  ASSERT_EQ(a.stages.size(), 4u);  // g; r; r; unew
  // unew on the tile reads g at +-1: diffusivity computes g on 10^3 and reads u at +-1.
  EXPECT_EQ(a.stages[0].points, 1000);
  EXPECT_EQ(a.stages[3].points, 512);
  // The local scalar r (two stages) is read at its centre only: a register buffer.
  for (auto& b : a.buffers) {
    if (b.value.kind == TileValue::Kind::LocalScalar) {
      EXPECT_FALSE(b.shared);
    }
  }

  Compiled h = benchmark("hypterm");
  const Program& q = *h.prog;
  TileAnalysis b = analyzeTile(q, fuseCallRange(q, 0, 1), {{2, 4, 16}, -1, std::nullopt});
  ASSERT_EQ(b.stages.size(), 5u);
  for (auto& s : b.stages) EXPECT_EQ(s.points, 2 * 4 * 16);  // no stage reads another's result
  EXPECT_EQ(b.totals.redundant, 0);
  for (auto& in : b.inputs) {
    const std::string& n = q.arrays[static_cast<size_t>(in.array)].name;
    if (n == "strx") {
      EXPECT_EQ(in.points, 16);  // strx[i]: one point per (k, j)
    } else if (n == "mx") {
      EXPECT_EQ(in.points, 2 * 4 * 24);  // read at i-4..i+4
    }
  }
}

TEST(TileRegions, FixedPlaneOfProducedValueIsNotFusable) {
  Compiled c = compiled(R"(
parameter M=16, N=16;
iterator j, i;
double a[M,N], b[M,N], d[M,N];
copyin a;
stencil s (d, b, a) {
  b[j][i] = a[j][i];
  d[j][i] = b[0][i];
}
s (d, b, a);
)");
  const Program& p = *c.prog;
  TileAnalysis a = analyzeTile(p, fuseCallRange(p, 0, 1), {{4, 4}, -1, std::nullopt});
  EXPECT_FALSE(a.supported);
  EXPECT_NE(a.whyNot.find("fixed plane of 'b'"), std::string::npos) << a.whyNot;
}

TEST(TileRegions, ResultsDecideWhatMustCoverTheTile) {
  Compiled c = compiled(kPaper3D);
  const Program& p = *c.prog;
  // Only `in` is a result: step 1 (out) is needed on 10^3 for step 2 anyway.
  TileAnalysis a = analyzeTile(p, fuseCallRange(p, 0, 2), {{8, 8, 8}, -1, std::vector<int>{0}});
  EXPECT_EQ(a.totals.storesPerPoint, 1);
  EXPECT_EQ(a.stages[0].points, 1000);
  // Only `out` is a result: step 2 (writes in) is not needed at all.
  TileAnalysis b = analyzeTile(p, fuseCallRange(p, 0, 2), {{8, 8, 8}, -1, std::vector<int>{1}});
  EXPECT_TRUE(b.stages[1].region.empty);
  EXPECT_EQ(b.stages[0].points, 512);
}

// Values in registers (TileHull::inRegisters, TileSpec::registerValues): heat's Laplacian at
// T = 2, once per step, is
// read only at the centre by the next statement, which computes it in its own loop: the
// overlapped kernel's tiles are u1's and u0's, not lap's: 12,736 bytes instead of 18,176 for the
// 2x6x14 tile of the default block.
TEST(TileRegions, CentreOnlyValuesOfOneReaderAreComputedInItsLoop) {
  Compiled heat = benchmark("heat");
  const Program& hp = *heat.prog;
  TileSpec on{{2, 6, 14}, -1, std::nullopt};
  on.registerValues = true;
  TileAnalysis h = analyzeTile(hp, fuseCalls(hp, {0, 1}, 2), on);
  ASSERT_EQ(h.stages.size(), 4u);
  EXPECT_EQ(h.stages[0].computedIn, 1);
  EXPECT_EQ(h.stages[1].computedIn, -1);
  EXPECT_EQ(h.stages[2].computedIn, 3);
  int64_t all = 0, shared = 0;
  for (const TileHull& hull : h.hulls) {
    all += hull.bytes;
    if (!hull.inRegisters) shared += hull.bytes;
    EXPECT_EQ(hull.inRegisters, hull.value.kind == TileValue::Kind::LocalArray);
  }
  EXPECT_EQ(all, 18176);
  EXPECT_EQ(shared, 12736);
  EXPECT_EQ(h.totals.sharedBytesHulls, 12736);
  // Off (the default), every value keeps its tile.
  TileAnalysis kept = analyzeTile(hp, fuseCalls(hp, {0, 1}, 2), {{2, 6, 14}, -1, std::nullopt});
  for (const TileStage& st : kept.stages) EXPECT_EQ(st.computedIn, -1);
  EXPECT_EQ(kept.totals.sharedBytesHulls, 18176);
  // Streamed, the per-stage buffers decide (TileBuffer::shared): nothing is moved.
  TileSpec streamedOn{{1, 6, 14}, 0, std::nullopt};
  streamedOn.registerValues = true;
  TileAnalysis streamed = analyzeTile(hp, fuseCalls(hp, {0, 1}, 2), streamedOn);
  for (const TileStage& st : streamed.stages) EXPECT_EQ(st.computedIn, -1);

  // A chain (t read only by u, u only by q's statement) moves into the last reader's loop; a
  // value read at an offset (q), or whose writer reads what a stage up to its reader writes (w
  // reads b, which stage 4 writes before stage 5 reads w), keeps its tile.
  Compiled c = compiled(R"(
parameter M=16, N=16;
iterator j, i;
double a[M,N], b[M,N], e[M,N];
copyin a, b;
stencil s (e, b, a) {
  double t, u, w;
  double q[M,N];
  t = a[j][i] * 2.0;
  u = t + a[j][i+1];
  w = b[j][i] + 1.0;
  q[j][i] = u * 3.0;
  b[j][i] = a[j][i] - 1.0;
  e[j][i] = q[j][i-1] + q[j][i] + w + b[j][i];
}
s (e, b, a);
)");
  const Program& p = *c.prog;
  TileSpec spec{{4, 8}, -1, std::nullopt};
  spec.registerValues = true;
  TileAnalysis a = analyzeTile(p, fuseCallRange(p, 0, 1), spec);
  ASSERT_TRUE(a.supported);
  ASSERT_EQ(a.stages.size(), 6u);
  std::vector<int> in;
  for (const TileStage& st : a.stages) in.push_back(st.computedIn);
  EXPECT_EQ(in, (std::vector<int>{3, 3, -1, -1, -1, -1}));
  int registers = 0;
  for (const TileHull& hull : a.hulls) registers += hull.inRegisters ? 1 : 0;
  EXPECT_EQ(registers, 2);

  // A chain: m's three writers (the first plain, the others reading it at the centre) move
  // into their one reader's loop together; w, read by two statements, stays.
  Compiled chain = compiled(R"(
parameter M=16, N=16;
iterator j, i;
double a[M,N], e[M,N];
copyin a, e;
stencil s (inout:e, a) {
  double m, w;
  m = a[j][i] * 0.5;
  [2:M-3, 2:N-3] : m += a[j][i+1];
  [3:M-4, 4:N-5] : m = m * 3.0 - a[j-1][i];
  w = a[j][i] + 1.0;
  [1:M-2, 1:N-2] : e[j][i] = m * 2.0 + w;
  [1:M-2, 1:N-2] : e[j][i] += w;
}
s (e, a);
)");
  const Program& cp = *chain.prog;
  TileAnalysis ch = analyzeTile(cp, fuseCallRange(cp, 0, 1), spec);
  std::vector<int> chainIn;
  for (const TileStage& st : ch.stages) chainIn.push_back(st.computedIn);
  EXPECT_EQ(chainIn, (std::vector<int>{4, 4, 4, -1, -1, -1}));
  ASSERT_EQ(ch.registerCandidates.size(), 1u);
  EXPECT_EQ(ch.registerCandidates[0].kind, TileValue::Kind::LocalScalar);
}

TEST(TileRegions, RejectsBadTiles) {
  Compiled c = compiled(kPaper3D);
  const Program& p = *c.prog;
  EXPECT_THROW(analyzeTile(p, fuseCallRange(p, 0, 1), {{8, 8}, -1, std::nullopt}),
               std::invalid_argument);
  EXPECT_THROW(analyzeTile(p, fuseCallRange(p, 0, 1), {{8, 0, 8}, -1, std::nullopt}),
               std::invalid_argument);
  EXPECT_THROW(fuseCallRange(p, 1, 2), std::invalid_argument);
  EXPECT_THROW(fuseCalls(p, {0}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tessel
