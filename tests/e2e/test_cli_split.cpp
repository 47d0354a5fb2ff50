// `tessel split` (issue 13; analysis/fission.h, ir/print_program.h): every benchmark and the
// rhs4center-like kernel written out under trivial-fission and maxfuse; each written program
// passes `tessel check` and computes exactly what its input computes (the reference interpreter's
// copied-out arrays, byte for byte, at small sizes); those that change run and verify on PoCL and
// the C++ backend; the errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "support/command.h"
#include "support/files.h"
#include "support/verify.h"
#include "unit/gpu_test_util.h"

using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `file` on the reference interpreter with `params`, copying the outputs into `dir`.
std::vector<fs::path> referenceOutputs(const std::string& file, const std::string& params,
                                       const fs::path& dir) {
  auto r = runCommand(tesselBinary() + " run " + file + " --backend reference --output " +
                      dir.string() + params);
  EXPECT_EQ(r.exitCode, 0) << file << "\n" << r.output;
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

/// `tessel split FILE --mode MODE` into `dir`: the written program checks and computes the same.
void expectSameResults(const std::string& file, const std::string& mode, const fs::path& dir,
                       const std::string& params) {
  auto s =
      runCommand(tesselBinary() + " split " + file + " --mode " + mode + " -o " + dir.string());
  ASSERT_EQ(s.exitCode, 0) << s.output;
  const fs::path written = dir / (fs::path(file).stem().string() + "-" + mode + ".sten");
  ASSERT_TRUE(fs::exists(written)) << s.output;
  auto c = runCommand(tesselBinary() + " check " + written.string());
  EXPECT_EQ(c.exitCode, 0) << c.output << "\n" << slurp(written);
  EXPECT_EQ(c.output.find("warning"), std::string::npos) << c.output;
  const auto a = referenceOutputs(file, params, dir / "in");
  const auto b = referenceOutputs(written.string(), params, dir / "out");
  ASSERT_EQ(a, b);
  ASSERT_FALSE(a.empty());
  for (const fs::path& f : a)
    EXPECT_EQ(slurp(dir / "in" / f), slurp(dir / "out" / f)) << f << " differs";
}

std::string smallParams(const std::string& bench) {
  return paramFlags(benchmarkPath(bench), {{40}, {23, 29}, {9, 11, 13}}, 3);
}

}  // namespace

TEST(CliSplit, EveryBenchmarkComputesTheSameAfterSplitAndMaxfuse) {
  for (const std::string& b : benchmarkNames())
    for (const char* mode : {"trivial-fission", "maxfuse"}) {
      SCOPED_TRACE(b + " " + mode);
      expectSameResults(benchmarkPath(b).string(), mode, freshTempDir("split", b + "-" + mode),
                        smallParams(b));
    }
}

// Paper 000 Figure 3: three sub-kernels, each recomputing the shared temporaries.
TEST(CliSplit, Rhs4centerLikeSplitsIntoThreeKernels) {
  const std::string file = sourceDir() + "/tests/e2e/data/rhs4center_like.sten";
  const fs::path dir = freshTempDir("split", "rhs4");
  auto s = runCommand(tesselBinary() + " split " + file + " -o " + dir.string());
  ASSERT_EQ(s.exitCode, 0) << s.output;
  EXPECT_NE(s.output.find("call 0 (rhs4) -> 3 kernels, one per output (uacc0, uacc1, uacc2)"),
            std::string::npos)
      << s.output;
  const std::string text = slurp(dir / "rhs4center_like-trivial-fission.sten");
  for (const char* k : {"stencil rhs4_c0 ()", "stencil rhs4_c1 ()", "stencil rhs4_c2 ()"})
    EXPECT_NE(text.find(k), std::string::npos) << text;
  // mux1 is computed in each of the three.
  size_t n = 0;
  for (size_t at = text.find("  mux1 = "); at != std::string::npos;
       at = text.find("  mux1 = ", at + 1))
    ++n;
  EXPECT_EQ(n, 3u) << text;
  expectSameResults(file, "trivial-fission", dir, " --param L=9 --param M=10 --param N=11");
}

// The programs that fission or maxfuse changes (hypterm split in five, fdtd2d's first two calls
// fused, the rhs4center-like kernel split in three) run on the GPU path (PoCL) and the C++
// backend and agree with the reference interpreter, as any program does.
TEST(CliSplit, ChangedProgramsVerifyOnPoclAndTheCppBackend) {
  TESSEL_REQUIRE_OPENCL();
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {benchmarkPath("hypterm").string(), "trivial-fission", smallParams("hypterm")},
      {benchmarkPath("fdtd2d").string(), "maxfuse", smallParams("fdtd2d")},
      {sourceDir() + "/tests/e2e/data/rhs4center_like.sten", "trivial-fission",
       " --param L=9 --param M=10 --param N=11"}};
  for (const auto& [file, mode, params] : cases) {
    SCOPED_TRACE(file + " " + mode);
    const fs::path dir = freshTempDir("split", fs::path(file).stem().string() + "-run");
    auto s =
        runCommand(tesselBinary() + " split " + file + " --mode " + mode + " -o " + dir.string());
    ASSERT_EQ(s.exitCode, 0) << s.output;
    const fs::path written = dir / (fs::path(file).stem().string() + "-" + mode + ".sten");
    for (const char* backend : {"opencl", "cpp"})
      expectRunVerifies(written.string(), backend, params);
  }
}

TEST(CliSplit, Errors) {
  const std::string j3d7pt = benchmarkPath("j3d7pt").string();
  auto bad = runCommand(tesselBinary() + " split " + j3d7pt + " --mode fissile -o /tmp");
  EXPECT_NE(bad.exitCode, 0);
  EXPECT_NE(bad.output.find("fissile"), std::string::npos) << bad.output;
  auto unwritable = runCommand(tesselBinary() + " split " + j3d7pt + " -o /proc/nope");
  EXPECT_EQ(unwritable.exitCode, 1) << unwritable.output;
  EXPECT_NE(unwritable.output.find("tessel: error: cannot write"), std::string::npos)
      << unwritable.output;
}
