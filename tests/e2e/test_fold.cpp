// Issue 12, storage and computation folding (`--fold`, analysis/folding.h, paper 000 III-B4):
// under `shared` and `stream` the arrays a statement only combines point-wise are staged as
// their combination, and under stream + time_tile the arrays a fused sequence only combines
// point-wise share one input ring. Every benchmark agrees with the reference on PoCL under the
// three (hypterm and denoise fold; the others say there is nothing to fold), and on the C++
// target; hypterm's folded kernels stage half the arrays (the kernel report's shared memory and
// shared loads); a fused ping-pong sweep (tests/e2e/data/fold_sweep.sten) drops one ring and
// agrees at awkward sizes with prefetching, unrolling and chunks; where another statement of the
// fused sequence reads an array alone, a note names it (fold_partial.sten); other families are
// refused. Oclgrind: test_oclgrind.cpp.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "support/command.h"
#include "support/files.h"
#include "support/ptxas.h"
#include "support/verify.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

class FoldEveryBenchmark : public ::testing::TestWithParam<std::string> {};

nlohmann::json kernelsOf(const std::string& file, const std::string& flags) {
  auto r = runCommand(tesselBinary() + " info --kernels --json --no-ptxas " + file + " " + flags);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return nlohmann::json::parse(r.output.substr(r.output.find('{')))["kernels"];
}

nlohmann::json kernels(const std::string& bench, const std::string& flags) {
  return kernelsOf(benchmarkPath(bench).string(), flags);
}

std::string dataFile(const std::string& name) {
  return sourceDir() + "/tests/e2e/data/" + name + ".sten";
}

/// The fused kernel of `ks` (stream + time_tile: the one whose name starts with "fused").
nlohmann::json fusedKernel(const nlohmann::json& ks) {
  for (const auto& k : ks)
    if (k["name"].get<std::string>().rfind("fused", 0) == 0) return k;
  ADD_FAILURE() << "no fused kernel in " << ks.dump();
  return nlohmann::json::object();
}

}  // namespace

TEST_P(FoldEveryBenchmark, SharedAndStreamVerifyOnPocl) {
  TESSEL_REQUIRE_OPENCL();
  fs::path file = benchmarkPath(GetParam());
  // The stencils with something to fold (the others get a note: nothing to fold).
  const std::string folding = GetParam() == "hypterm"   ? "hypterm"
                              : GetParam() == "denoise" ? "rician"
                                                        : "";
  for (const char* family : {"shared", "stream", "stream --time-tile 2"}) {
    std::string cmd = tesselBinary() + " run " + file.string() +
                      " --backend opencl --verify --fold --schedule " + family +
                      awkwardParamFlags(file);
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n" << r.output;
    if (folding.empty())
      EXPECT_NE(r.output.find("nothing to fold"), std::string::npos) << r.output;
    else
      EXPECT_EQ(r.output.find("stencil '" + folding + "': fold"), std::string::npos) << r.output;
  }
}

