// The register estimate (perf/register_estimate.h) on small kernels built with the IR's
// factories: each feature counted by hand, the cap from launch bounds and __maxnreg__, and the
// estimate's rounding and clamping.
#include <gtest/gtest.h>

#include "perf/register_estimate.h"

using namespace tessel;
using namespace tessel::lir;

namespace {

ExprPtr iv(const std::string& n) { return var(n, ScalarType::Int); }
ExprPtr dv(const std::string& n) { return var(n, ScalarType::Double); }
ExprPtr tid() { return intrinsic(Intrinsic::LocalId, 0); }
ExprPtr ld(const std::string& buf, ExprPtr at) {
  return load(buf, std::move(at), ScalarType::Double);
}
ExprPtr add(ExprPtr a, ExprPtr b) { return binary(Op::Add, std::move(a), std::move(b)); }

Function kernel(std::vector<StmtPtr> body, int intBits = 64) {
  Function f;
  f.name = "k";
  f.linkage = Linkage::Kernel;
  f.params = {Param{"in", CType::Double, true}, Param{"out", CType::Double, true},
              Param{"n", CType::Int64, false}};
  f.body = block(std::move(body));
  f.intBits = intBits;
  return f;
}

}  // namespace

TEST(RegisterEstimate, NamedValuesLiveFromDeclarationToLastUse) {
  // a and b (doubles: 2 registers each) are live together; a dies at its last use, before c (a
  // 64-bit int) is declared: at most 4 registers at once, not 6. Pointers: in and out.
  auto f =
      kernel({localDecl(CType::Double, "a", ld("in", intLit(0))),
              localDecl(CType::Double, "b", ld("in", intLit(1))), store("out", intLit(0), dv("a")),
              localDecl(CType::Int64, "c", intLit(3)), store("out", iv("c"), dv("b"))});
  RegisterFeatures r = registerFeatures(f);
  EXPECT_EQ(r.namedPeak, 4);
  // The same with 32-bit ints: c takes one register, a and b still two each.
  auto g =
      kernel({localDecl(CType::Int32, "c", intLit(3)),
              localDecl(CType::Double, "a", ld("in", iv("c"))), store("out", iv("c"), dv("a"))},
             32);
  EXPECT_EQ(registerFeatures(g).namedPeak, 3);
}

TEST(RegisterEstimate, AValueUsedInALoopLivesThroughIt) {
  // x is declared before the loop and last used at the top of its body: it lives through the
  // whole loop (each iteration reads it), so it is live with y and z at the end of the body:
  // x (2) + the loop index (64-bit: 2) + y (2) + z (2) = 8.
  auto f = kernel(
      {localDecl(CType::Double, "x", ld("in", intLit(0))),
       forStep("t", intLit(0), iv("n"), intLit(1),
               {store("out", iv("t"), dv("x")), localDecl(CType::Double, "y", ld("in", iv("t"))),
                localDecl(CType::Double, "z", ld("in", indexAddConst(iv("t"), 1))),
                store("out", iv("t"), add(dv("y"), dv("z")))})});
  EXPECT_EQ(registerFeatures(f).namedPeak, 8);
  // Without the loop x dies at its use: y and z and nothing else (4).
  auto g =
      kernel({localDecl(CType::Double, "x", ld("in", intLit(0))), store("out", intLit(0), dv("x")),
              localDecl(CType::Double, "y", ld("in", intLit(1))),
              localDecl(CType::Double, "z", ld("in", intLit(2))),
              store("out", intLit(0), add(dv("y"), dv("z")))});
  EXPECT_EQ(registerFeatures(g).namedPeak, 4);
}

TEST(RegisterEstimate, LoadsOfAStretchAreInFlightTogether) {
  // Three distinct doubles loaded between barriers (in[0] twice counts once): 6 registers; the
  // barrier starts a new stretch of one load. Pressure: the stretch's loads and nothing named.
  auto f = kernel({store("out", intLit(0), add(ld("in", intLit(0)), ld("in", intLit(1)))),
                   store("out", intLit(1), add(ld("in", intLit(0)), ld("in", intLit(2)))),
                   barrier(), store("out", intLit(2), ld("in", intLit(3)))});
  RegisterFeatures r = registerFeatures(f);
  EXPECT_EQ(r.loadsPeak, 6);
  EXPECT_EQ(r.namedPeak, 0);
  EXPECT_EQ(r.pressure, 6);
}

