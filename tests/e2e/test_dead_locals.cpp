// Locals assigned but never read, a scalar argument no statement reads and a parameter nothing
// uses (what scripts/random_programs.py draws often, through nvcc: seed 35): `tessel check`
// warns about the locals, and the generated CUDA of every family compiles without a warning
// (no unused shared tile, register, region bound, scalar or parameter variable) and computes
// the reference's results.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/command.h"
#include "support/files.h"
#include "support/verify.h"
#include "unit/gpu_test_util.h"

using namespace tessel::testing;

namespace {

const char* kProgram =
    "parameter L=9, M=12, N=14, T=3;\n"
    "iterator k, j, i;\n"
    "double a[L, M, N], b[L, M, N];\n"
    "double cx[M];\n"
    "double dt, alpha;\n"
    "copyin a, b, cx;\n"
    "stencil s (A, B, h, w) {\n"
    "  double t0[L, M, N];\n"
    "  double r;\n"
    "  t0[k][j][i] = 0.25 * B[k-1][j][i] + 0.75 * B[k][j][i-1];\n"
    "  r = 0.5 * B[k][j+1][i] - w;\n"
    "  A[k][j][i] = 0.2 * (B[k][j][i] + B[k+1][j][i] + B[k][j-1][i] + B[k][j][i+1]) + cx[j];\n"
    "}\n"
    "s (a, b, dt, alpha);\n"
    "s (b, a, dt, alpha);\n"
    "copyout a, b;\n";

std::string writeProgram() {
  const auto dir = freshTempDir("dead-locals", "program");
  const std::string file = (dir / "dead.sten").string();
  std::ofstream(file) << kProgram;
  return file;
}

const char* const kFamilies[] = {"--schedule global",
                                 "--schedule global --fuse-statements",
                                 "--schedule global-stream",
                                 "--schedule shared",
                                 "--schedule stream",
                                 "--schedule stream --fuse-statements",
                                 "--schedule stream --time-tile 2",
                                 "--schedule overlapped --time-tile 2"};

}  // namespace

TEST(DeadLocals, CheckWarnsAboutLocalsNothingReads) {
  const std::string file = writeProgram();
  auto r = runCommand(tesselBinary() + " check " + file);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "dead.sten:8:10: warning: local array 't0' is assigned but "
                       "never read in stencil 's'"))
      << r.output;
  EXPECT_TRUE(contains(r.output,
                       "dead.sten:9:10: warning: local scalar 'r' is assigned but "
                       "never read in stencil 's'"))
      << r.output;
}

TEST(DeadLocals, EveryFamilysCudaCompilesWithoutAWarning) {
  TESSEL_REQUIRE_NVCC();
  const std::string file = writeProgram();
  for (const char* flags : kFamilies) {
    const std::string cmd = tesselBinary() + " resources --json " + file + " " + flags;
    auto r = runCommand(cmd);
    ASSERT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    const auto j = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
    EXPECT_TRUE(j["warnings"].empty()) << cmd << "\n" << j["warnings"].dump(1);
    EXPECT_FALSE(j["kernels"].empty()) << cmd;
  }
}

TEST(DeadLocals, EveryFamilyVerifiesOnPoclAndTheCppTarget) {
  TESSEL_REQUIRE_OPENCL();
  const std::string file = writeProgram();
  for (const char* flags : kFamilies)
    for (const char* backend : {"opencl", "cpp"}) expectRunVerifies(file, backend, flags);
}
