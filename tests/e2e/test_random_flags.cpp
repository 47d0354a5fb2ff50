// Random command-line flag combinations over the benchmarks (scripts/random_flags.py): every
// option in combinations no other test wrote. `emit` mode: emit, info, analyze and analyze
// --compare exit 0, or 1 with an error and a hint, never a crash or an internal error. `run`
// mode: run --verify on the C++ target and PoCL at small awkward sizes verifies or is refused
// with an error, never a wrong result. A sweep that only refuses proves little, so each must
// also accept a good part of its combinations.
#include <gtest/gtest.h>

#include <string>

#include "support/command.h"
#include "unit/gpu_test_util.h"

using namespace tessel::testing;

namespace {

int countOf(const std::string& out, const std::string& kind) {
  const auto at = out.find("\n  " + kind + " ");
  if (at == std::string::npos) return -1;
  return std::stoi(out.substr(out.find_first_not_of(' ', at + 3 + kind.size())));
}

}  // namespace

TEST(RandomFlags, EveryCombinationEmitsOrIsRefusedWithAHint) {
  const std::string cmd = "python3 " + sourceDir() + "/scripts/random_flags.py --tessel " +
                          tesselBinary() + " --mode emit --seed 5 --count 60 --jobs 2 --quiet";
  auto r = runCommand(cmd);
  EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
  EXPECT_NE(r.output.find("summary: 60 combinations (seed 5, mode emit)"), std::string::npos)
      << r.output;
  EXPECT_EQ(countOf(r.output, "bad"), 0) << r.output;
  EXPECT_EQ(countOf(r.output, "refused-without-hint"), 0) << r.output;
  EXPECT_GE(countOf(r.output, "ok"), 15) << r.output;
}

TEST(RandomFlags, EveryAcceptedCombinationVerifies) {
  TESSEL_REQUIRE_OPENCL();
  const std::string cmd = "python3 " + sourceDir() + "/scripts/random_flags.py --tessel " +
                          tesselBinary() +
                          " --mode run --seed 3 --count 30 --jobs 2 --quiet --backends cpp,opencl";
  auto r = runCommand(cmd);
  EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
  EXPECT_NE(r.output.find("summary: 30 combinations (seed 3, mode run)"), std::string::npos)
      << r.output;
  EXPECT_EQ(countOf(r.output, "wrong"), 0) << r.output;
  EXPECT_EQ(countOf(r.output, "bad"), 0) << r.output;
  EXPECT_GE(countOf(r.output, "passed"), 10) << r.output;
}
