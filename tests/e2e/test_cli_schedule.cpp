// Schedule flags on the command line: validated against the machine, shown by `tessel info`.
#include <gtest/gtest.h>

#include <fstream>

#include "support/command.h"
#include "support/files.h"
#include "support/verify.h"

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

TEST(CliSchedule, APragmasFamilyOnTheCppBackendSaysItRunsTheGpuKernels) {
  // heat's `#pragma stream k` has the C++ backend run its GPU kernels on the CPU: one note says
  // so and names the loop nests' flag; the command line's family (global, or stream itself)
  // gives no such note.
  const std::string small = " --param L=9 --param M=7 --param N=11 --verify";
  auto r = runCommand(tesselBinary() + " run " + bench("heat") + small);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("note: stencil 'heat': the `#pragma` at "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("heat.sten:13:9 names the stream family, so the C++ backend runs its "
                          "GPU kernels on the CPU"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--schedule global runs plain loop nests"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << r.output;
  for (const char* family : {"global", "stream"}) {
    auto c = runCommand(tesselBinary() + " run " + bench("heat") + small + " --schedule " + family);
    ASSERT_EQ(c.exitCode, 0) << c.output;
    EXPECT_EQ(c.output.find("names the stream family"), std::string::npos) << c.output;
  }
}

TEST(CliSchedule, AFamilyOnTheCommandLineLeavesOutThePragmasClausesItDoesNotApply) {
  // language.md section 8: the command line overrides the file, and a clause the chosen family
  // does not apply is a note. A `#pragma` written for `stream` (prefetch, retime) and one for
  // `shared` (perspective input) run under another family of the command line, each with a
  // note; the command line's own clauses and a file that contradicts itself stay errors.
  const auto dir = freshTempDir("cli-schedule", "pragma-clauses");
  const std::string file = (dir / "p.sten").string(), self = (dir / "self.sten").string();
  std::ofstream(file)
      << "parameter M=37, N=41;\n"
         "iterator j, i;\n"
         "double a[M, N], b[M, N], c[M, N];\n"
         "copyin a, c;\n"
         "#pragma stream j prefetch retime\n"
         "stencil s (B, A) {\n"
         "  B[j][i] = 0.2 * (A[j-1][i] + A[j+1][i] + A[j][i-1] + A[j][i+1] + A[j][i]);\n"
         "}\n"
         "#pragma block (16, 16) perspective input\n"
         "stencil t (C, B) {\n"
         "  C[j][i] = 0.5 * (B[j][i-1] + B[j][i+1]);\n"
         "}\n"
         "s (b, a);\n"
         "t (c, b);\n"
         "copyout c;\n";
  std::ofstream(self) << "parameter M=37, N=41;\n"
                         "iterator j, i;\n"
                         "double a[M, N], b[M, N];\n"
                         "copyin a;\n"
                         "#pragma prefetch\n"
                         "stencil s (B, A) {\n"
                         "  B[j][i] = A[j-1][i] + A[j+1][i];\n"
                         "}\n"
                         "s (b, a);\n";
  // As written, s streams with prefetch and retime; t's perspective asks for --schedule shared.
  auto asWritten = runCommand(tesselBinary() + " check " + file + " --stream j");
  EXPECT_EQ(asWritten.exitCode, 0) << asWritten.output;
  const std::string left = "is left out: it applies to ";
  for (const char* family : {"shared", "global", "overlapped"}) {
    const std::string cmd = tesselBinary() + " info " + file + " --schedule " + family;
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "stencil 's': prefetch (" + file + ":5:18) " + left +
                                       "the stream family's kernels, and --schedule " + family +
                                       " chose '" + family + "'"))
        << cmd << "\n"
        << r.output;
    EXPECT_TRUE(contains(r.output, "stencil 's': retime (" + file + ":5:27) " + left))
        << cmd << "\n"
        << r.output;
    EXPECT_EQ(contains(r.output, "stencil 't': perspective input (" + file + ":9:24) " + left),
              std::string(family) != "shared")
        << cmd << "\n"
        << r.output;
  }
  // Under stream, s keeps both and t's perspective is left out.
  auto stream = runCommand(tesselBinary() + " info " + file + " --schedule stream");
  EXPECT_EQ(stream.exitCode, 0) << stream.output;
  EXPECT_FALSE(contains(stream.output, "stencil 's': prefetch")) << stream.output;
  EXPECT_TRUE(contains(stream.output, "stencil 't': perspective input")) << stream.output;
  // --schedule auto: the model chooses, and a clause left out says the model chose.
  auto chosen = runCommand(tesselBinary() + " emit " + file +
                           " --target opencl --schedule auto -o " + (dir / "chosen").string());
  EXPECT_EQ(chosen.exitCode, 0) << chosen.output;
  EXPECT_TRUE(contains(chosen.output, "note: --schedule auto: the model ranks")) << chosen.output;
  // Unless the model chose stream, s's prefetch (a stream clause) is left out, and the note
  // names the model, never a --schedule the user did not give.
  const size_t ranks = chosen.output.find("ranks '");
  ASSERT_NE(ranks, std::string::npos) << chosen.output;
  if (chosen.output.compare(ranks + 7, 6, "stream") != 0) {
    EXPECT_TRUE(contains(chosen.output, "stencil 's': prefetch (" + file + ":5:18) " + left))
        << chosen.output;
    EXPECT_TRUE(contains(chosen.output, "and the performance model (--schedule auto) chose '"))
        << chosen.output;
  }
  EXPECT_FALSE(contains(chosen.output, "and --schedule ")) << chosen.output;
  // The runs verify on the C++ target (the GPU kernels on the CPU) under each family.
  for (const char* family : {"shared", "global", "stream"})
    expectRunVerifies(file, "cpp", std::string("--schedule ") + family);
  // The command line's own clause is refused, and so is a file that contradicts itself.
  auto own = runCommand(tesselBinary() + " check " + file + " --schedule shared --prefetch");
  EXPECT_EQ(own.exitCode, 1) << own.output;
  EXPECT_TRUE(contains(own.output, "--prefetch: prefetching loads the next plane")) << own.output;
  auto contradicts = runCommand(tesselBinary() + " check " + self);
  EXPECT_EQ(contradicts.exitCode, 1) << contradicts.output;
  EXPECT_TRUE(contains(contradicts.output, "self.sten:5:9: error: 'prefetch': prefetching loads"))
      << contradicts.output;
}

