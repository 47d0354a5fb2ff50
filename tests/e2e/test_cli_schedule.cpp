// Schedule flags on the command line: validated against the machine, shown by `tessel info`.
#include <gtest/gtest.h>

#include "support/command.h"

using namespace tessel::testing;

namespace {
std::string bench(const std::string& b) { return sourceDir() + "/benchmarks/" + b + ".sten"; }
}  // namespace

TEST(CliSchedule, InfoShowsTheScheduleFromPragmasAndFlags) {
  auto r = runCommand(tesselBinary() + " info " + bench("heat"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("schedule: stream, stream k, chunk 16, block (32, 16)"),
            std::string::npos)
      << r.output;
  auto c = runCommand(tesselBinary() + " info " + bench("heat") + " --chunk 3");
  ASSERT_EQ(c.exitCode, 0) << c.output;
  EXPECT_NE(c.output.find("schedule: stream, stream k, chunk 3, block (32, 16)"), std::string::npos)
      << c.output;
  auto o =
      runCommand(tesselBinary() + " info " + bench("heat") + " --schedule global --block 64,4");
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("schedule: global, block (64, 4"), std::string::npos) << o.output;
}

TEST(CliSchedule, ImpossibleSchedulesAreUserErrors) {
  struct Case {
    std::string args, message;
  } cases[] = {
      {bench("heat") + " --block 64,32", "2048 threads"},
      {bench("j3d7pt") + " --stream q", "'q' is not an iterator"},
      {bench("j3d7pt") + " --unroll j=0", "must be at least 1"},
      {bench("jacobi1d-boundary") + " --schedule global-stream", "needs a 2-D or 3-D program"},
      {bench("jacobi1d-boundary") + " --stream i", "the 'stream' schedule needs a 2-D or 3-D"},
      {bench("j3d7pt") + " --chunk 0", "a chunk has at least 1 plane"},
      {bench("j3d13pt") + " --schedule shared --block 1024 --machine k20c",
       "bytes of shared memory per block"},
      {bench("j2d5pt") + " --machine nosuchgpu", "nosuchgpu"},
  };
  for (auto& c : cases) {
    auto r = runCommand(tesselBinary() + " check " + c.args);
    EXPECT_EQ(r.exitCode, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}
