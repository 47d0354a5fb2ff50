// The staging analysis (analysis/staging.h): what each statement stages under `shared` and
// `stream`, the plane windows, and which planes live in registers and which in shared memory,
// for j2d5pt, j3d7pt, j3d27pt (diagonals: every plane in shared memory) and heat (two
// statements, the second reading only centres).
#include <gtest/gtest.h>

#include "analysis/staging.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

Parsed bench(const std::string& name) {
  return parseFile(fs::path(TESSEL_SOURCE_DIR) / "benchmarks" / (name + ".sten"));
}

StmtStaging plan(const Program& prog, int stmt, std::vector<int64_t> tile, int stream,
                 int call = 0) {
  const CallInst& c = prog.calls.at(call);
  return planStaging(prog, c, c.stmts.at(stmt), tile, stream);
}

}  // namespace

TEST(Staging, J2d5ptSharedTileAndStreamPlanes) {
  Parsed p = bench("j2d5pt");
  ASSERT_TRUE(p.prog);
  // shared, 32x8 threads: one tile of `in` with a halo of 1 on every side.
  StmtStaging s = plan(*p.prog, 0, {8, 32}, -1);
  ASSERT_EQ(s.groups.size(), 1u);
  const StagePlan& g = s.groups[0];
  EXPECT_EQ(g.group.name, "in");
  EXPECT_EQ(g.group.refs.size(), 5u);
  EXPECT_EQ(g.kind, StageKind::Tile);
  EXPECT_EQ(g.extent, (std::vector<int64_t>{10, 34}));
  EXPECT_EQ(g.first, (std::vector<int64_t>{-1, -1}));
  EXPECT_EQ(s.sharedBytes, 10 * 34 * 8);
  EXPECT_EQ(s.registerPlanes, 0);

  // stream j, 32 threads: rows j-1 and j+1 are read only at their centre (registers), row j
  // at i-1, i, i+1 (one shared row of 34).
  StmtStaging t = plan(*p.prog, 0, {1, 32}, 0);
  ASSERT_EQ(t.groups.size(), 1u);
  const StagePlan& h = t.groups[0];
  EXPECT_EQ(h.kind, StageKind::Planes);
  EXPECT_EQ(h.streamPos, 0);
  EXPECT_EQ(h.planeInShared, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(h.regLo, -1);
  EXPECT_EQ(h.regHi, 1);
  EXPECT_EQ(h.sharedLo, 0);
  EXPECT_EQ(h.sharedHi, 0);
  EXPECT_EQ(h.sharedPlanes(), 1);
  EXPECT_EQ(h.extent, (std::vector<int64_t>{1, 34}));
  EXPECT_EQ(t.sharedBytes, 2 * 34 * 8);  // one plane in a ring of two slots
  EXPECT_EQ(t.registerPlanes, 3);
}

TEST(Staging, J3d7ptCentrePlanesInRegistersMiddlePlaneShared) {
  Parsed p = bench("j3d7pt");
  ASSERT_TRUE(p.prog);
  StmtStaging t = plan(*p.prog, 0, {1, 8, 32}, 0);
  ASSERT_EQ(t.groups.size(), 1u);  // in; c0 and c1 are scalars
  const StagePlan& h = t.groups[0];
  EXPECT_EQ(h.kind, StageKind::Planes);
  EXPECT_EQ(h.planeInShared, (std::vector<bool>{false, true, false}));  // k-1, k, k+1
  EXPECT_EQ(h.registerPlanes(), 3);  // the shift register k-1..k+1 (k carries k-1's value)
  EXPECT_EQ(h.sharedPlanes(), 1);
  EXPECT_EQ(h.extent, (std::vector<int64_t>{1, 10, 34}));
  EXPECT_EQ(t.sharedBytes, 2 * 10 * 34 * 8);  // one plane, two slots
  // The schedule's block (32, 16) streamed along k.
  EXPECT_EQ(plan(*p.prog, 0, {1, 16, 32}, 0).sharedBytes, 2 * 18 * 34 * 8);
  // shared, 32x4x4: a 6x6x34 tile.
  StmtStaging s = plan(*p.prog, 0, {4, 4, 32}, -1);
  EXPECT_EQ(s.groups[0].kind, StageKind::Tile);
  EXPECT_EQ(s.groups[0].extent, (std::vector<int64_t>{6, 6, 34}));
  EXPECT_EQ(s.sharedBytes, 6 * 6 * 34 * 8);
  // Streamed along j instead: planes j-1, j+1 in registers, j (k and i offsets) shared.
  StmtStaging j = plan(*p.prog, 0, {8, 1, 32}, 1);
  EXPECT_EQ(j.groups[0].streamPos, 1);
  EXPECT_EQ(j.groups[0].extent, (std::vector<int64_t>{10, 1, 34}));
  EXPECT_EQ(j.groups[0].planeInShared, (std::vector<bool>{false, true, false}));
}

TEST(Staging, J3d27ptReadsDiagonalsSoEveryPlaneIsShared) {
  Parsed p = bench("j3d27pt");
  ASSERT_TRUE(p.prog);
  StmtStaging t = plan(*p.prog, 0, {1, 8, 32}, 0);
  ASSERT_EQ(t.groups.size(), 1u);
  const StagePlan& h = t.groups[0];
  EXPECT_EQ(h.group.refs.size(), 27u);
  EXPECT_EQ(h.planeInShared, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(h.registerPlanes(), 0);
  EXPECT_EQ(h.sharedLo, -1);
  EXPECT_EQ(h.sharedHi, 1);
  EXPECT_EQ(h.sharedPlanes(), 3);             // 2r+1 rotating shared planes
  EXPECT_EQ(t.sharedBytes, 4 * 10 * 34 * 8);  // three planes, four slots
  EXPECT_EQ(t.registerPlanes, 0);
}

TEST(Staging, HeatStagesTheLaplacianInputOnlyAndReadsCentresFromGlobal) {
  Parsed p = bench("heat");
  ASSERT_TRUE(p.prog);
  // Statement 1: lap = 7-point Laplacian of in: like j3d7pt.
  StmtStaging a = plan(*p.prog, 0, {1, 16, 32}, 0);
  ASSERT_EQ(a.groups.size(), 1u);
  EXPECT_EQ(a.groups[0].group.name, "u0");  // the actual array of call 0's `in`
  EXPECT_EQ(a.groups[0].kind, StageKind::Planes);
  EXPECT_EQ(a.sharedBytes, 2 * 18 * 34 * 8);
  // Statement 2: out = in + r*lap, both at their centre: nothing staged, under either family.
  for (int stream : {0, -1}) {
    StmtStaging b = plan(*p.prog, 1, {4, 4, 32}, stream);
    ASSERT_EQ(b.groups.size(), 2u);
    for (auto& g : b.groups) EXPECT_EQ(g.kind, StageKind::Global) << g.group.name;
    EXPECT_EQ(b.sharedBytes, 0);
    EXPECT_EQ(b.registerPlanes, 0);
  }
  // Call 1 swaps the arrays: it stages u1.
  EXPECT_EQ(plan(*p.prog, 0, {1, 16, 32}, 0, 1).groups[0].group.name, "u1");
}

TEST(Staging, GroupsSplitByConstantSubscriptsAndLowerRankArrays) {
  Parsed p = parse(R"(
parameter M=8, N=8;
iterator j, i;
double a[M,N], b[M,N], c[N];
copyin a, c;
stencil s (b, a, c) {
  b[j][i] = a[0][i-1] + a[0][i+1] + a[1][i] + a[j][i] + c[i-2] + c[i];
}
s (b, a, c);
)");
  ASSERT_TRUE(p.prog);
  StmtStaging t = plan(*p.prog, 0, {1, 32}, 0);
  ASSERT_EQ(t.groups.size(), 4u);
  // a[0][i+-1]: a row, staged once (no streamed subscript); a[1][i] and a[j][i]: centres.
  EXPECT_EQ(t.groups[0].group.fixed, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(t.groups[0].kind, StageKind::Tile);
  EXPECT_EQ(t.groups[0].extent, (std::vector<int64_t>{1, 34}));
  EXPECT_EQ(t.groups[1].kind, StageKind::Global);
  EXPECT_EQ(t.groups[2].kind, StageKind::Global);
  // c[i-2], c[i]: a 1-D tile of 34 starting at i-2.
  EXPECT_EQ(t.groups[3].kind, StageKind::Tile);
  EXPECT_EQ(t.groups[3].extent, (std::vector<int64_t>{34}));
  EXPECT_EQ(t.groups[3].first, (std::vector<int64_t>{-2}));
  EXPECT_EQ(t.sharedBytes, 2 * 34 * 8);
}
