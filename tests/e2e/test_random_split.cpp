// Random valid programs (scripts/random_programs.py's generator) through `tessel split` in every
// mode and `tessel deep-tune -o` (scripts/random_split.py): the written program passes `tessel
// check` and computes, on the
// reference interpreter, the same arrays as its input (issue 13's acceptance, on programs
// nobody wrote by hand). A mode that does not apply to a program refuses it with a reason
// (allowed); a different array, a failed check or run, or a crash fails.
#include <gtest/gtest.h>

#include <string>

#include "support/command.h"

using namespace tessel::testing;

TEST(RandomSplit, WrittenProgramsComputeWhatTheirInputsCompute) {
  const std::string cmd = "python3 " + sourceDir() + "/scripts/random_split.py --tessel " +
                          tesselBinary() +
                          " --seed 48 --count 30 --jobs 1 --modes "
                          "trivial-fission,maxfuse,recompute-fission,greedy,modesto,deep-tune";
  auto r = runCommand(cmd);
  EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
  EXPECT_NE(r.output.find("summary: 30 programs (seed 48) x 6 modes"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("  different        0"), std::string::npos) << r.output;
  // Most (program, mode) pairs are split and compared: a sweep that only refuses proves nothing.
  const auto at = r.output.find("  same");
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_GE(std::stoi(r.output.substr(at + 6)), 120) << r.output;
}
