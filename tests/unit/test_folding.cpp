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

namespace tessel {
namespace {

/// The statements of every call of `c` (each call's statements once), as foldSequence takes
/// them.
std::vector<FoldItem> itemsOf(const Compiled& c) {
  std::vector<FoldItem> items;
  for (const CallInst& call : c.prog->calls)
    for (const Stmt& st : call.stmts) items.push_back({&call, &st});
  return items;
}

}  // namespace

// stream + time_tile (TileSpec::folds): a pair folds over a fused sequence only where every
// statement references its arrays only as that combination and none writes them.
TEST(FoldingSequence, APairFoldsOnlyWhereEveryStatementCombinesIt) {
  const std::string head =
      "parameter N=64;\niterator i;\ndouble a[N], b[N], c[N], d[N], x[N], y[N];\n"
      "copyin a, b, c, d, x;\n";
  Compiled both = compileText(head +
                              "stencil s1 () { y[i] = x[i] + a[i-1] * b[i-1] + (c[i] - d[i]); }\n"
                              "stencil s2 () { x[i] = y[i+1] * (a[i] * b[i]) + (c[i] - d[i]); }\n"
                              "s1 ();\ns2 ();\ncopyout x, y;\n");
  ASSERT_TRUE(both.prog) << both.diagText();
  std::vector<Fold> f = foldSequence(*both.prog, itemsOf(both));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(foldTexts(f), "a * b, c - d");
  EXPECT_EQ(f[0].uses, 2);  // one combination in each statement
  // The rewrite reads the first array where the statement read the pair.
  const CallInst& c1 = both.prog->calls.at(0);
  EXPECT_EQ(toString(applyFolds(*both.prog, c1, c1.stmts[0].rhs, f), both.prog->iteratorNames()),
            "x[i] + a[i-1] + c[i]");

  // The second statement reads a alone (and writes c): each statement folds on its own, the
  // sequence folds nothing, and the reason names the statement.
  Compiled apart = compileText(head +
                               "stencil s1 () { y[i] = a[i-1] * b[i-1] + (c[i] - d[i]); }\n"
                               "stencil s2 () { c[i] = y[i] * a[i] + x[i]; }\n"
                               "s1 ();\ns2 ();\ncopyout c, y;\n");
  ASSERT_TRUE(apart.prog) << apart.diagText();
  EXPECT_TRUE(foldSequence(*apart.prog, itemsOf(apart)).empty());
  const CallInst& s1 = apart.prog->calls.at(0);
  Folding alone = foldStatement(*apart.prog, s1, s1.stmts[0]);
  ASSERT_EQ(alone.folds.size(), 2u);
  EXPECT_EQ(whyNotSequenceFold(*apart.prog, itemsOf(apart), alone.folds[0]),
            "statement s0 of 's2' reads 'a' otherwise");
  EXPECT_EQ(whyNotSequenceFold(*apart.prog, itemsOf(apart), alone.folds[1]),
            "statement s0 of 's2' writes 'c'");
  // Over the first statement alone, both hold.
  EXPECT_EQ(whyNotSequenceFold(*apart.prog, {{&s1, &s1.stmts[0]}}, alone.folds[0]), "");
}

}  // namespace tessel
