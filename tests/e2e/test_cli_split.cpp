// `tessel split` (issue 13; analysis/fission.h, ir/print_program.h): every benchmark and the
// rhs4center-like kernel written out under trivial-fission and maxfuse; each written program
// passes `tessel check` and computes exactly what its input computes (the reference interpreter's
// copied-out arrays, byte for byte, at small sizes); those that change run and verify on PoCL and
// the C++ backend; the errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
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
                       const std::string& params, const std::string& splitFlags = "") {
  auto s = runCommand(tesselBinary() + " split " + file + " --mode " + mode + " -o " +
                      dir.string() + splitFlags);
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

/// ` --groups C:0|1|...` for every call of `file` with several statements: each statement a
/// kernel of its own (every temporary crosses); empty when no call has several.
std::string everyStatementApart(const std::string& file) {
  auto r = runCommand(tesselBinary() + " info " + file + " --json 2>/dev/null");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  std::string flags;
  for (size_t c = 0; c < j["calls"].size(); ++c) {
    const size_t n = j["calls"][c]["statements"].size();
    if (n < 2) continue;
    flags += " --groups '" + std::to_string(c) + ":0";
    for (size_t s = 1; s < n; ++s) flags += "|" + std::to_string(s);
    flags += "'";
  }
  return flags;
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

// Which benchmarks trivial-fission splits, as docs/fusion.md lists them (it once said only
// hypterm): hypterm's call in five, rhs4center's and rhs4sg's in three, diffterm's velgrad in
// nine; diffterm's difflux stays whole, with why; every other call writes one global array.
TEST(CliSplit, WhichBenchmarksSplit) {
  std::map<std::string, std::string> notes;  // benchmark -> its notes
  for (const std::string& b : benchmarkNames()) {
    auto r = runCommand(tesselBinary() + " split " + benchmarkPath(b).string() + " -o " +
                        freshTempDir("split", b + "-which").string());
    ASSERT_EQ(r.exitCode, 0) << b << "\n" << r.output;
    std::string lines;
    std::istringstream in(r.output);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("call ", 0) == 0) lines += line + "\n";
    if (!lines.empty()) notes[b] = lines;
  }
  EXPECT_EQ(notes.size(), 4u);
  const std::map<std::string, std::vector<std::string>> expected = {
      {"diffterm",
       {"call 0 (velgrad) -> 9 kernels, one per output (ux, uy, uz, vx, vy, vz, wx, wy, wz)",
        "call 1 (difflux) stays whole: statement s3 of 'difflux' touches 'difflux_mx', which "
        "statement s0 writes in the kernel of 'difflux_mx'"}},
      {"hypterm",
       {"call 0 (hypterm) -> 5 kernels, one per output (flux_rho, flux_mx, flux_my, flux_mz, "
        "flux_e)"}},
      {"rhs4center", {"call 0 (rhs4center) -> 3 kernels, one per output (uacc0, uacc1, uacc2)"}},
      {"rhs4sg", {"call 0 (rhs4sg) -> 3 kernels, one per output (uacc0, uacc1, uacc2)"}}};
  for (const auto& [b, lines] : expected)
    for (const std::string& line : lines)
      EXPECT_NE(notes[b].find(line), std::string::npos) << b << ": " << line << "\n" << notes[b];
}

// Fusion groups written out (analysis/regroup.h): every statement of every benchmark in a
// kernel of its own (each temporary through global memory, per assignment for scalars assigned
// several times, regions pinned where they would grow), and the greedy plan's kernels with the
// recomputation bounded to order 2, compute byte for byte what the input computes.
TEST(CliSplit, EveryBenchmarkComputesTheSameRegrouped) {
  int regrouped = 0;
  for (const std::string& b : benchmarkNames()) {
    const std::string file = benchmarkPath(b).string();
    const std::string apart = everyStatementApart(file);
    if (!apart.empty()) {
      SCOPED_TRACE(b + " every statement apart");
      expectSameResults(file, "groups", freshTempDir("split", b + "-groups"), smallParams(b),
                        apart);
      ++regrouped;
    }
    SCOPED_TRACE(b + " greedy");
    expectSameResults(file, "greedy", freshTempDir("split", b + "-greedy"), smallParams(b),
                      " --fusion-max-order 2");
  }
  EXPECT_GE(regrouped, 9);  // cheby, cosmo-hdiff, denoise, diffterm, fdtd2d, gradient, heat, ...
  const std::string rhs4 = sourceDir() + "/tests/e2e/data/rhs4center_like.sten";
  expectSameResults(rhs4, "groups", freshTempDir("split", "rhs4-groups"),
                    " --param L=9 --param M=10 --param N=11", everyStatementApart(rhs4));
}

// Locals named as global arrays and scalars (language.md 4.3): a written stencil names the
// globals directly, so such a local is written with a name of its own (ir/print_program.h).
// Before, the local array A hid the global A its call read through a formal (`B[i] = A[i] +
// A[i]`: the input read the global), and `double s = c * 2.0;` with c bound to the global s
// became `double s = s * 2.0;`, which does not check. Every mode computes what the input does.
TEST(CliSplit, LocalsNamedAsGlobalsKeepTheirMeaning) {
  const std::string file = sourceDir() + "/tests/e2e/data/locals_named_as_globals.sten";
  const std::string params = " --param N=19 --param T=2";
  for (const auto& [mode, flags] :
       std::vector<std::pair<std::string, std::string>>{{"trivial-fission", ""},
                                                        {"maxfuse", ""},
                                                        {"recompute-fission", ""},
                                                        {"greedy", ""},
                                                        {"modesto", ""},
                                                        {"groups", everyStatementApart(file)}}) {
    SCOPED_TRACE(mode);
    const fs::path dir = freshTempDir("split", "locals-" + mode);
    expectSameResults(file, mode, dir, params, flags);
    if (mode == "groups") continue;  // A crosses: a global array of its own
    const std::string text = slurp(dir / ("locals_named_as_globals-" + mode + ".sten"));
    // f's local array A and initialised local s.
    for (const char* renamed :
         {"  double A_f[N];  // 'A' in the input: a global has that name\n",
          "  double s_f = s * 2.0;  // 's' in the input: a global has that name\n",
          "  B[i] = A_f[i-1] + A_f[i+1] + A[i];\n"})
      EXPECT_NE(text.find(renamed), std::string::npos) << renamed << text;
  }
}

// recompute-fission (paper 000 VI-B) splits the six-stage chain after its fifth stage (a
// recomputation halo of 5 fused whole, above max(4, r) = 4); the split computes the same, and
// runs and verifies on PoCL and the C++ backend with each kernel's halo recomputed on chip.
TEST(CliSplit, RecomputeFissionSplitsADeepChain) {
  const std::string chain = sourceDir() + "/tests/e2e/data/deep_chain.sten";
  const fs::path dir = freshTempDir("split", "deep-chain");
  auto s = runCommand(tesselBinary() + " split " + chain + " --mode recompute-fission -o " +
                      dir.string());
  ASSERT_EQ(s.exitCode, 0) << s.output;
  EXPECT_NE(s.output.find("call 0 (chain) -> 2 kernels [s0,s1,s2,s3,s4] [s5]; in global memory "
                          "between them: t5 -> t5"),
            std::string::npos)
      << s.output;
  const std::string params = " --param L=5 --param M=17 --param N=19";
  expectSameResults(chain, "recompute-fission", dir, params);
  TESSEL_REQUIRE_OPENCL();
  const std::string written = (dir / "deep_chain-recompute-fission.sten").string();
  for (const char* backend : {"opencl", "cpp"})
    expectRunVerifies(written, backend, params + " --schedule overlapped");
}

// MODESTO's grouping written out: the horizontal diffusion split as the paper splits it in a
// small block memory, and heat's calls (fused whole), compute what their inputs compute.
TEST(CliSplit, ModestoGroupingsComputeTheSame) {
  const fs::path dir = freshTempDir("split", "hdiff-modesto");
  const std::string hdiff = benchmarkPath("cosmo-hdiff").string();
  auto s = runCommand(tesselBinary() + " split " + hdiff +
                      " --mode modesto --modesto-capacity 1300 -o " + dir.string());
  ASSERT_EQ(s.exitCode, 0) << s.output;
  EXPECT_NE(s.output.find("MODESTO's cheapest grouping [[lap],[fli,flj,out]]"), std::string::npos)
      << s.output;
  EXPECT_NE(s.output.find("call 0 (hdiff) -> 2 kernels [s0] [s1,s2,s3]"), std::string::npos)
      << s.output;
  EXPECT_NE(s.output.find("tessel: MODESTO's grouping of call 0 (hdiff): 4 statements"),
            std::string::npos)
      << s.output;
  expectSameResults(hdiff, "modesto", dir, smallParams("cosmo-hdiff"), " --modesto-capacity 1300");
  expectSameResults(benchmarkPath("heat").string(), "modesto", freshTempDir("split", "heat-m"),
                    smallParams("heat"));
}

// The regrouped programs run on the GPU path (PoCL) and the C++ backend under the families that
// fuse a call's statements (overlapped recomputes each kernel's halos on chip; global
// --fuse-statements fuses where no thread needs another's values) and agree with the reference.
TEST(CliSplit, RegroupedProgramsVerifyOnPoclAndTheCppBackend) {
  TESSEL_REQUIRE_OPENCL();
  const std::string rhs4 = sourceDir() + "/tests/e2e/data/rhs4center_like.sten";
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {benchmarkPath("cosmo-hdiff").string(), " --mode groups --groups '0|1-3'",
       smallParams("cosmo-hdiff")},
      {benchmarkPath("cosmo-hdiff").string(), " --mode greedy --fusion-max-order 2",
       smallParams("cosmo-hdiff")},
      {benchmarkPath("denoise").string(),
       " --mode groups" + everyStatementApart(benchmarkPath("denoise").string()),
       smallParams("denoise")},
      {rhs4, " --mode groups --groups '0-5|6,7|8,9|10,11'",
       " --param L=9 --param M=10 --param N=11"}};
  for (const auto& [file, flags, params] : cases) {
    SCOPED_TRACE(file + flags);
    const fs::path dir = freshTempDir("split", fs::path(file).stem().string() + "-regroup");
    auto s = runCommand(tesselBinary() + " split " + file + flags + " -o " + dir.string());
    ASSERT_EQ(s.exitCode, 0) << s.output;
    const std::string mode = flags.find("greedy") != std::string::npos ? "greedy" : "groups";
    const fs::path written = dir / (fs::path(file).stem().string() + "-" + mode + ".sten");
    for (const char* backend : {"opencl", "cpp"})
      for (const char* schedule :
           {" --schedule overlapped", " --schedule global --fuse-statements"})
        expectRunVerifies(written.string(), backend, params + schedule);
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

// The programs that fission, maxfuse or MODESTO changes (hypterm split in five, fdtd2d's first two
// calls fused, the rhs4center-like kernel split in three, rhs4center's 30 statements in MODESTO's
// seven groups: about 25 s of its counting engine, outside the model's choices for that reason,
// docs/fusion.md) run on the GPU path (PoCL) and the C++ backend and agree with the reference
// interpreter, as any program does.
TEST(CliSplit, ChangedProgramsVerifyOnPoclAndTheCppBackend) {
  TESSEL_REQUIRE_OPENCL();
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {benchmarkPath("hypterm").string(), "trivial-fission", smallParams("hypterm")},
      {benchmarkPath("fdtd2d").string(), "maxfuse", smallParams("fdtd2d")},
      {sourceDir() + "/tests/e2e/data/rhs4center_like.sten", "trivial-fission",
       " --param L=9 --param M=10 --param N=11"},
      {benchmarkPath("rhs4center").string(), "modesto", smallParams("rhs4center")}};
  for (const auto& [file, mode, params] : cases) {
    SCOPED_TRACE(file + " " + mode);
    const fs::path dir = freshTempDir("split", fs::path(file).stem().string() + "-run");
    auto s =
        runCommand(tesselBinary() + " split " + file + " --mode " + mode + " -o " + dir.string());
    ASSERT_EQ(s.exitCode, 0) << s.output;
    EXPECT_EQ(s.output.find("(1 call)"), std::string::npos) << s.output;  // the mode changed it
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
  const std::string hdiff = benchmarkPath("cosmo-hdiff").string();
  const std::vector<std::pair<std::string, std::string>> refused = {
      {" --mode groups", "--mode groups needs the groups"},
      {" --mode greedy --groups '0|1-3'", "--groups is for --mode groups"},
      {" --mode groups --groups '0||1'", "each group is statement numbers or ranges"},
      {" --mode groups --groups '3:0|1-3'", "the program has calls 0..0"},
      {" --mode modesto --machine nosuch", "nosuch"},
      {" --mode groups --groups '0-9'", "statement s4 does not exist"},
      {" --mode modesto --modesto-tile 1,2,3,4,5", "--modesto-tile: 5 entries for a 3-D program"},
      {" --mode modesto --modesto-tile 0", "--modesto-tile: '0' must be greater than 0"},
      {" --mode greedy --fusion-rules abc", "rule"},
      // A flag of another mode (it would be ignored), and a call's groups given twice.
      {" --mode trivial-fission --machine nosuch",
       "--machine is for --mode greedy or modesto, not trivial-fission"},
      {" --fusion-rules x --modesto-orders 3",
       "--fusion-rules is for --mode greedy, not trivial-fission"},
      {" --mode greedy --modesto-orders 3", "--modesto-orders is for --mode modesto, not greedy"},
      {" --mode recompute-fission --fusion-max-order 2",
       "--fusion-max-order is for --mode greedy, not recompute-fission"},
      {" --groups '0|1-3'", "--groups is for --mode groups, not trivial-fission"},
      {" --mode groups --groups '0|1-3' --groups '0:0-2|3'",
       "call 0's groups are given twice (also '0|1-3')"}};
  for (const auto& [flags, message] : refused) {
    auto r = runCommand(tesselBinary() + " split " + hdiff + flags + " -o /tmp/tessel-nowhere");
    EXPECT_EQ(r.exitCode, 1) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << flags << "\n" << r.output;
  }
  // A grouping that cannot run is refused, with the path that makes a group non-convex.
  const fs::path dir = freshTempDir("split", "hdiff-nonconvex");
  auto nonconvex = runCommand(tesselBinary() + " split " + hdiff +
                              " --mode groups --groups '0,3|1,2' -o " + dir.string());
  EXPECT_EQ(nonconvex.exitCode, 1) << nonconvex.output;
  EXPECT_NE(nonconvex.output.find("the group [s0,s3] is not convex: the path #0 hdiff s0 (lap) "
                                  "-> #0 hdiff s2 (flj) -> #0 hdiff s3 (out)"),
            std::string::npos)
      << nonconvex.output;
  auto unwritable = runCommand(tesselBinary() + " split " + j3d7pt + " -o /proc/nope");
  EXPECT_EQ(unwritable.exitCode, 1) << unwritable.output;
  EXPECT_NE(unwritable.output.find("tessel: error: cannot write"), std::string::npos)
      << unwritable.output;
}

// The host CPU as MODESTO's machine (`--machine host`: DRAM and one core's L2 as measured at
// first use, model/host.h): `split --mode modesto` writes a program that checks and computes the
// same; `run --backend cpp --fusion-groups modesto` regroups for it and verifies; a GPU backend
// refuses the host with a hint that names what takes it.
TEST(CliSplit, ModestoGroupsForTheHostCpu) {
  const auto dir = freshTempDir("cli-split", "modesto-host");
  const std::string file = benchmarkPath("cosmo-hdiff");
  expectSameResults(file, "modesto", dir, smallParams("cosmo-hdiff"), " --machine host");
  auto s = runCommand(tesselBinary() + " split " + file + " --mode modesto --machine host -o " +
                      (dir / "again").string());
  ASSERT_EQ(s.exitCode, 0) << s.output;
  EXPECT_NE(s.output.find("MODESTO's cheapest grouping"), std::string::npos) << s.output;
  EXPECT_NE(s.output.find(" tile in L2 of "), std::string::npos) << s.output;
  auto run = runCommand(tesselBinary() + " run " + file +
                        " --backend cpp --fusion-groups modesto --machine host --verify" +
                        smallParams("cosmo-hdiff"));
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("verification PASSED"), std::string::npos) << run.output;
  auto gpu = runCommand(tesselBinary() + " run " + file +
                        " --backend opencl --fusion-groups modesto --machine host" +
                        smallParams("cosmo-hdiff"));
  EXPECT_EQ(gpu.exitCode, 1) << gpu.output;
  EXPECT_NE(gpu.output.find("--fusion-groups modesto --machine host for the C++ backend"),
            std::string::npos)
      << gpu.output;
}
