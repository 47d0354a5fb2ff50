// Issue 12, unrolling in every family (`--unroll`, paper 000 III-A3): `global`, `global-stream`
// and `stream` give each thread several points (blocked or cyclic), each a copy of the statement
// with registers of its own (the register planes of `stream`, the accumulators of a retimed
// kernel). Every benchmark agrees with the reference on PoCL, alone, combined with streaming,
// with overlapped tiling and with retiming, and on the C++ target (the same kernels on the CPU);
// the stream family's unrolled settings at awkward sizes and under nvcc are in
// test_gpu_staged_benchmarks.cpp, the Oclgrind checks in test_oclgrind.cpp. Too many points per
// thread are refused; the kernel report says what was unrolled.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/command.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

std::string params(const fs::path& file) { return awkwardParamFlags(file); }

class Unroll : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Unroll, EveryFamilyVerifiesOnPoclAndTheCppTarget) {
  TESSEL_REQUIRE_OPENCL();
  fs::path file = benchmarkPath(GetParam());
  Parsed p = parseFile(file);
  ASSERT_TRUE(p.prog);
  const bool oneD = p.prog->dims() == 1, retimed = retimable(GetParam());
  // Unroll factors by iterator name: the unit-stride one, and the next where there is one.
  const std::string fast = p.prog->iterators.back().name;
  const std::string both =
      oneD ? fast + "=3" : fast + "=2," + p.prog->iterators[p.prog->dims() - 2].name + "=2";
  // Within a plane of the streamed families (they sweep the slowest iterator).
  const std::string inPlane = p.prog->dims() == 3 ? both : fast + "=2";
  struct Variant {
    std::string flags, backend;
  };
  std::vector<Variant> variants = {
      {"--schedule global --unroll " + both, "opencl"},
      {"--schedule global --unroll " + fast + "=3,cyclic", "cpp"},
      // With overlapped tiling: the fused kernel's block covers block x F points.
      {"--schedule overlapped --time-tile 2 --unroll " + fast + "=2", "opencl"},
  };
  if (!oneD) {
    variants.push_back({"--schedule global-stream --unroll " + fast + "=3,cyclic", "opencl"});
    variants.push_back({"--schedule stream --unroll " + fast + "=2", "cpp"});
    // Stream + time_tile: a copy of each fused stage per point (per statement where not fused).
    variants.push_back(
        {"--schedule stream --time-tile 2 --chunk 3 --unroll " + inPlane + ",cyclic", "opencl"});
    variants.push_back({"--schedule stream --time-tile 3 --unroll " + fast + "=2", "cpp"});
  }
  if (retimed) {
    variants.push_back({"--schedule stream --retime --unroll " + fast + "=2,cyclic", "opencl"});
    variants.push_back({"--schedule stream --retime --unroll " + fast + "=3", "cpp"});
    variants.push_back({"--schedule global-stream --retime --unroll " + inPlane, "opencl"});
  }
  for (const Variant& v : variants) {
    std::string cmd = tesselBinary() + " run " + file.string() + " --backend " + v.backend +
                      " --verify " + v.flags + params(file);
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n" << r.output;
    EXPECT_EQ(r.output.find("unroll ("), std::string::npos)
        << "no note: every one of these applies the unroll\n"
        << cmd << "\n"
        << r.output;
  }
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(Unroll);

// The kernel report says what was unrolled; ptxas's registers grow with the points per thread,
// the report's shared loads per point do not (each point reads its own taps).
TEST(UnrollReport, TheKernelReportNamesThePointsPerThread) {
  auto info = [](const std::string& flags) {
    auto r = runCommand(tesselBinary() + " info --kernels --json " +
                        benchmarkPath("j3d27pt").string() + " " + flags);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return nlohmann::json::parse(r.output)["kernels"][0];
  };
  nlohmann::json one = info("--schedule stream"), two = info("--schedule stream --unroll i=2");
  EXPECT_EQ(one["applied"].get<std::string>().find("unrolled"), std::string::npos) << one;
  EXPECT_NE(two["applied"].get<std::string>().find("unrolled: 2 points per thread (2x1, blocked)"),
            std::string::npos)
      << two;
  nlohmann::json four = info("--schedule global --unroll i=2,j=2,cyclic");
  EXPECT_NE(
      four["applied"].get<std::string>().find("unrolled: 4 points per thread (2x2x1, cyclic)"),
      std::string::npos)
      << four;
  nlohmann::json rt = info("--schedule stream --retime --unroll i=2");
  EXPECT_NE(rt["applied"].get<std::string>().find("retimed: 6 accumulators"), std::string::npos)
      << rt;
  // overlapped: the fused kernel's block covers twice its threads along x; no copies per thread.
  auto o =
      runCommand(tesselBinary() + " info --kernels --json " + benchmarkPath("j3d7pt").string() +
                 " --schedule overlapped --time-tile 2 --unroll i=2");
  ASSERT_EQ(o.exitCode, 0) << o.output;
  bool fused = false;
  const nlohmann::json oj = nlohmann::json::parse(o.output.substr(o.output.find('{')));
  for (const auto& k : oj["kernels"]) {
    if (k["name"].get<std::string>().rfind("fused", 0) != 0) continue;
    fused = true;
    EXPECT_NE(k["applied"].get<std::string>().find(
                  "unrolled: a stage's region per block is 2x1x1 times its threads (x, y, z), 2 "
                  "elements per thread in each stage's loop"),
              std::string::npos)
        << k;
  }
  EXPECT_TRUE(fused) << o.output;
}

TEST(UnrollRefusals, TooManyPointsPerThreadAreRefusedWithAHint) {
  auto r = runCommand(tesselBinary() + " check " + benchmarkPath("j3d7pt").string() +
                      " --schedule global --unroll i=8,j=16");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("128 points per thread under 'global': at most 64"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("hint: unroll less, or use --schedule shared"), std::string::npos)
      << r.output;
  // shared loops over its points: no such limit.
  auto s = runCommand(tesselBinary() + " check " + benchmarkPath("j3d7pt").string() +
                      " --schedule shared --block 8,4,1 --unroll i=8,j=16");
  EXPECT_EQ(s.exitCode, 0) << s.output;
  // The streamed iterator is swept, not unrolled: on the command line an error (check says it
  // too), in a file's clause a note.
  auto k = runCommand(tesselBinary() + " check " + benchmarkPath("j3d7pt").string() +
                      " --schedule stream --unroll k=2,i=2");
  EXPECT_EQ(k.exitCode, 1) << k.output;
  EXPECT_NE(k.output.find("error: --unroll k=2,i=2: 'k' is the iterator the 'stream' schedule "
                          "streams: its sweep computes one plane at a time"),
            std::string::npos)
      << k.output;
  EXPECT_NE(k.output.find("hint: unroll along j or i instead, or stream another iterator"),
            std::string::npos)
      << k.output;
  const fs::path dir = fs::temp_directory_path() / ("unroll-k-" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "p.sten");
    f << "parameter L=8, M=8, N=8;\niterator k, j, i;\ndouble a[L,M,N], b[L,M,N];\n"
         "copyin a;\n#pragma stream k unroll k=2, i=2\nstencil s (b, a) {\n"
         "  b[k][j][i] = a[k-1][j][i] + a[k+1][j][i] + a[k][j][i-1];\n}\ns(b, a);\ncopyout b;\n";
  }
  auto p = runCommand(tesselBinary() + " emit " + (dir / "p.sten").string() +
                      " --target opencl -o " + (dir / "out").string());
  fs::remove_all(dir);
  EXPECT_EQ(p.exitCode, 0) << p.output;
  EXPECT_NE(p.output.find("unroll (" + (dir / "p.sten").string() +
                          ":5:18) along the streamed iterator 'k' is not applied"),
            std::string::npos)
      << p.output;
}
