// Issue 12, prefetching (`--prefetch`, paper 000 III-A4): the stream family's kernels load each
// thread's elements of the next shared plane into registers while the current plane is computed,
// and store them into the ring when the sweep gets there. Every benchmark agrees with the
// reference on PoCL and on the C++ target, alone and combined with unrolling and retiming; the
// CUDA kernels compile (ptxas) without a spill; the kernel report says how many registers
// hold the next plane; under stream + time_tile the fused kernel's input rings are prefetched;
// other families are refused. Oclgrind: test_oclgrind.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e/fused_kernel.h"
#include "exec/cuda_resources.h"
#include "support/command.h"
#include "support/ptxas.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

class Prefetch : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Prefetch, VerifiesOnPoclAndTheCppTargetAloneAndCombined) {
  TESSEL_REQUIRE_OPENCL();
  fs::path file = benchmarkPath(GetParam());
  const std::string params = awkwardParamFlags(file);
  if (GetParam() == "jacobi1d-boundary") {  // nothing to stream: refused
    auto r =
        runCommand(tesselBinary() + " check " + file.string() + " --schedule stream --prefetch");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("not to a program without a streamed iterator"), std::string::npos)
        << r.output;
    return;
  }
  std::vector<std::pair<std::string, std::string>> variants = {
      {"--schedule stream --prefetch", "opencl"},
      {"--schedule stream --prefetch", "cpp"},
      {"--schedule stream --prefetch --unroll i=2,cyclic --chunk 3", "opencl"},
      // Stream + time_tile: the fused kernel's input rings (per statement where not fused).
      {"--schedule stream --time-tile 2 --prefetch --chunk 3", "opencl"},
      {"--schedule stream --time-tile 3 --prefetch", "cpp"},
  };
  if (retimable(GetParam()))
    variants.push_back({"--schedule stream --prefetch --retime --unroll i=2", "opencl"});
  if (retimableFused(GetParam()))
    variants.push_back({"--schedule stream --time-tile 2 --prefetch --retime", "opencl"});
  for (const auto& [flags, backend] : variants) {
    std::string cmd = tesselBinary() + " run " + file.string() + " --backend " + backend +
                      " --verify " + flags + params;
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n" << r.output;
  }
}

TEST_P(Prefetch, CudaKernelsCompileWithoutSpills) {
  TESSEL_REQUIRE_NVCC();
  if (GetParam() == "jacobi1d-boundary") GTEST_SKIP() << "refused (nothing to stream)";
  const nlohmann::json kernels = expectKernelsCompileWithoutSpills(
      benchmarkPath(GetParam()).string(), "--schedule stream --prefetch");
  bool any = false;
  for (const auto& k : kernels) {
    const std::string applied = k["applied"].get<std::string>();
    any = any || applied.find("prefetched: the next plane in ") != std::string::npos;
    EXPECT_EQ(applied.find("not prefetched"), std::string::npos) << applied;
  }
  EXPECT_TRUE(any) << "some kernel stages a shared plane and prefetches it\n" << kernels;
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(Prefetch);

TEST(PrefetchRefusals, OtherFamiliesAreRefused) {
  const std::string j3d7pt = benchmarkPath("j3d7pt").string();
  for (const char* flags : {"--schedule shared --prefetch", "--schedule global-stream --prefetch",
                            "--schedule overlapped --time-tile 2 --prefetch"}) {
    auto r = runCommand(tesselBinary() + " check " + j3d7pt + " " + flags);
    EXPECT_EQ(r.exitCode, 1) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find("--prefetch: prefetching loads the next plane of a streamed sweep"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("hint: use --schedule stream"), std::string::npos) << r.output;
  }
}

// Stream + time_tile: the fused kernel prefetches each input ring's next plane (j3d7pt: the
// 18x34 plane of `in` over a 32x16 block, 4 registers per thread), and the report says so. (A
// fused block covers its largest stage's region, so a ring's plane spans less than twice the
// block along each dimension: at most 4 registers in 3-D, far below the limit of 16.)
TEST(PrefetchReport, TimeTiledKernelPrefetchesItsInputRings) {
  auto fused = [](const std::string& flags) {
    return fusedKernelReport("j3d7pt", "--time-tile 2 " + flags)["applied"].get<std::string>();
  };
  EXPECT_NE(fused("--prefetch").find("prefetched: the next plane in 4 registers per thread"),
            std::string::npos)
      << fused("--prefetch");
  EXPECT_EQ(fused("").find("prefetched"), std::string::npos);
}