// The folded kernels compile with nvcc and none spills (shared and stream; a benchmark with
// nothing to fold compiles as without the option).
TEST_P(FoldEveryBenchmark, CudaKernelsCompileWithoutSpills) {
  TESSEL_REQUIRE_NVCC();
  const std::string file = benchmarkPath(GetParam()).string();
  expectKernelsCompileWithoutSpills(file, "--schedule shared --fold");
  if (GetParam() != "jacobi1d-boundary")  // nothing to stream in 1-D
    expectKernelsCompileWithoutSpills(file, "--schedule stream --fold");
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(FoldEveryBenchmark);

// gpu.md section 18: a folded kernel computes each combination once per element loaded, in the
// order written, so its results are bit for bit the unfolded kernel's (not only within the
// tolerance: denoise's differ from the reference interpreter's in the last bit either way, its
// OpenCL sqrt not the host's). Every result array of hypterm's and denoise's folded runs, as
// `--output` writes it, is byte for byte the unfolded run's, under the three families.
TEST(FoldExactness, FoldedResultsAreBitForBitTheUnfoldedOnes) {
  TESSEL_REQUIRE_OPENCL();
  for (const char* bench : {"hypterm", "denoise"}) {
    const fs::path file = benchmarkPath(bench);
    for (const char* family : {"shared", "stream", "stream --time-tile 2"}) {
      SCOPED_TRACE(std::string(bench) + " " + family);
      std::map<std::string, std::string> arrays[2];
      for (int fold = 0; fold < 2; ++fold) {
        const fs::path out = freshTempDir("fold-exact", std::string(bench) + (fold ? "-f" : "-u"));
        const std::string cmd = tesselBinary() + " run " + file.string() +
                                " --backend opencl --schedule " + family + (fold ? " --fold" : "") +
                                " --output " + out.string() + awkwardParamFlags(file);
        auto r = runCommand(cmd);
        ASSERT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
        for (const auto& e : fs::directory_iterator(out))
          arrays[fold][e.path().filename().string()] = readText(e.path());
      }
      ASSERT_FALSE(arrays[0].empty());
      ASSERT_EQ(arrays[0].size(), arrays[1].size());
      for (const auto& [name, bytes] : arrays[0]) {
        ASSERT_TRUE(arrays[1].count(name)) << name;
        EXPECT_TRUE(arrays[1].at(name) == bytes) << name << " differs with --fold";
      }
    }
  }
}

TEST(FoldHypterm, FoldedKernelsStageHalfTheArraysAndAgreeOnTheCppTarget) {
  TESSEL_REQUIRE_OPENCL();
  for (const char* family : {"--schedule shared", "--schedule stream"}) {
    SCOPED_TRACE(family);
    nlohmann::json plain = kernels("hypterm", family);
    nlohmann::json folded = kernels("hypterm", std::string(family) + " --fold");
    ASSERT_EQ(plain.size(), 5u);
    ASSERT_EQ(folded.size(), 5u);
    // Statements 2 to 4 (flux_mx, flux_my, flux_mz) fold `m* * u`; 1 and 5 do not.
    for (size_t k = 0; k < 5; ++k) {
      const std::string applied = folded[k]["applied"].get<std::string>();
      const bool folds = k >= 1 && k <= 3;
      EXPECT_EQ(applied.find("folded: ") != std::string::npos, folds) << k << ": " << applied;
      if (!folds) {
        EXPECT_EQ(folded[k]["shared_bytes"], plain[k]["shared_bytes"]) << k;
        continue;
      }
      EXPECT_NE(applied.find(" * u staged as one array"), std::string::npos) << applied;
      EXPECT_LT(folded[k]["shared_bytes"].get<int64_t>(), plain[k]["shared_bytes"].get<int64_t>())
          << k;
      EXPECT_LT(folded[k]["traffic"]["shared_loads"].get<double>(),
                plain[k]["traffic"]["shared_loads"].get<double>())
          << k;
      // The partner is still read from DRAM: the model's DRAM bytes do not fall.
      EXPECT_EQ(folded[k]["traffic"]["dram_bytes"], plain[k]["traffic"]["dram_bytes"]) << k;
    }
    // flux_my: my and u staged as one array instead of two.
    EXPECT_EQ(2 * folded[2]["shared_bytes"].get<int64_t>(),
              plain[2]["shared_bytes"].get<int64_t>());
    auto r = runCommand(tesselBinary() + " run " + benchmarkPath("hypterm").string() +
                        " --backend cpp --verify --fold " + family +
                        awkwardParamFlags(benchmarkPath("hypterm")));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << r.output;
  }
}

TEST(FoldStreamTimeTile, FusedKernelStagesOneRingForThePairAndAgrees) {
  TESSEL_REQUIRE_OPENCL();
  const std::string file = dataFile("fold_sweep");
  const std::string tt = "--schedule stream --time-tile 2";
  nlohmann::json plain = fusedKernel(kernelsOf(file, tt));
  nlohmann::json folded = fusedKernel(kernelsOf(file, tt + " --fold"));
  // m * c (read at the six neighbours) is one ring: c's 4 planes of 10x34 doubles are gone.
  const std::string applied = folded["applied"].get<std::string>();
  EXPECT_NE(applied.find("folded: m * c staged as one array"), std::string::npos) << applied;
  EXPECT_EQ(plain["applied"].get<std::string>().find("folded"), std::string::npos);
  EXPECT_EQ(plain["shared_bytes"].get<int64_t>() - folded["shared_bytes"].get<int64_t>(),
            4 * 10 * 34 * 8);
  // p - q is read only at the centre (from global memory): not folded, nothing to stage.
  EXPECT_EQ(applied.find("p - q"), std::string::npos) << applied;
  // The stages read one ring where they read two; c is still loaded (with m) from DRAM.
  EXPECT_LT(folded["traffic"]["shared_loads"].get<double>(),
            plain["traffic"]["shared_loads"].get<double>());
  EXPECT_EQ(folded["traffic"]["dram_bytes"], plain["traffic"]["dram_bytes"]);
  EXPECT_EQ(folded["loads_per_point"], plain["loads_per_point"]);
  // Awkward sizes: fewer planes than the fused halo, a plane smaller than a tile; and one
  // spanning several tiles and chunks, on PoCL and the C++ target.
  for (const char* sizes : {" --param L=5 --param M=3 --param N=17 --param T=2",
                            " --param L=23 --param M=19 --param N=41 --param T=2"})
    for (const char* flags :
         {"--time-tile 2", "--time-tile 3 --chunk 3 --block 13,10",
          "--time-tile 2 --prefetch --unroll j=2", "--time-tile 2 --unroll i=2,cyclic",
          "--time-tile 3 --spare-plane off"}) {
      const std::string f = std::string("--schedule stream --fold ") + flags + sizes;
      expectRunVerifies(file, "opencl", f);
      expectRunVerifies(file, "cpp", f);
    }
}

TEST(FoldStreamTimeTile, ANoteSaysWhyAPairDoesNotFoldInTheFusedKernel) {
  TESSEL_REQUIRE_OPENCL();
  const std::string file = dataFile("fold_partial");
  const std::string flags = "--schedule stream --time-tile 2 --fold";
  auto r = runCommand(tesselBinary() + " run " + file + " --backend opencl --verify " + flags);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fold: 'm * c' folds in 'sweep' alone but not in the fused kernel: "
                          "statement s0 of 'smooth' reads 'm' otherwise"),
            std::string::npos)
      << r.output;
  // p - q (read at i - 1 and i + 1: a ring) folds over both stages.
  const std::string applied = fusedKernel(kernelsOf(file, flags))["applied"].get<std::string>();
  EXPECT_NE(applied.find("folded: p - q staged as one array"), std::string::npos) << applied;
  EXPECT_EQ(applied.find("m * c"), std::string::npos) << applied;
  // The per-statement kernels of `sweep` (the remainder steps, had there been any) fold both.
  auto info = runCommand(tesselBinary() + " info --kernels --no-ptxas " + file + " " + flags);
  EXPECT_NE(info.output.find("folded: m * c, p - q staged as one array"), std::string::npos)
      << info.output;
  expectRunVerifies(file, "cpp", flags + " --param L=6 --param M=5 --param N=9 --param T=2");
}

