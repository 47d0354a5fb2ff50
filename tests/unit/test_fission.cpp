// Kernel fission (analysis/fission.h; issue 13, paper 000 section VI-B): trivial fission makes a
// kernel per global output with the temporaries it needs, shared temporaries replicated (paper
// 000 Figure 3's rhs4center: three sub-kernels), and refuses a split that would change what a
// statement reads; the split program (splitProgram) replaces the call in the call sequence.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/fission.h"
#include "ir/print_program.h"
#include "support/command.h"
#include "unit/sten_test_util.h"

namespace tessel {
namespace {

using test::Compiled;

Compiled dataProgram(const std::string& name) {
  std::ifstream in(testing::sourceDir() + "/tests/e2e/data/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return test::compileText(text.str(), name);
}

}  // namespace

// rhs4center-like: statements 0-5 compute the shared mu temporaries, 6/7 r0 and uacc0, 8/9 r1
// and uacc1, 10/11 r2 and uacc2. Each of the three kernels recomputes all six temporaries.
TEST(Fission, TrivialFissionOfAnRhs4centerLikeKernel) {
  Compiled c = dataProgram("rhs4center_like.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  FissionPlan plan = trivialFission(*c.prog, 0);
  ASSERT_TRUE(plan.whyNot.empty()) << plan.whyNot;
  ASSERT_EQ(plan.kernels.size(), 3u);
  EXPECT_EQ(plan.outputs, (std::vector<std::string>{"uacc0", "uacc1", "uacc2"}));
  EXPECT_EQ(plan.kernels[0], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(plan.kernels[1], (std::vector<int>{0, 1, 2, 3, 4, 5, 8, 9}));
  EXPECT_EQ(plan.kernels[2], (std::vector<int>{0, 1, 2, 3, 4, 5, 10, 11}));

  std::vector<std::string> notes;
  Program split = splitProgram(*c.prog, FissionMode::TrivialFission, notes);
  ASSERT_EQ(split.calls.size(), 3u);
  ASSERT_EQ(split.body.size(), 3u);  // the three calls replace the one
  EXPECT_EQ(split.calls[1].stmts.size(), 8u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "call 0 (rhs4) -> 3 kernels, one per output (uacc0, uacc1, uacc2)");
  // maxfuse: one call, nothing to fuse it with.
  notes.clear();
  EXPECT_EQ(splitProgram(*c.prog, FissionMode::MaxFuse, notes).calls.size(), 1u);
  EXPECT_TRUE(notes.empty());
  // Written out, each kernel declares only the temporaries it uses.
  const std::string text = programSource(split, "// test\n");
  const size_t at = text.find("stencil rhs4_c1 () {\n  double mux1;");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string c1 = text.substr(at, text.find("}\n", at) - at);
  EXPECT_NE(c1.find("double r1;"), std::string::npos) << c1;
  EXPECT_EQ(c1.find("double r0;"), std::string::npos) << c1;
  EXPECT_EQ(c1.find("double r2;"), std::string::npos) << c1;
}

// One output: nothing to split (cosmo's horizontal diffusion keeps lap, fli, flj with out).
// hypterm: five outputs, each its own statement.
TEST(Fission, BenchmarksSplitPerOutput) {
  Compiled cosmo = test::compileBenchmark("cosmo-hdiff");
  ASSERT_TRUE(cosmo.prog);
  FissionPlan one = trivialFission(*cosmo.prog, 0);
  ASSERT_EQ(one.kernels.size(), 1u);
  EXPECT_EQ(one.kernels[0], (std::vector<int>{0, 1, 2, 3}));
  Compiled hypterm = test::compileBenchmark("hypterm");
  ASSERT_TRUE(hypterm.prog);
  FissionPlan five = trivialFission(*hypterm.prog, 0);
  ASSERT_EQ(five.kernels.size(), 5u);
  for (size_t k = 0; k < 5; ++k) EXPECT_EQ(five.kernels[k], (std::vector<int>{int(k)})) << k;
}

// A statement that reads a global array another output's statement writes earlier in the call
// would read the whole array once split (no longer the writer's region): refused, with why.
TEST(Fission, RefusesASplitThatChangesWhatAStatementReads) {
  Compiled c = test::compileText(
      "parameter N=32;\niterator i;\ndouble x[N], a[N], b[N];\ncopyin x;\nallocin a, b;\n"
      "stencil s (a, b, x) {\n  a[i] = x[i-1] + x[i+1];\n  b[i] = a[i-1] + a[i+1];\n}\n"
      "s (a, b, x);\ncopyout a, b;\n");
  ASSERT_TRUE(c.prog) << c.diagText();
  FissionPlan plan = trivialFission(*c.prog, 0);
  EXPECT_TRUE(plan.kernels.empty());
  // Statements numbered from s0, as tessel info and the fusion groups number them.
  EXPECT_NE(plan.whyNot.find("statement s1 of 's' touches 'a', which statement s0 writes in the "
                             "kernel of 'a'"),
            std::string::npos)
      << plan.whyNot;
  std::vector<std::string> notes;
  EXPECT_EQ(splitProgram(*c.prog, FissionMode::TrivialFission, notes).calls.size(), 1u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("stays whole"), std::string::npos) << notes[0];
}

// maxfuse (paper 000 VI-B: "all the stencil functions with the same domain are fused"): fdtd2d's
// update_ey and update_ex share their domain and read only what the calls before them wrote, so
// they become one stencil; update_hz reads ex and ey at offsets, which merged would limit it to
// the region they computed, so it stays apart. Locals whose names clash are renamed.
TEST(Fission, MaxfuseMergesCallsOfOneDomainWhileRegionsStay) {
  Compiled f = test::compileBenchmark("fdtd2d");
  ASSERT_TRUE(f.prog);
  std::vector<std::string> notes;
  Program m = splitProgram(*f.prog, FissionMode::MaxFuse, notes);
  EXPECT_EQ(m.calls.size(), f.prog->calls.size() - 1);
  EXPECT_EQ(m.calls[0].name, "update_ey_update_ex");
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "calls 0, 1 fused into one stencil (update_ey_update_ex)"),
            notes.end())
      << notes[0];

  Compiled c = test::compileText(
      "parameter N=32;\niterator i;\ndouble x[N], a[N], b[N], y[N];\ncopyin x, y;\n"
      "allocin a, b;\n"
      "stencil sa (a, x) {\n  double r;\n  r = x[i-1] + x[i+1];\n  a[i] = 2.0 * r;\n}\n"
      "stencil sb (b, x) {\n  double r;\n  r = x[i] * 3.0;\n  b[i] = r - 1.0;\n}\n"
      "stencil sc (y, a) {\n  y[i] = a[i-1] + a[i+1];\n}\n"
      "sa (a, x);\nsb (b, x);\n[1:N-2] : sc (y, a);\ncopyout a, b, y;\n");
  ASSERT_TRUE(c.prog) << c.diagText();
  notes.clear();
  Program merged = splitProgram(*c.prog, FissionMode::MaxFuse, notes);
  ASSERT_EQ(merged.calls.size(), 2u);  // sa and sb merged; sc has another domain
  ASSERT_EQ(merged.calls[0].localScalars.size(), 2u);
  EXPECT_EQ(merged.calls[0].localScalars[1].name, "r_sb");
  const std::string text = programSource(merged, "");
  EXPECT_NE(text.find("r_sb = x[i] * 3.0;\n  b[i] = r_sb - 1.0;"), std::string::npos) << text;
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "call 2 (sc) stays apart from the calls before it: another domain"),
            notes.end());
}

}  // namespace tessel
