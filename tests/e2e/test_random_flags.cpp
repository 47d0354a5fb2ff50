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

/// The script's output for `args`, having checked that it ran `summary` and exited 0.
std::string sweep(const std::string& args, const std::string& summary) {
  const std::string cmd = "python3 " + sourceDir() + "/scripts/random_flags.py --tessel " +
                          tesselBinary() + " " + args + " --jobs 2 --quiet";
  auto r = runCommand(cmd);
  EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
  EXPECT_NE(r.output.find(summary), std::string::npos) << r.output;
  return r.output;
}

}  // namespace

TEST(RandomFlags, EveryCombinationEmitsOrIsRefusedWithAHint) {
  const std::string out =
      sweep("--mode emit --seed 5 --count 60", "summary: 60 combinations (seed 5, mode emit)");
  EXPECT_EQ(countOf(out, "bad"), 0) << out;
  EXPECT_EQ(countOf(out, "refused-without-hint"), 0) << out;
  EXPECT_GE(countOf(out, "ok"), 15) << out;
}

TEST(RandomFlags, EveryAcceptedCombinationVerifies) {
  TESSEL_REQUIRE_OPENCL();
  const std::string out = sweep("--mode run --seed 3 --count 30 --backends cpp,opencl",
                                "summary: 30 combinations (seed 3, mode run)");
  EXPECT_EQ(countOf(out, "wrong"), 0) << out;
  EXPECT_EQ(countOf(out, "bad"), 0) << out;
  EXPECT_GE(countOf(out, "passed"), 10) << out;
}
