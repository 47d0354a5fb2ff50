// Issue 9 acceptance: every benchmark under every family, with no option besides --schedule and
// --time-tile, runs on OpenCL (PoCL) and on the C++ target (the same kernels on the CPU, pass
// work-item-loops) and verifies against the reference interpreter. The only refusal left is a
// family that needs more dimensions than the program has (global-stream on a 1-D program), with
// a hint. Defaults that do not fit adapt (schedule_fit.cpp) and say so.
#include <gtest/gtest.h>

#include "support/command.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

const char* kFamilies[] = {
    "--schedule global",
    "--schedule global-stream",
    "--schedule shared",
    "--schedule stream",
    "--schedule overlapped",
    "--schedule overlapped --time-tile 2",
    "--schedule overlapped --time-tile 3",
    "--schedule stream --time-tile 2",
    // Issue 11: the fused kernels with the write-back of dead arrays (the default leaves it out).
    "--schedule overlapped --time-tile 2 --dead-stores keep",
    "--schedule stream --time-tile 2 --dead-stores keep",
    // Issue 11: stream + time_tile's input rings without their spare plane (a barrier before
    // each step's loads instead).
    "--schedule stream --time-tile 2 --spare-plane off",
    // Issue 13: each call of several statements one streamed kernel (stream + time_tile's fused
    // kernel with one step; the stencils of one statement keep the stream kernel).
    "--schedule stream --fuse-statements",
};

/// Extents no multiple of any block or tile and larger than one (300; 23x70; 13x21x35), and
/// iterate loops of 4 iterations: T = 3 leaves steps over, and a loop replayed as a graph (a
/// period of at most 2 iterations) replays at least twice (cheby's default of 2 did not).
std::string params(const fs::path& file) {
  return paramFlags(file, {{300}, {23, 70}, {13, 21, 35}}, 4, 4);
}

class EveryFamily : public ::testing::TestWithParam<std::string> {};

// Issue 11: every family with each change of the kernel-quality issue flipped from its default,
// one at a time (the runs above have them all at their defaults): 64-bit index arithmetic (pass
// narrow-indices off; the runs above use 32-bit kernels, the default auto, as the test sizes
// fit), contracted multiply-adds (--fma on, verified with its tolerance; off above), and every
// kernel launched directly ($TESSEL_GRAPHS=0, below) where the runs above replay the iterate
// loops as graphs (recorded OpenCL commands; gpu.md section 6). Dead stores are kept above
// (--dead-stores keep) and dropped by default; stream + time_tile's spare plane is left out
// above (--spare-plane off). OpenCL only: the C++ target keeps 64 bits and exact operations.
const char* kIndexBits64Families[] = {
    "--schedule global --index-bits 64",
    "--schedule global-stream --index-bits 64",
    "--schedule shared --index-bits 64",
    "--schedule stream --index-bits 64",
    "--schedule overlapped --time-tile 2 --index-bits 64",
    "--schedule stream --time-tile 2 --index-bits 64",
};
const char* kFmaFamilies[] = {
    "--schedule global --fma",
    "--schedule global-stream --fma",
    "--schedule shared --fma",
    "--schedule stream --fma",
    "--schedule overlapped --time-tile 2 --fma",
    "--schedule stream --time-tile 2 --fma",
};
// The host side only: one family of each kind of kernel (one per statement, per call, fused).
const char* kDirectLaunchFamilies[] = {
    "--schedule global",
    "--schedule overlapped --time-tile 2",
    "--schedule stream --time-tile 2",
};

/// Runs every family of `families` on `backend` (with environment settings `env`, "NAME=VALUE
/// ", when given) and checks that each verifies.
template <size_t N>
void runEveryFamily(const std::string& backend, const std::string& name,
                    const char* const (&families)[N], const std::string& env = "") {
  fs::path file = benchmarkPath(name);
  Parsed p = parseFile(file);
  for (const char* family : families) {
    std::string cmd = env + tesselBinary() + " run " + file.string() + " --backend " + backend +
                      " --verify " + family + params(file);
    auto r = runCommand(cmd);
    if (p.prog->dims() == 1 && std::string(family).rfind("--schedule global-stream", 0) == 0) {
      EXPECT_EQ(r.exitCode, 1) << cmd << "\n" << r.output;
      EXPECT_NE(r.output.find("needs a 2-D or 3-D program"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("hint:"), std::string::npos) << r.output;
      continue;
    }
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n" << r.output;
    // On the C++ target every family but global runs the GPU kernels on the CPU.
    if (backend == "cpp" && std::string(family) != "--schedule global") {
      EXPECT_NE(r.output.find("the schedule's GPU kernels on the CPU"), std::string::npos)
          << cmd << "\n"
          << r.output;
    }
  }
}

}  // namespace

TEST_P(EveryFamily, RunsAndVerifiesWithOnlyScheduleAndTimeTile) {
  TESSEL_REQUIRE_OPENCL();
  runEveryFamily("opencl", GetParam(), kFamilies);
}

TEST_P(EveryFamily, RunsAndVerifiesWith64BitIndices) {
  TESSEL_REQUIRE_OPENCL();
  runEveryFamily("opencl", GetParam(), kIndexBits64Families);
}

TEST_P(EveryFamily, RunsAndVerifiesWithFma) {
  TESSEL_REQUIRE_OPENCL();
  runEveryFamily("opencl", GetParam(), kFmaFamilies);
}

TEST_P(EveryFamily, RunsAndVerifiesWithEveryKernelLaunchedDirectly) {
  TESSEL_REQUIRE_OPENCL();
  runEveryFamily("opencl", GetParam(), kDirectLaunchFamilies, "TESSEL_GRAPHS=0 ");
}

TEST_P(EveryFamily, RunsAndVerifiesOnTheCppTarget) { runEveryFamily("cpp", GetParam(), kFamilies); }

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(EveryFamily);
