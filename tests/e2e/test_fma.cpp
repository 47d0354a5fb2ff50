// `--fma` (pass contract-fma, transforms/contract_fma.h): a*b+c in the kernels as fused
// multiply-adds, verified against the reference with a normwise tolerance; without it the kernels
// keep the exact operations.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/files.h"
#include "transforms/contract_fma.h"

using namespace tessel;
using namespace tessel::testing;
namespace fs = std::filesystem;

namespace {

std::string emitCuda(const std::string& name, const std::string& args) {
  fs::path d = freshTempDir("fma", name);
  auto r = runCommand(tesselBinary() + " emit --target cuda -o " + d.string() + " " + args);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return readText(d / "tessel_program.cu");
}

ExprPtr dv(const char* n) { return var(n, ScalarType::Double); }
ExprPtr fv(const char* n) { return var(n, ScalarType::Float); }

}  // namespace

TEST(ContractFma, TheFourFormsAndWhatStays) {
  using transforms::contractFma;
  ExprPtr a = dv("a"), b = dv("b"), c = dv("c");
  auto isFma = [](const ExprPtr& e) { return e->kind == ExprKind::Call && e->name == "fma"; };
  ExprPtr e1 = contractFma(binary(Op::Add, binary(Op::Mul, a, b), c));  // fma(a, b, c)
  ASSERT_TRUE(isFma(e1));
  EXPECT_EQ(e1->args[2]->name, "c");
  ExprPtr e2 = contractFma(binary(Op::Add, c, binary(Op::Mul, a, b)));  // fma(a, b, c)
  ASSERT_TRUE(isFma(e2));
  EXPECT_EQ(e2->args[0]->name, "a");
  ExprPtr e3 = contractFma(binary(Op::Sub, binary(Op::Mul, a, b), c));  // fma(a, b, -c)
  ASSERT_TRUE(isFma(e3));
  EXPECT_EQ(e3->args[2]->kind, ExprKind::Unary);
  ExprPtr e4 = contractFma(binary(Op::Sub, c, binary(Op::Mul, a, b)));  // fma(-a, b, c)
  ASSERT_TRUE(isFma(e4));
  EXPECT_EQ(e4->args[0]->kind, ExprKind::Unary);
  EXPECT_EQ(e4->args[2]->name, "c");
  // Nested: a*b + c*d + e -> fma(a, b, c*d) + e, innermost first.
  ExprPtr e5 = contractFma(binary(
      Op::Add, binary(Op::Add, binary(Op::Mul, a, b), binary(Op::Mul, c, dv("d"))), dv("e")));
  ASSERT_EQ(e5->kind, ExprKind::Binary);
  EXPECT_TRUE(isFma(e5->args[0]));
  // Ints stay; a float product in a double sum stays (its rounding to float is part of it).
  ExprPtr i = var("i", ScalarType::Int);
  EXPECT_FALSE(isFma(contractFma(binary(Op::Add, binary(Op::Mul, i, i), i))));
  EXPECT_FALSE(isFma(contractFma(binary(Op::Add, binary(Op::Mul, fv("x"), fv("y")), c))));
}

TEST(Fma, KernelsContractOnlyWithTheFlag) {
  std::string plain = emitCuda("plain", benchFile("j3d7pt") + " --schedule stream");
  EXPECT_FALSE(contains(plain, "fma(")) << plain;
  std::string fused = emitCuda("fused", benchFile("j3d7pt") + " --schedule stream --fma");
  // out = c0 * s + c1 * (...): the sum of two products is one fma.
  EXPECT_TRUE(contains(fused, "= fma(c0, s_in_0[(j - t0_j + 1) * 34 + (i - t0_i + 1)], c1"))
      << fused;
  EXPECT_TRUE(contains(fused, "-fmad=false")) << "the rest stays exact";
  auto info = runCommand(tesselBinary() + " info --no-ptxas " + benchFile("j3d7pt") + " --fma");
  EXPECT_TRUE(contains(info.output, "schedule: stream, stream k, chunk 16, block (32, 16), fma"))
      << info.output;
}

TEST(Fma, VerifiesOnPoclWithANormwiseTolerance) {
  // Awkward sizes (the programs' own are large for PoCL).
  const std::string cube = " --param L=23 --param M=29 --param N=41";
  for (const auto& [b, size] :
       {std::pair{"j3d7pt", cube}, std::pair{"heat", cube}, std::pair{"cheby", cube},
        std::pair{"j2d5pt", std::string(" --param M=97 --param N=203")}})
    for (const char* family : {"global", "stream", "overlapped --time-tile 2"}) {
      auto r = runCommand(tesselBinary() + " run --backend opencl --verify " + benchFile(b) + size +
                          " --schedule " + family + " --fma");
      EXPECT_EQ(r.exitCode, 0) << b << " " << family << "\n" << r.output;
      EXPECT_TRUE(contains(r.output, "verification PASSED")) << r.output;
      EXPECT_TRUE(
          contains(r.output, "--fma or --retime: relative to each array's largest magnitude"))
          << r.output;
    }
  // Without --fma the same run agrees exactly.
  auto exact = runCommand(tesselBinary() + " run --backend opencl --verify " + benchFile("heat") +
                          cube + " --schedule stream");
  EXPECT_TRUE(contains(exact.output, "(max relative error 0)")) << exact.output;
}
