// Issue 11's acceptance: no spills in any benchmark x family at its default. `tessel resources
// FILE --schedule F --json` compiles the CUDA program that `emit --target cuda` writes with
// nothing but the family given: the 32-bit kernels under the register cap the model chooses from
// ptxas's figures (--max-registers auto, the default where nvcc is found; it refuses a cap that
// spills more than the launch bounds, and here none may spill at all), their 64-bit copies under
// the family's launch bounds. ptxas (sm_90) must report no byte spilled or loaded back in any
// kernel. The other sweeps (test_gpu_staged_benchmarks.cpp, test_gpu_overlapped.cpp,
// test_gpu_stream_time_tile.cpp) check the launch bounds' kernels built in process; this one
// checks what the command line builds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
    "--schedule stream --time-tile 2",
};

class DefaultSpills : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(DefaultSpills, NoKernelOfAnyFamilySpillsAtItsDefault) {
  TESSEL_REQUIRE_NVCC();
  const fs::path file = benchmarkPath(GetParam());
  Parsed p = parseFile(file);
  ASSERT_TRUE(p.prog);
  for (const char* family : kFamilies) {
    SCOPED_TRACE(family);
    // global-stream needs a dimension to stream (refused with a hint on a 1-D program, tested
    // in test_cli_every_family.cpp).
    if (p.prog->dims() == 1 && std::string(family) == "--schedule global-stream") continue;
    const std::string cmd =
        tesselBinary() + " resources --json " + file.string() + " " + family + " 2>&1";
    auto r = runCommand(cmd);
    ASSERT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    // The note on stderr (first) says which cap the model chose; the JSON report follows.
    EXPECT_NE(r.output.find("note: the register cap of the CUDA kernels is the model's "
                            "(--max-registers auto, the default"),
              std::string::npos)
        << r.output;
    const size_t json = r.output.find("\n{");
    ASSERT_NE(json, std::string::npos) << r.output;
    const nlohmann::json report = nlohmann::json::parse(r.output.substr(json + 1));
    ASSERT_FALSE(report["kernels"].empty()) << r.output;
    EXPECT_TRUE(report["warnings"].empty()) << report["warnings"].dump();
    for (const auto& k : report["kernels"]) {
      EXPECT_GT(k["registers"].get<int>(), 0) << k["name"];
      EXPECT_EQ(k["spill_store_bytes"].get<int>(), 0)
          << family << ": " << k["name"] << " spills (" << k["registers"] << " registers)";
      EXPECT_EQ(k["spill_load_bytes"].get<int>(), 0)
          << family << ": " << k["name"] << " spills (" << k["registers"] << " registers)";
    }
  }
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(DefaultSpills);
