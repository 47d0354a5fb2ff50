// Storage and computation folding (analysis/folding.h; issue 12, paper 000 III-B4): the arrays a
// statement only ever combines point-wise are found, the statement rewritten to read the first
// of each pair, and the pairs that do not qualify left alone.
#include <gtest/gtest.h>

#include "analysis/folding.h"
#include "unit/sten_test_util.h"

namespace tessel {
namespace {

using test::Compiled;
using test::compileText;

Folding foldOf(const Compiled& c, size_t stmt = 0) {
  const Program& p = *c.prog;
  return foldStatement(p, p.calls.at(0), p.calls.at(0).stmts.at(stmt));
}

std::string rhsText(const Compiled& c, const Folding& f) {
  return toString(f.stmt.rhs, c.prog->iteratorNames());
}

const char* kHeader =
    "parameter N=64;\n"
    "iterator i;\n"
    "double a[N], b[N], c[N], out[N];\n"
    "float g[N];\n"
    "double s;\n"
    "copyin a, b, c, g, s;\n"
    "allocin out;\n";

Compiled program(const std::string& body, const std::string& formals = "out, a, b, c, g, s") {
  return compileText(std::string(kHeader) + "stencil st (" + formals + ") {\n  " + body +
                     "\n}\nst (out, a, b, c, g, s);\ncopyout out;\n");
}

}  // namespace

TEST(Folding, HyptermsProductsWithUFoldWhereUHasOnePartner) {
  Compiled c = test::compileBenchmark("hypterm");
  ASSERT_TRUE(c.prog) << c.diagText();
  EXPECT_TRUE(foldOf(c, 0).folds.empty());  // flux_rho reads mx alone
  for (size_t k : {1u, 2u, 3u}) {
    Folding f = foldOf(c, k);
    ASSERT_EQ(f.folds.size(), 1u) << k;
    EXPECT_EQ(f.folds[0].op, Op::Mul);
    EXPECT_EQ(f.folds[0].uses, 8);  // offsets +-1 .. +-4
    EXPECT_EQ(f.folds[0].text.substr(2), " * u") << f.folds[0].text;
  }
  // flux_e: u is combined with en and with p, so neither pair holds every access of u.
  EXPECT_TRUE(foldOf(c, 4).folds.empty());
  EXPECT_EQ(describeFolds(foldOf(c, 2)), "my * u (8 combinations per point)");
}

TEST(Folding, TheStatementReadsTheFirstArrayOfEachPair) {
  Compiled c = program("out[i] = s * (a[i-1] * b[i-1] + a[i+1] * b[i+1]) - c[i];");
  ASSERT_TRUE(c.prog) << c.diagText();
  Folding f = foldOf(c);
  ASSERT_EQ(f.folds.size(), 1u);
  EXPECT_EQ(f.folds[0].text, "a * b");
  EXPECT_EQ(f.folds[0].uses, 2);
  EXPECT_EQ(rhsText(c, f), "s * (a[i-1] + a[i+1]) - c[i]");
  // Any point-wise operator, in the order written.
  Compiled d = program("out[i] = (a[i] - b[i]) / (c[i+1] + 1.0);");
  Folding fd = foldOf(d);
  ASSERT_EQ(fd.folds.size(), 1u);
  EXPECT_EQ(fd.folds[0].text, "a - b");
}

TEST(Folding, PairsThatDoNotCoverEveryAccessAreLeftAlone) {
  // a is also read alone.
  EXPECT_TRUE(foldOf(program("out[i] = a[i] * b[i] + a[i+1];")).folds.empty());
  // Different subscripts.
  EXPECT_TRUE(foldOf(program("out[i] = a[i] * b[i+1];")).folds.empty());
  // Two orders or two operators are two combinations.
  EXPECT_TRUE(foldOf(program("out[i] = a[i] * b[i] + b[i+1] * a[i+1];")).folds.empty());
  EXPECT_TRUE(foldOf(program("out[i] = a[i] * b[i] + a[i+1] + b[i+1];")).folds.empty());
  // Types differ (double and float).
  EXPECT_TRUE(foldOf(program("out[i] = a[i] * g[i];")).folds.empty());
  // The array written is never folded.
  EXPECT_TRUE(foldOf(program("out[i] += out[i] * a[i];")).folds.empty());
}

}  // namespace tessel
