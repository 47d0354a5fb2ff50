// Defaults that always fit (fitSchedules, issue 9): a schedule that only settings nobody gave
// for the family in use keep from running is adapted, with a note; explicit settings are not.
#include <gtest/gtest.h>

#include <filesystem>

#include "model/machine.h"
#include "schedule/schedule.h"
#include "sten_test_util.h"

using namespace tessel;
using tessel::test::compileText;
namespace fs = std::filesystem;

namespace {

MachineDesc h100() {
  DiagnosticEngine d;
  auto m = loadMachine("h100", d, {fs::path(TESSEL_SOURCE_DIR) / "machines"});
  if (!m) throw std::runtime_error("cannot load the h100 machine");
  return *m;
}

ScheduleOptions options(const std::vector<std::pair<std::string, std::string>>& flags) {
  ScheduleOptions o;
  DiagnosticEngine d;
  for (auto& [f, v] : flags) EXPECT_TRUE(setScheduleOption(o, f, v, d)) << f << " " << v;
  return o;
}

// An order-2 3-D stencil, ping-ponged T times; %PRAGMA% before the stencil.
std::string order2(const std::string& pragma) {
  return "parameter L=40, M=40, N=40, T=8;\n"
         "iterator k, j, i;\n"
         "double a[L,M,N], b[L,M,N];\n"
         "copyin a, b;\n" +
         pragma +
         "\nstencil s (x, y) {\n"
         "  x[k][j][i] = 0.5*y[k][j][i] + 0.1*(y[k-2][j][i] + y[k+2][j][i] + y[k][j-2][i]\n"
         "             + y[k][j+2][i] + y[k][j][i-2] + y[k][j][i+2]);\n"
         "}\n"
         "iterate 1:T {\n  s (b, a);\n  s (a, b);\n}\ncopyout a;\n";
}

struct Built {
  std::optional<std::vector<Schedule>> schedules;
  DiagnosticEngine diags;
  std::string text() const {
    std::string s;
    for (auto& x : diags.diagnostics()) s += DiagnosticEngine::render(x);
    return s;
  }
  std::string notes() const {
    std::string s;
    if (schedules)
      for (auto& sc : *schedules)
        for (auto& a : sc.adjustments) s += a + "\n";
    return s;
  }
};

Built build(const Program& p, const ScheduleOptions& o, const MachineDesc& m = h100()) {
  Built b;
  b.schedules = buildSchedules(p, o, m, b.diags);
  return b;
}

int64_t threads(const std::vector<int64_t>& block) {
  int64_t t = 1;
  for (int64_t e : block) t *= e;
  return t;
}

}  // namespace

TEST(ScheduleFit, ASchedulesThatFitsIsLeftAsItIs) {
  auto c = compileText(order2(""));
  ASSERT_TRUE(c.prog) << c.diagText();
  auto b = build(*c.prog, options({{"--schedule", "overlapped"}}));
  ASSERT_TRUE(b.schedules) << b.text();
  EXPECT_EQ((*b.schedules)[0].block.value, (std::vector<int64_t>{16, 8, 4}));
  EXPECT_EQ(b.notes(), "");
}

// The default 16x8x4 block covers 4 points along k: no tile after the halo 2*2 of two steps.
TEST(ScheduleFit, TheDefaultOverlappedBlockAdaptsToTheHalo) {
  auto c = compileText(order2(""));
  ASSERT_TRUE(c.prog) << c.diagText();
  auto b = build(*c.prog, options({{"--schedule", "overlapped"}, {"--time-tile", "2"}}));
  ASSERT_TRUE(b.schedules) << b.text();
  const Schedule& s = (*b.schedules)[0];
  EXPECT_EQ(s.timeTile.value, 2);
  EXPECT_EQ(s.block.origin.kind, Origin::Kind::Default);
  EXPECT_NE(s.block.value, (std::vector<int64_t>{16, 8, 4}));
  EXPECT_LE(threads(s.block.value), 512);
  for (int64_t e : s.block.value) EXPECT_GT(e, 4) << "each extent must leave a tile";
  EXPECT_NE(b.notes().find("the default block (16, 8, 4) does not fit the 'overlapped' family"),
            std::string::npos)
      << b.notes();
  EXPECT_NE(b.notes().find("leaves no tile after the halo (4x4x4) of 2 fused steps"),
            std::string::npos)
      << b.notes();
}

