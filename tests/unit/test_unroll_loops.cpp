// Pass unroll-loops (transforms/unroll_loops.h) on small functions built with the IR's
// factories: copies per iteration, the index folded, nesting, and what it refuses.
#include <gtest/gtest.h>

#include <stdexcept>

#include "lower/lower.h"
#include "transforms/unroll_loops.h"

using namespace tessel;
using namespace tessel::lir;

namespace {

ExprPtr iv(const std::string& n) { return var(n, ScalarType::Int); }

/// for u (Unrolled) in 0..n-1: const i = t0 + (l * n + u); out[i] = in[i];
StmtPtr pointsLoop(const std::string& u, int64_t n, std::vector<StmtPtr> more = {}) {
  std::vector<StmtPtr> body = {
      localDecl(CType::Int64, "i",
                indexAdd(iv("t0"), indexAdd(indexMul(iv("l"), intLit(n)), iv(u)))),
      store("out", iv("i"), load("in", iv("i"), ScalarType::Double))};
  body.insert(body.end(), more.begin(), more.end());
  return forLoop(u, intLit(0), intLit(n - 1), LoopKind::Unrolled, body);
}

Module module(std::vector<StmtPtr> body) {
  Function f;
  f.name = "f";
  f.linkage = Linkage::Kernel;
  f.params = {lir::Param{"in", CType::Double, true}, lir::Param{"out", CType::Double, true},
              lir::Param{"t0", CType::Int64, false}, lir::Param{"l", CType::Int64, false}};
  f.body = block(std::move(body));
  Module m;
  m.functions.push_back(f);
  return m;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(UnrollLoops, OneCopyPerIterationWithTheIndexFolded) {
  std::string out = printIr(transforms::unrollLoops(module({pointsLoop("u", 3)})));
  EXPECT_EQ(count(out, "for ("), 0u) << out;
  EXPECT_EQ(count(out, "out["), 3u) << out;
  EXPECT_NE(out.find("const int64_t i = t0 + l * 3;"), std::string::npos) << out;  // u = 0
  EXPECT_NE(out.find("const int64_t i = t0 + (l * 3 + 1);"), std::string::npos) << out;
  EXPECT_NE(out.find("const int64_t i = t0 + (l * 3 + 2);"), std::string::npos) << out;
  EXPECT_EQ(count(out, " u"), 3u) << out;  // the index only in the copies' comments
}

TEST(UnrollLoops, NestedLoopsMultiply) {
  StmtPtr outer = forLoop("v", intLit(0), intLit(1), LoopKind::Unrolled, {pointsLoop("u", 2)});
  std::string out = printIr(transforms::unrollLoops(module({outer})));
  EXPECT_EQ(count(out, "out["), 4u) << out;
  EXPECT_EQ(count(out, "for ("), 0u) << out;
}

TEST(UnrollLoops, OtherLoopsAreTheSameTree) {
  Module m = module({forLoop("k", intLit(0), iv("l"), LoopKind::Serial,
                             {store("out", iv("k"), floatLit(0.0, ScalarType::Double))})});
  EXPECT_EQ(transforms::unrollLoops(m).functions[0].body, m.functions[0].body);
}

TEST(UnrollLoops, RefusesLoopsWithoutConstantBounds) {
  Module m = module({forLoop("u", intLit(0), iv("l"), LoopKind::Unrolled,
                             {store("out", iv("u"), floatLit(0.0, ScalarType::Double))})});
  EXPECT_THROW(transforms::unrollLoops(m), std::logic_error);
  Module huge = module(
      {forLoop("u", intLit(0), intLit(transforms::kMaxUnrolledTrips), LoopKind::Unrolled, {})});
  EXPECT_THROW(transforms::unrollLoops(huge), std::logic_error);
}

}  // namespace
