// Issue 12, load/compute perspectives (`--perspective`, the `perspective` clause, paper 000
// III-B3) under `shared`: input gives a block a thread per element of its input tile (each loads
// one; the halo's threads compute nothing), mixed does so along x only, output (the default) a
// thread per output point. Every benchmark agrees with the reference on PoCL under input and
// mixed, and on the C++ target; the kernel report gives the block against the output tile; the
// other families, unrolling along a halo and blocks no wider than the halo are refused.
// Oclgrind: test_oclgrind.cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/command.h"
#include "support/files.h"
#include "support/ptxas.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

class PerspectiveBenchmark : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(PerspectiveBenchmark, InputAndMixedVerifyOnPoclAndTheCppTarget) {
  TESSEL_REQUIRE_OPENCL();
  fs::path file = benchmarkPath(GetParam());
  for (const auto& [flags, backend] :
       std::vector<std::pair<std::string, std::string>>{{"--perspective input", "opencl"},
                                                        {"--perspective mixed", "opencl"},
                                                        {"--perspective input", "cpp"}}) {
    // diffterm's default block (4 along j and k) leaves no output point inside its halo of 4 +
    // 4 in the input perspective (refused, with a hint to widen it): give it 10 x 10 x 10.
    const bool wideHalo = GetParam() == "diffterm" && flags == "--perspective input";
    std::string cmd = tesselBinary() + " run " + file.string() + " --backend " + backend +
                      " --verify --schedule shared " + flags +
                      (wideHalo ? " --block 10,10,10" : "") + awkwardParamFlags(file);
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n" << r.output;
  }
}