// A pragma written for streaming does not make overlapped, chosen on the command line, fail.
TEST(ScheduleFit, APragmaBlockForAnotherFamilyGivesWayWithANote) {
  auto c = compileText(order2("#pragma stream k block (32, 16)"));
  ASSERT_TRUE(c.prog) << c.diagText();
  auto b = build(*c.prog, options({{"--schedule", "overlapped"}, {"--time-tile", "2"}}));
  ASSERT_TRUE(b.schedules) << b.text();
  const Schedule& s = (*b.schedules)[0];
  EXPECT_EQ(s.block.origin.kind, Origin::Kind::Default);
  EXPECT_NE(b.notes().find("'block (32, 16)' (test.sten:5:18) does not fit the 'overlapped' "
                           "family given on the command line"),
            std::string::npos)
      << b.notes();
  // Under the family it was written for, the pragma's block applies as it is.
  auto st = build(*c.prog, options({}));
  ASSERT_TRUE(st.schedules) << st.text();
  EXPECT_EQ((*st.schedules)[0].block.value, (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(st.notes(), "");
}

// The same under a family the performance model chose: the note says the model chose it.
TEST(ScheduleFit, APragmaBlockGivesWayToTheModelsFamilyWithANoteSayingSo) {
  auto c = compileText(order2("#pragma stream k block (32, 16)"));
  ASSERT_TRUE(c.prog) << c.diagText();
  auto b = build(*c.prog, options({{"--schedule", "overlapped"},
                                   {"--time-tile", "2"},
                                   {"--schedule-chosen-by", "--schedule auto"}}));
  ASSERT_TRUE(b.schedules) << b.text();
  const Schedule& s = (*b.schedules)[0];
  EXPECT_EQ(s.family.origin.kind, Origin::Kind::Model);
  EXPECT_EQ(describe(s.family.origin), "the performance model's choice (--schedule auto)");
  EXPECT_EQ(s.block.origin.kind, Origin::Kind::Default);
  EXPECT_NE(b.notes().find("'block (32, 16)' (test.sten:5:18) does not fit the 'overlapped' "
                           "family the performance model chose (--schedule auto)"),
            std::string::npos)
      << b.notes();
  EXPECT_EQ(b.notes().find("command line"), std::string::npos) << b.notes();
}

// An impossible block given explicitly for the family in use stays an error.
TEST(ScheduleFit, AnExplicitBlockIsNeverChanged) {
  auto c = compileText(order2(""));
  ASSERT_TRUE(c.prog) << c.diagText();
  auto b =
      build(*c.prog,
            options({{"--schedule", "overlapped"}, {"--time-tile", "2"}, {"--block", "16,8,4"}}));
  EXPECT_FALSE(b.schedules);
  EXPECT_NE(b.text().find("leaves no tile after the halo (4x4x4) of 2 fused steps"),
            std::string::npos)
      << b.text();
  // The same for a pragma's block under the family it names (no family on the command line).
  auto p = compileText(order2("#pragma stream k block (8, 4)"));
  ASSERT_TRUE(p.prog) << p.diagText();
  auto pb = build(*p.prog, options({{"--time-tile", "4"}}));
  EXPECT_FALSE(pb.schedules);
  EXPECT_NE(pb.text().find("leaves no tile"), std::string::npos) << pb.text();
}

// Eight steps of an order-2 stencil need a halo of 14 on each side: no block of at most 1024
// threads leaves a tile, so fewer steps are fused.
TEST(ScheduleFit, FewerStepsAreFusedWhenNoBlockLeavesATile) {
  auto c = compileText(order2(""));
  ASSERT_TRUE(c.prog) << c.diagText();
  auto b = build(*c.prog, options({{"--schedule", "overlapped"}, {"--time-tile", "8"}}));
  ASSERT_TRUE(b.schedules) << b.text();
  const Schedule& s = (*b.schedules)[0];
  EXPECT_LT(s.timeTile.value, 8);
  EXPECT_GE(s.timeTile.value, 2);
  EXPECT_NE(b.notes().find("leaves a tile after the halo of 8 fused steps"), std::string::npos)
      << b.notes();
  EXPECT_NE(b.notes().find(fmt::format("{} steps are fused instead", s.timeTile.value)),
            std::string::npos)
      << b.notes();
}

// The default shared block staged over a machine with less shared memory: it shrinks (no more
// threads than the default) instead of being refused; an explicit block is refused.
TEST(ScheduleFit, TheDefaultSharedBlockShrinksToTheSharedMemory) {
  auto c = compileText(order2(""));
  ASSERT_TRUE(c.prog) << c.diagText();
  MachineDesc small = h100();
  // The default 32x4x4 tile with its halo: 36x8x8 doubles, 18,432 B; the limit a block may
  // opt in to (sharedPerBlockMax) is what counts.
  small.memory.sharedPerBlock = 8000;
  small.memory.sharedPerBlockOptin = 8000;
  auto b = build(*c.prog, options({{"--schedule", "shared"}}), small);
  ASSERT_TRUE(b.schedules) << b.text();
  const Schedule& s = (*b.schedules)[0];
  EXPECT_LT(threads(s.block.value), 32 * 4 * 4);
  EXPECT_NE(b.notes().find("the default block (32, 4, 4) does not fit the 'shared' family"),
            std::string::npos)
      << b.notes();
  auto e = build(*c.prog, options({{"--schedule", "shared"}, {"--block", "32,4,4"}}), small);
  EXPECT_FALSE(e.schedules);
  EXPECT_NE(e.text().find("8000"), std::string::npos) << e.text();
}
