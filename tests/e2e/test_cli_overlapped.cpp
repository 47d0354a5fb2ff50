// `--schedule overlapped` on the command line: a verified run on OpenCL, and the schedules the
// machine cannot run refused with what they need.
#include <gtest/gtest.h>

#include "support/command.h"

using namespace tessel::testing;

namespace {
std::string bench(const std::string& b) { return sourceDir() + "/benchmarks/" + b + ".sten"; }
}  // namespace

TEST(CliOverlapped, RunVerifiesOnOpencl) {
  auto r = runCommand(tesselBinary() + " run " + bench("j3d7pt") +
                      " --backend opencl --schedule overlapped --time-tile 3 --block 10,6,5"
                      " --param L=10 --param M=12 --param N=20 --verify");
  if (r.output.find("no OpenCL") != std::string::npos &&
      !std::getenv("TESSEL_TESTS_REQUIRE_OPENCL"))
    GTEST_SKIP() << "skipped: no OpenCL device";
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << r.output;
}

TEST(CliOverlapped, ImpossibleSchedulesAreUserErrors) {
  struct Case {
    std::string args, message;
  } cases[] = {
      {bench("j3d7pt") + " --schedule overlapped --time-tile 9", "at most 8 time steps"},
      {bench("j3d7pt") + " --schedule overlapped --time-tile 3 --block 4,4,4",
       "leaves no tile after the halo (4x4x4) of 3 fused steps"},
      {bench("j2d5pt") +
           " --schedule overlapped --time-tile 2 --block 128,8 --unroll i=4,j=2 --machine k20c",
       "needs 139552 bytes of shared memory per block, more than the 49152 bytes"},
      {bench("j3d7pt") + " --schedule overlapped --stream k",
       "--stream k needs a streaming schedule ('stream' or 'global-stream')"},
  };
  for (auto& c : cases) {
    auto r = runCommand(tesselBinary() + " check " + c.args);
    EXPECT_EQ(r.exitCode, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

// j2d5pt, T = 3, the default 32x16 block covering stage 1: tile (16 - 2*2) x (32 - 2*2) = 12x28.
// Stages 16x32 + 14x30 + 12x28 = 512 + 420 + 336 = 1268 points, 1268 - 3*336 = 260 redundant
// (20.5%); buffers: in over the footprint 18x34 = 612 and out over 16x32 = 512 elements:
// (612 + 512) * 8 = 8992 bytes. Two variants: the body {out=f(in), in=f(out)} starts at 0 or 1.
TEST(CliOverlapped, InfoShowsEachFusedKernel) {
  auto r = runCommand(tesselBinary() + " info " + bench("j2d5pt") +
                      " --schedule overlapped --time-tile 3");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  for (const char* want :
       {"calls 0, 1, 0 (time_tile 3): block 32x16x1, tile 12x28, 8992 bytes of shared memory, "
        "20.5% of the computed points redundant",
        "calls 1, 0, 1 (time_tile 3)", "1268 points computed for 336 outputs, 260 redundant",
        "input in: footprint j -3..14, i -3..30 = 612 points"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
}
