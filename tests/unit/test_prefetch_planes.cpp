// Pass prefetch-planes (transforms/prefetch_planes.h) on small kernels built with the IR's
// factories: the registers per element a thread loads, the stores from them, the next plane's
// load and the first one's, what it leaves out and why, what it refuses, and the verifier's
// check that no mark is left.
#include <gtest/gtest.h>

#include <stdexcept>

#include "ir/loop_ir_verify.h"
#include "lower/lower.h"
#include "transforms/prefetch_planes.h"

using namespace tessel;
using namespace tessel::lir;

namespace {

ExprPtr iv(const std::string& n) { return var(n, ScalarType::Int); }

/// The cooperative load of plane k + 1 of `in` (a tile of (hiY+1) x (hiX+1) elements) into
/// shared `s` by a block of stepX x stepY threads, as the stream builder writes it.
StmtPtr planeLoop(int64_t hiX, int64_t stepX, int64_t hiY, int64_t stepY) {
  ExprPtr plane = indexAddConst(iv("k"), 1);
  ExprPtr at = indexAdd(indexMul(indexAdd(indexMul(plane, iv("M")), iv("y")), iv("N")), iv("x"));
  std::vector<StmtPtr> body = {
      ifThen(binary(Op::Lt, plane, iv("L")),
             {store("s", indexAdd(indexMul(iv("y"), intLit(hiX + 1)), iv("x")),
                    load("in", at, ScalarType::Double))})};
  return cooperativeLoop(
      "y", intrinsic(Intrinsic::LocalId, 1), intLit(hiY), intLit(stepY),
      {cooperativeLoop("x", intrinsic(Intrinsic::LocalId, 0), intLit(hiX), intLit(stepX), body)});
}

PlaneFetch fetchOf(const std::string& stem = "pf_in") {
  return {"'in'", stem, "k", binary(Op::Lt, iv("k"), iv("last")), iv("first")};
}

/// A kernel: the start mark, then a sweep over k whose body loads the plane (marked), with
/// `own` stores of the thread's point first.
GpuProgram program(StmtPtr loop, std::vector<StmtPtr> own = {}, std::vector<StmtPtr> before = {}) {
  std::vector<StmtPtr> loadBody = own;
  loadBody.push_back(std::move(loop));
  std::vector<StmtPtr> body = before;
  body.push_back(planeStart(fetchOf()));
  body.push_back(forLoop("k", iv("first"), iv("last"), LoopKind::Serial,
                         {planeLoad(phaseBlock(loadBody), fetchOf()),
                          store("out", iv("k"), load("s", intLit(0), ScalarType::Double))}));
  Function f;
  f.name = "k0";
  f.linkage = Linkage::Kernel;
  for (const char* p : {"in", "out"}) f.params.push_back(lir::Param{p, CType::Double, true});
  for (const char* p : {"M", "N", "L", "first", "last"})
    f.params.push_back(lir::Param{p, CType::Int64, false});
  f.shared = {sharedArray(CType::Double, "s", 400)};
  f.body = block(std::move(body));
  GpuProgram g;
  g.device.functions.push_back(f);
  g.kernels.resize(1);
  return g;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(PrefetchPlanes, ARegisterPerElementStoredThenTheNextPlaneLoaded) {
  // An 18x10 plane over a 16x8 block: 2 x 2 iterations per thread, 4 registers.
  GpuProgram out = transforms::prefetchPlanes(program(planeLoop(17, 16, 9, 8)));
  std::string ir = printIr(out.device);
  EXPECT_EQ(out.kernels[0].prefetched, 4);
  EXPECT_EQ(out.kernels[0].notPrefetched, "");
  for (const char* r : {"pf_in_0", "pf_in_1", "pf_in_2", "pf_in_3"})
    EXPECT_EQ(count(ir, std::string("double ") + r + " = 0.0;"), 1u) << ir;
  EXPECT_EQ(count(ir, "for (int64_t y"), 0u) << ir;  // the cooperative loops made straight-line
  // The registers into shared memory; the next plane (k + 1 + 1) into them while one exists;
  // the first (first + 1) before the sweep. Slot 3: x = local_id.x + 16, y = local_id.y + 8.
  EXPECT_EQ(count(ir, "] = pf_in_"), 4u) << ir;
  EXPECT_EQ(count(ir, "if (k < last) {"), 1u) << ir;
  EXPECT_EQ(count(ir, "pf_in_3 = in[((k + 2) * M + y) * N + x];"), 1u) << ir;
  EXPECT_EQ(count(ir, "pf_in_3 = in[((first + 1) * M + y) * N + x];"), 1u) << ir;
  EXPECT_EQ(count(ir, "const int64_t x = local_id.x + 16;"), 6u) << ir;  // 2 of 4, 3 times
  EXPECT_EQ(count(ir, "(x <= 17) && (y <= 9)"), 12u) << ir;
  EXPECT_EQ(ir.find("Prefetch registers of"), std::string::npos) << ir;  // the mark is gone
  EXPECT_TRUE(verifyKernel(out.device.functions[0]).empty());
  // The register loads come before the sweep; the next plane's after the plane's stores.
  EXPECT_LT(ir.find("(first + 1) * M"), ir.find("for (int64_t k")) << ir;
  EXPECT_LT(ir.rfind("] = pf_in_3;"), ir.find("(k + 2) * M")) << ir;
}

TEST(PrefetchPlanes, OwnStoresStayAndTheRegistersLeaveThemOut) {
  StmtPtr own = store("s", intLit(0), var("r0", ScalarType::Double));
  GpuProgram out = transforms::prefetchPlanes(
      program(planeLoop(17, 16, 9, 8), {own},
              {localDecl(CType::Double, "r0", floatLit(1.0, ScalarType::Double), false)}));
  std::string ir = printIr(out.device);
  EXPECT_EQ(count(ir, "s[0] = r0;"), 1u) << ir;  // in the plane's stores, not in the loads
  EXPECT_EQ(out.kernels[0].prefetched, 4);
}

TEST(PrefetchPlanes, TooManyElementsPerThreadAreLeftWithoutAndSaid) {
  // A 100x10 plane over a 4x2 block: 25 x 5 = 125 elements per thread.
  GpuProgram in = program(planeLoop(99, 4, 9, 2));
  GpuProgram out = transforms::prefetchPlanes(in);
  std::string ir = printIr(out.device);
  EXPECT_EQ(out.kernels[0].prefetched, 0);
  EXPECT_EQ(out.kernels[0].notPrefetched, "'in' (125 elements per thread, at most 16)");
  EXPECT_EQ(count(ir, "for (int64_t y"), 1u) << ir;  // the load as it was
  EXPECT_EQ(ir.find("pf_in"), std::string::npos) << ir;
  EXPECT_TRUE(verifyKernel(out.device.functions[0]).empty());  // no mark left either
}

TEST(PrefetchPlanes, RegisterNamesAreNewInTheKernel) {
  GpuProgram out = transforms::prefetchPlanes(
      program(planeLoop(17, 16, 9, 8), {},
              {localDecl(CType::Double, "pf_in_0", floatLit(0.0, ScalarType::Double), false)}));
  std::string ir = printIr(out.device);
  EXPECT_EQ(count(ir, "double pf_in_0 = 0.0;"), 1u) << ir;  // the kernel's own
  EXPECT_EQ(count(ir, "double pf_in_0_2 = 0.0;"), 1u) << ir;
}

TEST(PrefetchPlanes, AMarkedLoadThatIsNoTileLoadIsAnInternalError) {
  StmtPtr odd = cooperativeLoop("x", intrinsic(Intrinsic::LocalId, 0), iv("N"), intLit(16),
                                {store("s", iv("x"), load("in", iv("x"), ScalarType::Double))});
  try {
    transforms::prefetchPlanes(program(odd));
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("no constant bound"), std::string::npos) << e.what();
  }
}

TEST(PrefetchPlanes, TheVerifierReportsAMarkThePassDidNotConsume) {
  GpuProgram p = program(planeLoop(17, 16, 9, 8));
  auto problems = verifyKernel(p.device.functions[0]);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().find("prefetch-planes"), std::string::npos) << problems.front();
}

}  // namespace