TEST(CliSchedule, AFusedKernelSaysWhoseBlockItRunsWith) {
  // Two stencils whose `#pragma`s ask for different blocks, fused into one kernel: it runs with
  // the first call's block, and a note says so (nothing silently ignored).
  const auto dir = freshTempDir("cli-schedule", "fused-blocks");
  const std::string file = (dir / "two.sten").string();
  std::ofstream(file) << "parameter M=40, N=50;\n"
                         "iterator j, i;\n"
                         "double a[M, N], b[M, N];\n"
                         "copyin a;\n"
                         "#pragma block (32, 4)\n"
                         "stencil s (B, A) {\n"
                         "  B[j][i] = 0.25 * (A[j-1][i] + A[j+1][i] + A[j][i-1] + A[j][i+1]);\n"
                         "}\n"
                         "#pragma block (16, 16)\n"
                         "stencil t (B, A) {\n"
                         "  B[j][i] = 0.5 * (A[j][i-1] + A[j][i+1]);\n"
                         "}\n"
                         "s (b, a);\n"
                         "t (a, b);\n";
  const std::string note =
      "note: stencil 's': overlapped: calls 0, 1: stencil 't' asks for block 16x16x1; the fused "
      "kernel runs with block 32x4x1, the first call's (stencil 's'): one kernel, one block";
  auto r = runCommand(tesselBinary() + " info --no-ptxas " + file +
                      " --schedule overlapped --time-tile 2");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(contains(r.output, note)) << r.output;
  // One block for every stencil from the command line: nothing to say.
  auto same = runCommand(tesselBinary() + " info --no-ptxas " + file +
                         " --schedule overlapped --time-tile 2 --block 64,2");
  EXPECT_EQ(same.exitCode, 0) << same.output;
  EXPECT_FALSE(contains(same.output, "asks for block")) << same.output;
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