// The input and mixed perspectives' kernels compile with nvcc and none spills (diffterm's input
// perspective with the block its halo needs, as above).
TEST_P(PerspectiveBenchmark, CudaKernelsCompileWithoutSpills) {
  TESSEL_REQUIRE_NVCC();
  const std::string file = benchmarkPath(GetParam()).string();
  expectKernelsCompileWithoutSpills(file,
                                    std::string("--schedule shared --perspective input") +
                                        (GetParam() == "diffterm" ? " --block 10,10,10" : ""));
  expectKernelsCompileWithoutSpills(file, "--schedule shared --perspective mixed");
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(PerspectiveBenchmark);

TEST(Perspective, TheReportGivesTheBlockAgainstTheOutputTile) {
  auto info = [](const std::string& flags) {
    auto r = runCommand(tesselBinary() + " info --kernels --json --no-ptxas " +
                        benchmarkPath("j3d7pt").string() + " --schedule shared " + flags);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return nlohmann::json::parse(r.output.substr(r.output.find('{')))["kernels"][0];
  };
  nlohmann::json input = info("--perspective input --block 34,6,4");
  EXPECT_NE(input["applied"].get<std::string>().find(
                "input perspective: block 34x6x4 for a 32x4x2 output tile"),
            std::string::npos)
      << input;
  // The shared tile is the block itself: one element per thread.
  EXPECT_EQ(input["shared_bytes"].get<int64_t>(), 34 * 6 * 4 * 8);
  nlohmann::json mixed = info("--perspective mixed --block 34,8,1");
  EXPECT_NE(mixed["applied"].get<std::string>().find(
                "block 34x8x1 for a 32x8x1 output tile (a thread per input element along x)"),
            std::string::npos)
      << mixed;
  nlohmann::json output = info("--perspective output");
  EXPECT_EQ(output["applied"].get<std::string>().find("perspective"), std::string::npos) << output;
}

TEST(Perspective, RefusedWhereItCannotApply) {
  const std::string hypterm = benchmarkPath("hypterm").string();
  auto narrow = runCommand(tesselBinary() + " check " + hypterm +
                           " --schedule shared --perspective input --block 8,4,4");
  EXPECT_EQ(narrow.exitCode, 1) << narrow.output;
  EXPECT_NE(narrow.output.find("a block of 8x4x4 threads leaves no output point inside the "
                               "stencil's halo: 8 threads along 'i' against a halo of 4 + 4"),
            std::string::npos)
      << narrow.output;
  EXPECT_NE(narrow.output.find("hint: give a block above the halo along 'i' (--block): e.g. "
                               "--block 10,4,4 (160 threads, 32 of them computing an output "
                               "point)"),
            std::string::npos)
      << narrow.output;
  // diffterm's default block falls short along two iterators, and no power-of-two block fits
  // its halo of 4 + 4 along all three: one error names both, the hint a block that fits.
  auto wide = runCommand(tesselBinary() + " check " + benchmarkPath("diffterm").string() +
                         " --schedule shared --perspective input");
  EXPECT_EQ(wide.exitCode, 1) << wide.output;
  EXPECT_NE(wide.output.find("4 threads along 'j' against a halo of 4 + 4; 4 threads along 'k' "
                             "against a halo of 4 + 4"),
            std::string::npos)
      << wide.output;
  EXPECT_NE(wide.output.find("e.g. --block 10,10,10 (1000 threads, 8 of them computing"),
            std::string::npos)
      << wide.output;
  // A halo of 6 + 6 along each of three iterators: 14 x 14 x 14 threads exceed the machine's
  // 1024 per block, so no block fits; the hint says so and names the other perspectives.
  const auto dir = freshTempDir("perspective", "no-block");
  const std::string deep = (dir / "deep.sten").string();
  std::ofstream(deep) << "parameter L=40, M=40, N=40;\n"
                         "iterator k, j, i;\n"
                         "double a[L, M, N], b[L, M, N];\n"
                         "copyin a;\n"
                         "stencil s (B, A) {\n"
                         "  B[k][j][i] = A[k-6][j][i] + A[k+6][j][i] + A[k][j-6][i] + "
                         "A[k][j+6][i] + A[k][j][i-6] + A[k][j][i+6];\n"
                         "}\n"
                         "s (b, a);\n"
                         "copyout b;\n";
  auto none = runCommand(tesselBinary() + " check " + deep +
                         " --schedule shared --perspective input --block 8,8,8");
  EXPECT_EQ(none.exitCode, 1) << none.output;
  EXPECT_NE(none.output.find("hint: no block of at most 1024 threads"), std::string::npos)
      << none.output;
  EXPECT_NE(none.output.find("use --perspective mixed (input along x only) or output"),
            std::string::npos)
      << none.output;
  auto stream =
      runCommand(tesselBinary() + " check " + hypterm + " --schedule stream --perspective mixed");
  EXPECT_EQ(stream.exitCode, 1) << stream.output;
  EXPECT_NE(stream.output.find("not to the 'stream' family"), std::string::npos) << stream.output;
  // Time-tiled kernels: their blocks are the input tile already.
  for (const char* f : {"--schedule overlapped --time-tile 2", "--schedule stream --time-tile 2"}) {
    auto tiled = runCommand(tesselBinary() + " check " + benchmarkPath("j3d7pt").string() + " " +
                            f + " --perspective input");
    EXPECT_EQ(tiled.exitCode, 1) << tiled.output;
    EXPECT_NE(tiled.output.find("time-tiled kernels already have the input perspective"),
              std::string::npos)
        << tiled.output;
    EXPECT_NE(tiled.output.find("hint: leave perspective out"), std::string::npos) << tiled.output;
  }
  auto unroll = runCommand(tesselBinary() + " check " + hypterm +
                           " --schedule shared --perspective input --unroll i=2");
  EXPECT_EQ(unroll.exitCode, 1) << unroll.output;
  EXPECT_NE(unroll.output.find("unroll i=2 does not combine with it"), std::string::npos)
      << unroll.output;
  auto bad = runCommand(tesselBinary() + " check " + hypterm + " --perspective sideways");
  EXPECT_EQ(bad.exitCode, 1) << bad.output;
  EXPECT_NE(bad.output.find("'sideways' is not output, input or mixed"), std::string::npos)
      << bad.output;
}

// Found by scripts/random_programs.py (seed 41): with `#pragma occupancy`, the occupancy
// demotion counted the kernels of a block whose tile the input perspective leaves empty (negative
// shared bytes) before the validation refused it: an internal error, whose diagnostics were then
// printed after the program's source had been freed (a crash). Now the refusal, exit status 1.
TEST(Perspective, ABlockNarrowerThanTheHaloIsRefusedAlsoUnderAnOccupancyTarget) {
  const std::filesystem::path dir = freshTempDir("perspective", "occupancy");
  const std::filesystem::path file = dir / "narrow.sten";
  // A warning (the unread 'r') makes the old crash show: its location was printed last.
  std::ofstream(file) << "parameter L=3, M=4, N=4;\n"
                      << "iterator k, j, i;\n"
                      << "double w[L,M,N];\n"
                      << "copyin w;\n"
                      << "#pragma occupancy 1\n"
                      << "stencil kern (w) {\n"
                      << "  double t0[2..L+2][1:M+1][N];\n"
                      << "  double r;\n"
                      << "  r = w[k][j][i];\n"
                      << "  [1:L-1, 0..M+1, -1:N] : t0[k][j+1][i] = w[k+1][j][i] + w[k-1][j][i-1] "
                         "+ w[k+1][j][i+1];\n"
                      << "  w[k][j][i] = t0[k][j-1][i+1] + w[k][j][i] - t0[k-1][j+3][i];\n"
                      << "  [3..L+1, 1:M-2, 1:N-1] : w[k][j][i] += t0[k-1][j-2][i-1] + "
                         "t0[k+1][j-1][i-2] + t0[k][j-2][i] + t0[k+1][j][i+1];\n"
                      << "}\n"
                      << "kern (w);\n"
                      << "copyout w;\n";
  auto r = runCommand(tesselBinary() + " check " + file.string() +
                      " --schedule shared --perspective input --block 8,4,4");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_TRUE(
      tessel::testing::contains(r.output,
                                "--perspective input: a block of 8x4x4 threads leaves no "
                                "output point inside the stencil's halo: 4 threads along 'j' "
                                "against a halo of 2 + 3"))
      << r.output;
  EXPECT_TRUE(
      tessel::testing::contains(r.output, "warning: local scalar 'r' is assigned but never read"))
      << r.output;
  EXPECT_FALSE(tessel::testing::contains(r.output, "internal error")) << r.output;
}
