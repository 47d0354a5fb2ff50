// Statement fusion (analysis/stmt_fusion.h; issue 13, spatial fusion under `global`): which of a
// call's consecutive statements share a kernel, why a group ends, and which local scalars become
// registers. The runs that check the fused kernels compute what the reference interpreter does
// are in tests/e2e/test_stmt_fusion_run.cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/stmt_fusion.h"
#include "support/command.h"
#include "unit/sten_test_util.h"

namespace tessel {
namespace {

using test::Compiled;

Compiled benchmark(const std::string& name) {
  std::ifstream in(testing::sourceDir() + "/benchmarks/" + name + ".sten");
  std::stringstream text;
  text << in.rdbuf();
  return test::compileText(text.str(), name + ".sten");
}

using Groups = std::vector<std::vector<size_t>>;

}  // namespace

// COSMO's horizontal diffusion: fli and flj read lap at neighbours' points (i+1, j+1), out reads
// fli and flj at i-1 and j-1: three kernels, {lap}, {fli, flj}, {out}, each break naming the
// access that would let a thread read another thread's element.
TEST(StmtFusion, HorizontalDiffusionBreaksWhereAStatementReadsANeighboursResult) {
  Compiled c = benchmark("cosmo-hdiff");
  ASSERT_TRUE(c.prog) << c.diagText();
  StatementGroups g = fuseStatements(*c.prog, c.prog->calls.at(0));
  EXPECT_EQ(g.groups, (Groups{{0}, {1, 2}, {3}}));
  ASSERT_EQ(g.breaks.size(), 2u);
  EXPECT_NE(g.breaks[0].find("statement 2 reads 'lap[k][j][i+1]'"), std::string::npos)
      << g.breaks[0];
  EXPECT_NE(g.breaks[0].find("statement 1 writes it at [k][j][i]"), std::string::npos)
      << g.breaks[0];
  EXPECT_NE(g.breaks[1].find("statement 4 reads 'fli[k][j][i-1]'"), std::string::npos)
      << g.breaks[1];
}

// hypterm's five fluxes read the inputs only: one kernel.
TEST(StmtFusion, IndependentOutputsShareOneKernel) {
  Compiled c = benchmark("hypterm");
  ASSERT_TRUE(c.prog) << c.diagText();
  const CallInst& call = c.prog->calls.at(0);
  StatementGroups g = fuseStatements(*c.prog, call);
  ASSERT_EQ(g.groups.size(), 1u);
  EXPECT_EQ(g.groups[0].size(), call.stmts.size());
  EXPECT_TRUE(g.breaks.empty());
}

// rhs4center: 30 statements, the averages mux1..muz4 as local scalars, the outputs accumulated
// at the point itself (+=): one kernel, every local scalar in a register of it.
TEST(StmtFusion, Rhs4centerIsOneKernelWithItsLocalScalarsInRegisters) {
  Compiled c = benchmark("rhs4center");
  ASSERT_TRUE(c.prog) << c.diagText();
  const CallInst& call = c.prog->calls.at(0);
  ASSERT_EQ(call.stmts.size(), 30u);
  StatementGroups g = fuseStatements(*c.prog, call);
  ASSERT_EQ(g.groups.size(), 1u);
  ASSERT_FALSE(g.scalarGroup.empty());
  for (size_t s = 0; s < g.scalarGroup.size(); ++s)
    EXPECT_EQ(g.scalarGroup[s], 0) << call.localScalars[s].name;
}

// A read after a write at another point breaks the group; so does a write after a read at
// another point (the later statement would overwrite what a neighbour has not read yet). A local
// scalar used on both sides of a break keeps its buffer (-1); one used in one group is a
// register of it.
TEST(StmtFusion, BothOrdersOfAccessBreakAndScalarsAcrossABreakKeepTheirBuffer) {
  Compiled c = test::compileText(R"(
parameter N=32;
iterator i;
double a[N], b[N], c[N];
copyin a;
copyout b, c;
stencil s (a, b, c) {
  double t;
  double u;
  t = 2.0 * a[i];
  u = t + 1.0;
  b[i] = t + a[i+1];
  c[i] = b[i-1] + u;
  a[i] = c[i] + 1.0;
  b[i] = a[i+1];
}
[1:N-2] : s (a, b, c);
)");
  ASSERT_TRUE(c.prog) << c.diagText();
  const CallInst& call = c.prog->calls.at(0);
  StatementGroups g = fuseStatements(*c.prog, call);
  // c[i] = b[i-1] reads b where statement 3 writes b[i]: break. a[i] = ... writes a, which
  // statement 3 read at a[i+1] in the group before, not in this one: it joins. b[i] = a[i+1]
  // reads a at another point than statement 5 writes it: break.
  EXPECT_EQ(g.groups, (Groups{{0, 1, 2}, {3, 4}, {5}}));
  ASSERT_EQ(g.breaks.size(), 2u);
  EXPECT_NE(g.breaks[0].find("'b[i-1]'"), std::string::npos) << g.breaks[0];
  EXPECT_NE(g.breaks[1].find("'a[i+1]'"), std::string::npos) << g.breaks[1];
  ASSERT_EQ(call.localScalars.size(), 2u);
  EXPECT_EQ(g.scalarGroup[0], 0);   // t: statements 1 to 3
  EXPECT_EQ(g.scalarGroup[1], -1);  // u: statements 2 and 4, two groups
}

}  // namespace tessel
