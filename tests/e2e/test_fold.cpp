// Issue 12, storage and computation folding (`--fold`, analysis/folding.h, paper 000 III-B4):
// under `shared` and `stream` the arrays a statement only combines point-wise are staged as
// their combination. Every benchmark agrees with the reference on PoCL under both families
// (hypterm and denoise fold; the others say there is nothing to fold), and on the C++ target;
// hypterm's folded kernels stage half the arrays (the kernel report's shared memory and shared
// loads); other families are refused. Oclgrind: test_oclgrind.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/command.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

class Fold : public ::testing::TestWithParam<std::string> {};

nlohmann::json kernels(const std::string& bench, const std::string& flags) {
  auto r = runCommand(tesselBinary() + " info --kernels --json --no-ptxas " +
                      benchmarkPath(bench).string() + " " + flags);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return nlohmann::json::parse(r.output.substr(r.output.find('{')))["kernels"];
}

}  // namespace

TEST_P(Fold, SharedAndStreamVerifyOnPocl) {
  TESSEL_REQUIRE_OPENCL();
  fs::path file = benchmarkPath(GetParam());
  // The stencils with something to fold (the others get a note: nothing to fold).
  const std::string folding = GetParam() == "hypterm"   ? "hypterm"
                              : GetParam() == "denoise" ? "rician"
                                                        : "";
  for (const char* family : {"shared", "stream"}) {
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

INSTANTIATE_TEST_SUITE_P(All, Fold, ::testing::ValuesIn(benchmarkNames()), benchmarkTestName);

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

TEST(FoldRefusals, OtherFamiliesAndRetimingAreRefused) {
  const std::string hypterm = benchmarkPath("hypterm").string();
  for (const char* flags :
       {"--schedule global --fold", "--schedule global-stream --fold",
        "--schedule overlapped --fold", "--schedule stream --time-tile 2 --fold"}) {
    auto r = runCommand(tesselBinary() + " check " + hypterm + " " + flags);
    EXPECT_EQ(r.exitCode, 1) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find("--fold: folding stages arrays combined point-wise"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("hint: use --schedule shared or stream"), std::string::npos)
        << r.output;
  }
  auto rt = runCommand(tesselBinary() + " check " + hypterm + " --schedule stream --retime --fold");
  EXPECT_EQ(rt.exitCode, 1) << rt.output;
  EXPECT_NE(rt.output.find("not to retimed ones"), std::string::npos) << rt.output;
  // `tessel info` says which statements can fold.
  auto info = runCommand(tesselBinary() + " info " + hypterm);
  EXPECT_NE(info.output.find("foldable: my * u (8 combinations per point)"), std::string::npos)
      << info.output;
}