TEST(RegisterEstimate, PressureCountsAtMost24RegistersOfLoads) {
  // 20 distinct doubles in one statement: 40 registers of loads, of which the pressure counts 24
  // (ptxas issues them in turns), plus the named value live there (a 64-bit int: 2).
  ExprPtr sum = ld("in", iv("c"));
  for (int o = 1; o < 20; ++o) sum = add(sum, ld("in", indexAddConst(iv("c"), o)));
  auto f = kernel({localDecl(CType::Int64, "c", intLit(3)), store("out", iv("c"), sum)});
  RegisterFeatures r = registerFeatures(f);
  EXPECT_EQ(r.loadsPeak, 40);
  EXPECT_EQ(r.namedPeak, 2);
  EXPECT_EQ(r.pressure, 26);
}

TEST(RegisterEstimate, AnInnermostLoopNvccUnrollsHoldsFourCopiesOfItsLoads) {
  // Two loads per iteration: 4 registers; in a loop of unknown trip count that nvcc unrolls,
  // four copies (16); kept rolled (a cooperative loop), one (4).
  auto body = [] {
    return std::vector<StmtPtr>{
        store("out", iv("e"), add(ld("in", iv("e")), ld("in", indexAddConst(iv("e"), 1))))};
  };
  auto unrolled = kernel({forStep("e", tid(), iv("n"), intLit(32), body())});
  EXPECT_EQ(registerFeatures(unrolled).loadsPeak, 16);
  auto rolled = kernel({cooperativeLoop("e", tid(), iv("n"), intLit(32), body())});
  EXPECT_EQ(registerFeatures(rolled).loadsPeak, 4);
  // A large body is unrolled less: 60 loads and 60 additions (about 300 nodes) fit the budget
  // of 600 twice.
  ExprPtr sum = ld("in", iv("e"));
  for (int o = 1; o < 60; ++o) sum = add(sum, ld("in", indexAddConst(iv("e"), o)));
  auto big = kernel({forStep("e", tid(), iv("n"), intLit(32), {store("out", iv("e"), sum)})});
  EXPECT_EQ(registerFeatures(big).loadsPeak, 2 * 120);
  // A loop with a loop inside is not innermost: only the inner one is unrolled.
  auto outer = kernel({forStep("t", intLit(0), iv("n"), intLit(1),
                               {store("out", iv("t"), ld("in", iv("t"))),
                                cooperativeLoop("e", tid(), iv("n"), intLit(32), body())})});
  EXPECT_EQ(registerFeatures(outer).loadsPeak, 4);
}

TEST(RegisterEstimate, CapFromLaunchBoundsOrMaxRegisters) {
  auto f = kernel({});
  EXPECT_EQ(registerCap(f, 65536, 255), 255);  // no bounds declared
  f.requiredBlock = {32, 16, 1};
  f.minBlocksPerSm = 2;
  EXPECT_EQ(registerCap(f, 65536, 255), 64);  // 65536 / (2 x 512)
  f.requiredBlock = {100, 1, 1};              // 4 warps: 128 threads
  f.minBlocksPerSm = 3;
  EXPECT_EQ(registerCap(f, 65536, 255), 168);  // 65536 / 384 = 170, down to a multiple of 8
  f.minBlocksPerSm = 1;
  EXPECT_EQ(registerCap(f, 65536, 255), 255);  // 512, at most the per-thread limit
  f.maxRegisters = 40;
  EXPECT_EQ(registerCap(f, 65536, 255), 40);  // __maxnreg__ replaces the bounds
}

TEST(RegisterEstimate, EstimateIsTheFitRoundedWithinFloorAndCap) {
  auto f = kernel({store("out", intLit(0), add(ld("in", intLit(0)), ld("in", intLit(1))))});
  // pressure 4: the family's intercept + 4 x the slope.
  const RegisterFit fit{{{"global", 30}, {"stream", 40}}, 2};
  EXPECT_EQ(estimateRegisters(f, "global", fit, 65536, 255).registers, 30 + 8);
  EXPECT_EQ(estimateRegisters(f, "stream", fit, 65536, 255).registers, 40 + 8);
  EXPECT_EQ(estimateRegisters(f, "shared", fit, 65536, 255).registers, 35 + 8);  // the mean
  EXPECT_EQ(estimateRegisters(f, "global", {{{"global", 0}}, 1}, 65536, 255).registers,
            16);  // ptxas's floor
  f.maxRegisters = 32;
  EXPECT_EQ(estimateRegisters(f, "global", {{{"global", 100}}, 0}, 65536, 255).registers,
            32);  // capped
  EXPECT_EQ(estimateRegisters(f, "global", {{{"global", 100}}, 0}, 65536, 255).cap, 32);
  EXPECT_EQ(estimateRegisters(f, "global", {{{"global", 20.5}}, 0}, 65536, 255).registers,
            21);  // rounded
}