TEST(FoldRefusals, OtherFamiliesAndRetimingAreRefused) {
  const std::string hypterm = benchmarkPath("hypterm").string();
  for (const char* flags : {"--schedule global --fold", "--schedule global-stream --fold",
                            "--schedule overlapped --fold"}) {
    auto r = runCommand(tesselBinary() + " check " + hypterm + " " + flags);
    EXPECT_EQ(r.exitCode, 1) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find("--fold: folding stages arrays combined point-wise"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("hint: use --schedule shared or stream"), std::string::npos)
        << r.output;
  }
  auto ov = runCommand(tesselBinary() + " check " + hypterm + " --schedule overlapped --fold");
  EXPECT_NE(ov.output.find("read the arrays they do not write from global memory: nothing is "
                           "staged to fold"),
            std::string::npos)
      << ov.output;
  for (const char* flags :
       {"--schedule stream --retime --fold", "--schedule stream --time-tile 2 --retime --fold"}) {
    auto rt = runCommand(tesselBinary() + " check " + hypterm + " " + flags);
    EXPECT_EQ(rt.exitCode, 1) << flags << "\n" << rt.output;
    EXPECT_NE(rt.output.find("not to retimed ones"), std::string::npos) << rt.output;
  }
  // stream + time_tile takes it.
  auto tt =
      runCommand(tesselBinary() + " check " + hypterm + " --schedule stream --time-tile 2 --fold");
  EXPECT_EQ(tt.exitCode, 0) << tt.output;
  // `tessel info` says which statements can fold.
  auto info = runCommand(tesselBinary() + " info " + hypterm);
  EXPECT_NE(info.output.find("foldable: my * u (8 combinations per point)"), std::string::npos)
      << info.output;
}
