// `tessel deep-tune` (issue 13; driver/deep_tune.h, paper 000 section VI-A): versions fusing
// 1, 2, ... steps predicted while bandwidth-bound, and the composition opt(T) of them; every
// benchmark; the versions a composition uses verified on PoCL and the C++ backend; compositions
// written as programs (-o, driver/deep_tune_program.h) that check, compute what their input
// computes and verify on PoCL and the C++ backend; the refusals.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "model/fusion_degree.h"
#include "support/command.h"
#include "support/files.h"
#include "support/verify.h"
#include "unit/gpu_test_util.h"

using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

nlohmann::json deepTune(const std::string& bench, const std::string& flags) {
  auto r = runCommand(tesselBinary() + " deep-tune --json " + benchmarkPath(bench).string() + " " +
                      flags);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  // --measure's progress lines (standard error) come first.
  return nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The copied-out arrays of `file` run on the reference interpreter, by name.
std::map<std::string, std::string> referenceOutputs(const std::string& file,
                                                    const std::string& params,
                                                    const fs::path& dir) {
  auto r = runCommand(tesselBinary() + " run " + file + " --backend reference --output " +
                      dir.string() + params);
  EXPECT_EQ(r.exitCode, 0) << file << "\n" << r.output;
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    out[e.path().filename().string()] = slurp(e.path());
  return out;
}

/// `tessel deep-tune FILE -o DIR FLAGS`: the written program, which must pass `check` without a
/// warning and compute byte for byte what FILE computes at `params`; its JSON report in `report`.
fs::path writeComposed(const std::string& bench, const std::string& flags,
                       const std::string& params, nlohmann::json& report) {
  const fs::path dir = freshTempDir("deep-tune", bench);
  report = deepTune(bench, "-o " + dir.string() + " " + flags + params);
  const fs::path written = dir / (bench + "-deep-tuned.sten");
  EXPECT_TRUE(fs::exists(written)) << report.dump(2);
  if (!fs::exists(written)) return written;
  EXPECT_EQ(report["written"]["path"], written.string());
  auto c = runCommand(tesselBinary() + " check " + written.string());
  EXPECT_EQ(c.exitCode, 0) << c.output << "\n" << slurp(written);
  EXPECT_EQ(c.output.find("warning"), std::string::npos) << c.output;
  const auto a = referenceOutputs(benchmarkPath(bench).string(), params, dir / "in");
  const auto b = referenceOutputs(written.string(), "", dir / "out");  // its defaults: params
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b) << "the written program computes something else";
  return written;
}

}  // namespace

// j3d7pt under stream + time_tile: the versions' times per kernel, the stopping reason, and the
// composition of 13 steps: opt(13) over the versions.
TEST(CliDeepTune, J3d7ptThirteenSteps) {
  const nlohmann::json r = deepTune("j3d7pt", "--steps 13");
  EXPECT_EQ(r["family"], "stream");
  ASSERT_FALSE(r["versions"].empty());
  std::vector<double> f;
  for (const auto& v : r["versions"]) {
    EXPECT_EQ(v["degree"].get<int>(), static_cast<int>(f.size()) + 1);
    EXPECT_GT(v["seconds"].get<double>(), 0);
    f.push_back(v["seconds"].get<double>());
  }
  EXPECT_TRUE(r.contains("stopped")) << r.dump(2);
  // opt(13) over the versions (model/fusion_degree.h, which tests it against brute force).
  const tessel::FusionComposition best = tessel::optimalComposition(f, 13);
  EXPECT_NEAR(r["seconds"].get<double>(), best.seconds, 1e-15);
  int sum = 0;
  for (const auto& x : r["parts"]) sum += x.get<int>();
  EXPECT_EQ(sum, 13);
  EXPECT_TRUE(r["measured"].is_null());  // no GPU: predictions only
  // Degree 1 is the program's per-step time under plain stream.
  auto a = runCommand(tesselBinary() + " analyze --json --no-ptxas " +
                      benchmarkPath("j3d7pt").string() + " --schedule stream");
  ASSERT_EQ(a.exitCode, 0) << a.output;
  const nlohmann::json plain = nlohmann::json::parse(a.output);
  EXPECT_NEAR(f[0], plain["seconds"].get<double>() / 8, 1e-15);  // T = 4: 8 steps
  // The text says what it is.
  auto t =
      runCommand(tesselBinary() + " deep-tune " + benchmarkPath("j3d7pt").string() + " --steps 13");
  EXPECT_NE(t.output.find("13 steps: " + r["composition"].get<std::string>()), std::string::npos)
      << t.output;
  EXPECT_NE(t.output.find("not measurements"), std::string::npos) << t.output;
}

// Every benchmark: a composition of the steps asked for (a program of one call fuses nothing,
// so its only version is 1 x 1, and the search says why it stopped).
TEST(CliDeepTune, EveryBenchmark) {
  for (const std::string& b : benchmarkNames()) {
    SCOPED_TRACE(b);
    const nlohmann::json r = deepTune(b, "--steps 5 --max-fuse 4");
    int sum = 0;
    for (const auto& x : r["parts"]) sum += x.get<int>();
    EXPECT_EQ(sum, 5);
    EXPECT_LE(r["versions"].size(), 4u);
    EXPECT_TRUE(r.contains("stopped"));
  }
  const nlohmann::json one = deepTune("hypterm", "--steps 3");
  EXPECT_EQ(one["versions"].size(), 1u);
  EXPECT_EQ(one["composition"], "1x3");
  EXPECT_NE(one["stopped"].get<std::string>().find("2 x 1 fuses nothing"), std::string::npos)
      << one["stopped"];
  EXPECT_EQ(deepTune("jacobi1d-boundary", "--steps 2")["family"], "overlapped");  // 1-D
}

// The deep-tuned variants of the multi-stencil benchmarks run through the same verification as
// everything else: every degree a composition uses is the program under --time-tile that degree,
// run on PoCL and the C++ backend against the reference interpreter at small sizes.
TEST(CliDeepTune, TheComposedVersionsVerifyOnPoclAndTheCppBackend) {
  TESSEL_REQUIRE_OPENCL();
  for (const char* b : {"cheby", "denoise", "fdtd2d", "heat", "j3d7pt"}) {
    SCOPED_TRACE(b);
    const nlohmann::json r = deepTune(b, "--steps 7 --max-fuse 3");
    std::set<int> degrees;
    for (const auto& x : r["parts"]) degrees.insert(x.get<int>());
    for (const auto& v : r["versions"]) degrees.insert(v["degree"].get<int>());
    for (int x : degrees)
      for (const char* backend : {"opencl", "cpp"})
        expectRunVerifies(benchmarkPath(b).string(), backend,
                          std::string("--schedule stream") +
                              (x > 1 ? " --time-tile " + std::to_string(x) : "") +
                              awkwardParamFlags(benchmarkPath(b)));
  }
}

// --measure: every predicted version runs (verified) on the backend; the measured composition is
// opt(T) over the measured versions, and the model's composition costed with them is no cheaper.
TEST(CliDeepTune, MeasuredVersionsOnPoclAndTheCppBackend) {
  TESSEL_REQUIRE_OPENCL();
  for (const char* backend : {"cpp", "opencl"}) {
    SCOPED_TRACE(backend);
    const nlohmann::json r =
        deepTune("j2d5pt", std::string("--steps 7 --max-fuse 3 --repeat 2 --verify --measure ") +
                               backend + awkwardParamFlags(benchmarkPath("j2d5pt")));
    const nlohmann::json& m = r["measured"];
    ASSERT_TRUE(m.is_object()) << r.dump(2);
    EXPECT_EQ(m["backend"], backend);
    ASSERT_EQ(m["versions"].size(), r["versions"].size());
    std::vector<double> f;
    for (size_t i = 0; i < m["versions"].size(); ++i) {
      const auto& v = m["versions"][i];
      EXPECT_EQ(v["degree"], r["versions"][i]["degree"]);
      EXPECT_TRUE(v["verified"].get<bool>());
      EXPECT_GT(v["seconds"].get<double>(), 0);
      EXPECT_NEAR(
          v["seconds"].get<double>(),
          v["run_seconds"].get<double>() / r["run_steps"].get<double>() * v["degree"].get<double>(),
          1e-12);
      f.push_back(v["seconds"].get<double>());
    }
    const tessel::FusionComposition best = tessel::optimalComposition(f, 7);
    EXPECT_EQ(m["composition"], best.text());
    EXPECT_NEAR(m["seconds"].get<double>(), best.seconds, 1e-15);
    double modelChoice = 0;
    for (const auto& x : r["parts"]) modelChoice += f[x.get<int>() - 1];
    EXPECT_NEAR(m["model_composition_seconds"].get<double>(), modelChoice, 1e-15);
    EXPECT_LE(m["seconds"].get<double>(), modelChoice + 1e-15);
  }
  // With -o, the measured composition is the one written (the run's steps: --steps left out).
  {
    nlohmann::json r;
    const std::string params = awkwardParamFlags(benchmarkPath("j2d5pt"));
    const fs::path file =
        writeComposed("j2d5pt", "--max-fuse 3 --repeat 1 --measure cpp", params, r);
    ASSERT_TRUE(r["measured"].is_object()) << r.dump(2);
    EXPECT_EQ(r["written"]["composition"], r["measured"]["composition"]);
    EXPECT_EQ(r["written"]["parts"], r["measured"]["parts"]);
    expectRunVerifies(file.string(), "cpp", "");
  }
  // The text names the backend and says how a composition's measured time is made.
  auto t = runCommand(tesselBinary() + " deep-tune " + benchmarkPath("j2d5pt").string() +
                      " --steps 5 --max-fuse 2 --repeat 1 --measure cpp" +
                      awkwardParamFlags(benchmarkPath("j2d5pt")));
  ASSERT_EQ(t.exitCode, 0) << t.output;
  EXPECT_NE(t.output.find("Measured on cpp"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("the sum of its versions' measured kernel times"), std::string::npos)
      << t.output;
  EXPECT_NE(t.output.find("deep-tune: measuring 2 x 1 on cpp"), std::string::npos) << t.output;
}

// The chosen composition of every benchmark whose run has several steps, for the run's own steps
// (--steps left out), written as a program: it checks, computes what its input computes, and
// runs and verifies on PoCL and the C++ backend under the flags its header gives.
TEST(CliDeepTune, WrittenCompositionsComputeTheSameAndVerify) {
  TESSEL_REQUIRE_OPENCL();
  size_t written = 0;
  for (const std::string& b : benchmarkNames()) {
    const nlohmann::json one = deepTune(b, "--max-fuse 1" + awkwardParamFlags(benchmarkPath(b)));
    if (one["run_steps"].get<double>() < 2) continue;
    ++written;
    SCOPED_TRACE(b);
    nlohmann::json r;
    const std::string params = awkwardParamFlags(benchmarkPath(b));
    const fs::path file = writeComposed(b, "--max-fuse 3", params, r);
    EXPECT_EQ(r["steps"].get<double>(), r["run_steps"].get<double>());
    EXPECT_EQ(r["written"]["composition"], r["composition"]);
    // The header's command line: nothing more under stream + time_tile (the default for 2-D and
    // 3-D programs), --schedule overlapped for 1-D ones.
    const std::string text = slurp(file), run = "tessel run " + file.filename().string();
    const size_t at = text.find(run);
    ASSERT_NE(at, std::string::npos) << text;
    const std::string flags = text.substr(at + run.size(), text.find('\n', at) - at - run.size());
    EXPECT_EQ(flags, r["family"] == "overlapped" ? " --schedule overlapped" : "") << text;
    for (const char* backend : {"opencl", "cpp"}) expectRunVerifies(file.string(), backend, flags);
  }
  EXPECT_GE(written, 10u);
}

// A composition given by hand mixes degrees: j2d5pt's 8 steps (T = 4) as 4x1 + 3x1 + 1x1 under
// stream + time_tile, and j3d7pt's 6 (T = 3) as 3x1 + 2x1 + 1x1 under overlapped; the schedule
// fuses each part as one kernel (a run of fused calls ends where the time tile changes). A part
// whose steps repeat as whole kernels is a loop: j2d5pt's 20 steps (T = 10) as 3x6 + 2x1 loop
// three times over 6 calls (2 kernels of 3, one variant per phase), then fuse the last 2.
TEST(CliDeepTune, AGivenCompositionFusesEachPart) {
  TESSEL_REQUIRE_OPENCL();
  struct Case {
    std::string bench, flags;
    int steps;  // T
    std::vector<std::string> fused;
  };
  for (const Case& c : std::vector<Case>{
           {"j2d5pt",
            "--composition '3x1 + 1x1 + 4x1'",
            4,
            {"calls 0, 1, 2, 3 (time_tile 4)", "calls 4, 5, 6 (time_tile 3)"}},
           {"j3d7pt",
            "--schedule overlapped --composition '1x1+2x1+3x1'",
            3,
            {"calls 0, 1, 2 (time_tile 3)", "calls 3, 4 (time_tile 2)", "calls 5 (time_tile 1)"}},
           {"j2d5pt",
            "--composition '3x6 + 2x1'",
            10,
            {"iterate 1:3 (inclusive)", "calls 0, 1, 2 (time_tile 3)",
             "calls 3, 4, 5 (time_tile 3)", "calls 6, 7 (time_tile 2)"}}}) {
    SCOPED_TRACE(c.bench + " " + c.flags);
    nlohmann::json r;
    const std::string params =
        paramFlags(benchmarkPath(c.bench), {{40}, {23, 29}, {9, 11, 13}}, 3) +
        " --param T=" + std::to_string(c.steps);
    const fs::path written = writeComposed(c.bench, c.flags, params, r);
    const std::string family = c.bench == "j2d5pt" ? "" : " --schedule overlapped";
    auto info = runCommand(tesselBinary() + " info " + written.string() + family);
    ASSERT_EQ(info.exitCode, 0) << info.output;
    for (const std::string& f : c.fused)
      EXPECT_NE(info.output.find(f), std::string::npos) << f << "\n" << info.output;
    const std::string text = slurp(written);
    EXPECT_NE(text.find("tessel run " + written.filename().string() + family + "\n"),
              std::string::npos);
    EXPECT_EQ(text.find("iterate") != std::string::npos, c.steps == 10) << text;
    for (const char* backend : {"opencl", "cpp"})
      expectRunVerifies(written.string(), backend, family);
  }
}

// A composition given by hand whose degree the schedule refuses is an error, and nothing is
// written (j2d5pt's 16 steps as 16x1: the stream family fuses at most 8 steps; the program
// written before did not check).
TEST(CliDeepTune, AGivenCompositionTheScheduleRefusesIsAnError) {
  const fs::path dir = freshTempDir("deep-tune", "refused-degree");
  auto r = runCommand(tesselBinary() + " deep-tune " + benchmarkPath("j2d5pt").string() +
                      " --param T=8 --param M=64 --param N=64 -o " + dir.string() +
                      " --composition '16x1'");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("deep-tune: --composition '16x1': 16 x 1 is refused: --time-tile 16: "
                          "the stream family fuses at most 8 time steps, not 16"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("hint: give parts of fewer steps"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "j2d5pt-deep-tuned.sten"));
  auto o = runCommand(tesselBinary() + " deep-tune " + benchmarkPath("j3d7pt").string() +
                      " --schedule overlapped --param T=6 -o " + dir.string() +
                      " --composition '9x1 + 3x1'");
  EXPECT_EQ(o.exitCode, 1) << o.output;
  EXPECT_NE(o.output.find("9 x 1 is refused: --time-tile 9: the overlapped family fuses at most 8"),
            std::string::npos)
      << o.output;
  EXPECT_FALSE(fs::exists(dir / "j3d7pt-deep-tuned.sten"));
}

// A composition given by hand with a part that fuses nothing (where the search stops) is written
// as given, but says so: a warning, a line in the written program's header, the report's
// `unfused_degrees`. Before, the header said every part fused. fdtd2d's 6x5 (6 fused steps are
// not streamed: a ring too short), and a program that reads a fixed plane of what it writes (no
// degree fuses); 3x10 of fdtd2d fuses and says nothing.
TEST(CliDeepTune, AGivenCompositionThatDoesNotFuseSaysSo) {
  const fs::path dir = freshTempDir("deep-tune", "unfused");
  const fs::path plane = dir / "fixed_plane.sten";
  std::ofstream(plane) << "parameter M=8, N=12, T=3;\n"
                          "iterator j, i;\n"
                          "double A[M,N], B[M,N];\n"
                          "copyin A;\n"
                          "stencil s (Y, X) {\n"
                          "  Y[j][i] = 0.25 * (X[j][i-1] + X[j][i+1]) + X[0][i];\n"
                          "}\n"
                          "iterate 1:T {\n"
                          "  [1:M-2, 1:N-2] : s (B, A);\n"
                          "  [1:M-2, 1:N-2] : s (A, B);\n"
                          "}\n"
                          "copyout A;\n";
  struct Case {
    std::string file, flags, written;
    int unfused;  // the degree that does not fuse; 0: none
  };
  for (const Case& c : std::vector<Case>{
           {benchmarkPath("fdtd2d").string(), " --param M=64 --param N=64 --composition '6x5'",
            "fdtd2d-deep-tuned.sten", 6},
           {plane.string(), " --composition '2x3'", "fixed_plane-deep-tuned.sten", 2},
           {benchmarkPath("fdtd2d").string(), " --param M=64 --param N=64 --composition '3x10'",
            "fdtd2d-deep-tuned.sten", 0}}) {
    SCOPED_TRACE(c.file + c.flags);
    const fs::path out = dir / fs::path(c.file).stem();
    auto r = runCommand(tesselBinary() + " deep-tune " + c.file + " -o " + out.string() + c.flags);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string text = slurp(out / c.written);
    const std::string parts = "parts of " + std::to_string(c.unfused) + " steps do not fuse";
    EXPECT_EQ(r.output.find("tessel: warning: deep-tune: --composition") != std::string::npos,
              c.unfused > 0)
        << r.output;
    EXPECT_EQ(r.output.find(std::to_string(c.unfused) + " x 1 fuses nothing") != std::string::npos,
              c.unfused > 0)
        << r.output;
    EXPECT_EQ(r.output.find("(its " + parts + ")") != std::string::npos, c.unfused > 0) << r.output;
    EXPECT_EQ(text.find("// The " + parts + ", whatever their #pragma says (predicted: ") !=
                  std::string::npos,
              c.unfused > 0)
        << text;
    auto check = runCommand(tesselBinary() + " check " + (out / c.written).string());
    EXPECT_EQ(check.exitCode, 0) << check.output;
  }
  auto j = runCommand(tesselBinary() + " deep-tune --json " + plane.string() + " -o " +
                      (dir / "json").string() + " --composition '2x3'");
  ASSERT_EQ(j.exitCode, 0) << j.output;
  // The warning (standard error) comes first.
  EXPECT_EQ(
      nlohmann::json::parse(j.output.substr(j.output.find("{\n")))["written"]["unfused_degrees"],
      nlohmann::json::array({2}));
}

// The written program's steps are written out, so a parameter only the input's loop bounds read
// does nothing there: it is left out, and a value given for it is an error (before, j2d5pt's
// program written at T=4 ran its 8 steps with --param T=100, silently). One that something else
// reads stays, and the header says a value for it does not change the steps.
TEST(CliDeepTune, AParameterOnlyTheLoopBoundsReadIsLeftOut) {
  const fs::path dir = freshTempDir("deep-tune", "loop-parameter");
  auto r = runCommand(tesselBinary() + " deep-tune " + benchmarkPath("j2d5pt").string() +
                      " --param T=4 --param M=64 --param N=64 -o " + dir.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const fs::path written = dir / "j2d5pt-deep-tuned.sten";
  const std::string text = slurp(written);
  EXPECT_NE(text.find("\nparameter M=64, N=64;\n"), std::string::npos) << text;
  EXPECT_NE(text.find("T, which only the loop bounds read, is left out"), std::string::npos)
      << text;
  auto t = runCommand(tesselBinary() + " run " + written.string() +
                      " --backend reference --param T=100");
  EXPECT_EQ(t.exitCode, 1) << t.output;
  EXPECT_NE(t.output.find("the program has no parameter 'T'"), std::string::npos) << t.output;
  // T also read by a statement, N also an extent: both stay.
  const fs::path file = dir / "stays.sten";
  std::ofstream(file) << "parameter N=16, T=3;\n"
                         "iterator i;\n"
                         "double A[N], B[N];\n"
                         "copyin A;\n"
                         "stencil s (y, x) {\n"
                         "  y[i] = 0.5 * (x[i-1] + x[i+1]) + T;\n"
                         "}\n"
                         "iterate 1:T {\n"
                         "  s (B, A);\n"
                         "  s (A, B);\n"
                         "}\n"
                         "iterate 1:N-14 {\n"
                         "  s (B, A);\n"
                         "}\n"
                         "copyout A, B;\n";
  auto s = runCommand(tesselBinary() + " deep-tune " + file.string() + " -o " + dir.string());
  ASSERT_EQ(s.exitCode, 0) << s.output;
  const fs::path stays = dir / "stays-deep-tuned.sten";
  const std::string kept = slurp(stays);
  EXPECT_NE(kept.find("\nparameter N=16, T=3;\n"), std::string::npos) << kept;
  EXPECT_NE(kept.find("a value given for N or T does not change the steps"), std::string::npos)
      << kept;
  EXPECT_EQ(referenceOutputs(file.string(), "", dir / "in"),
            referenceOutputs(stays.string(), "", dir / "out"));
}

// Random compositions (seeded) of the runs of programs with several stencils per time step:
// whatever the degrees and their order, the written program computes byte for byte what its
// input computes and verifies on the C++ backend and PoCL.
TEST(CliDeepTune, RandomCompositionsComputeTheSame) {
  TESSEL_REQUIRE_OPENCL();
  std::mt19937 rng(13);
  for (const std::string bench : {"fdtd2d", "heat", "cheby", "j3d7pt"}) {
    const std::string params = paramFlags(benchmarkPath(bench), {{40}, {23, 29}, {9, 11, 13}}, 3);
    const int steps =
        static_cast<int>(deepTune(bench, "--max-fuse 1" + params)["run_steps"].get<double>());
    for (int trial = 0; trial < 3; ++trial) {
      std::map<int, int> counts;  // degree -> kernels
      for (int left = steps; left > 0;) {
        const int x = std::min(left, std::uniform_int_distribution<int>(1, 4)(rng));
        ++counts[x];
        left -= x;
      }
      std::string composition;
      for (const auto& [x, n] : counts)
        composition +=
            (composition.empty() ? "" : " + ") + std::to_string(x) + "x" + std::to_string(n);
      SCOPED_TRACE(bench + " " + composition);
      nlohmann::json r;
      const fs::path written =
          writeComposed(bench, "--composition '" + composition + "'", params, r);
      for (const char* backend : {"cpp", "opencl"})
        expectRunVerifies(written.string(), backend, "");
    }
  }
}

// Locals named as globals keep their meaning in the written program (ir/print_program.h: they
// are written with names of their own; before, the local array A hid the global A its call read
// through a formal, and the written program computed something else): the chosen composition
// and one given by hand compute byte for byte what the input computes.
TEST(CliDeepTune, LocalsNamedAsGlobalsKeepTheirMeaning) {
  const std::string file = sourceDir() + "/tests/e2e/data/locals_named_as_globals.sten";
  for (const std::string composition : {"", " --composition '3x1 + 2x1 + 1x1'"}) {
    SCOPED_TRACE(composition);
    const fs::path dir = freshTempDir("deep-tune", "locals");
    auto r =
        runCommand(tesselBinary() + " deep-tune " + file + " -o " + dir.string() + composition);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const fs::path written = dir / "locals_named_as_globals-deep-tuned.sten";
    auto c = runCommand(tesselBinary() + " check " + written.string());
    EXPECT_EQ(c.exitCode, 0) << c.output << "\n" << slurp(written);
    EXPECT_EQ(c.output.find("warning"), std::string::npos) << c.output;
    const auto a = referenceOutputs(file, "", dir / "in");
    const auto b = referenceOutputs(written.string(), "", dir / "out");
    EXPECT_EQ(a.size(), 2u);
    EXPECT_EQ(a, b) << "the written program computes something else\n" << slurp(written);
  }
}

TEST(CliDeepTune, Refusals) {
  const std::string j3d7pt = benchmarkPath("j3d7pt").string();
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--steps 5 --schedule global", "deep-tune: --schedule global fuses no time steps"},
           {"--steps 5 --schedule bogus", "deep-tune: --schedule 'bogus': unknown schedule family"},
           {"--steps 5 --time-tile 2", "--time-tile is what deep-tune chooses"},
           {"--steps 0", "deep-tune: --steps 0: must be at least 1"},
           {"--steps -3", "deep-tune: --steps -3: must be at least 1"},
           {"--max-fuse 0", "deep-tune: --max-fuse 0: must be at least 1"},
           // No --steps: the run's, none at these parameter values (was "--steps 0 and ...").
           {"--param T=0",
            "deep-tune: the run executes no call at L=256, M=256, N=256, T=0: it has no time "
            "steps to compose"},
           {"--param T=-1", "the run executes no call at L=256, M=256, N=256, T=-1"},
           // opt(T)'s table and the composition grow with T (this took the memory of the machine).
           {"--steps 2147483647", "--steps 2147483647: at most 1000000 (opt(T) keeps a table"},
           {"--composition 3x2", "--composition says what -o writes, and -o is missing"},
           {"-o /tmp --composition 3y2", "--composition '3y2': '3y2' is not DEGREExCOUNT"},
           {"-o /tmp --composition '3x2 + 0x1'", "'0x1' is not DEGREExCOUNT"},
           // Too large, not malformed (was "is not DEGREExCOUNT").
           {"-o /tmp --composition 1x1000000",
            "--composition '1x1000000': more than 100000 steps\n  hint: a composition given by "
            "hand covers at most 100000 steps"},
           {"-o /tmp --steps 5 --param T=1", "covers 5 steps, but the run executes 2 calls"},
           {"-o /tmp --composition 3x3 --param T=1",
            "the composition 3x3 covers 9 steps, but the run executes 2 calls"},
           {"-o /tmp --param T=600000", "more than 1000000 calls"},
           // Flags of --measure without it (they would be ignored).
           {"--steps 5 --verify", "deep-tune: --verify is for --measure, which is missing"},
           {"--steps 5 --repeat 3", "deep-tune: --repeat is for --measure, which is missing"}}) {
    auto r = runCommand(tesselBinary() + " deep-tune " + j3d7pt + " " + flags);
    EXPECT_EQ(r.exitCode, 1) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find("hint: "), std::string::npos) << r.output;
  }
  auto most = runCommand(tesselBinary() + " deep-tune " + j3d7pt + " --steps 1000000");
  EXPECT_EQ(most.exitCode, 0) << most.output;
  EXPECT_NE(most.output.find("1000000 steps: "), std::string::npos) << most.output;
  auto r = runCommand(tesselBinary() + " deep-tune " + j3d7pt + " --steps 5 --measure vulkan");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("vulkan not in {cuda,opencl,cpp}"), std::string::npos) << r.output;
}

// --schedule auto: the composition under each family that fuses steps, the faster kept (was:
// the model's first schedule overall, `global`, then "--schedule global fuses no time steps").
TEST(CliDeepTune, ScheduleAutoKeepsTheFasterFamily) {
  for (const std::string bench : {"j3d7pt", "j2d5pt", "jacobi1d-boundary"}) {
    const nlohmann::json a = deepTune(bench, "--steps 6 --schedule auto");
    const auto& cands = a["schedule_chosen_by"]["candidates"];
    ASSERT_EQ(cands.size(), bench == "jacobi1d-boundary" ? 1U : 2U) << a.dump(2);
    const nlohmann::json* fastest = nullptr;
    for (const auto& c : cands) {
      // Each candidate is what deep-tune under that family predicts.
      const nlohmann::json one =
          deepTune(bench, "--steps 6 --schedule " + c["family"].get<std::string>());
      EXPECT_DOUBLE_EQ(c["seconds"].get<double>(), one["seconds"].get<double>()) << bench;
      EXPECT_EQ(c["composition"], one["composition"]) << bench;
      if (!fastest || c["seconds"] < (*fastest)["seconds"]) fastest = &c;
    }
    EXPECT_EQ(a["family"], (*fastest)["family"]) << a.dump(2);
    EXPECT_EQ(a["composition"], (*fastest)["composition"]) << a.dump(2);
    auto text = runCommand(tesselBinary() + " deep-tune " + benchmarkPath(bench).string() +
                           " --steps 6 --schedule auto");
    EXPECT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find(bench == "jacobi1d-boundary"
                                   ? "--schedule auto: overlapped 1x6 predicted"
                                   : "--schedule auto: composed under each family that fuses "
                                     "steps (stream + time_tile "),
              std::string::npos)
        << text.output;
  }
  // One reason for every family (a parameter): said once, in full.
  auto r = runCommand(tesselBinary() + " deep-tune " + benchmarkPath("j3d7pt").string() +
                      " --schedule auto --param T=0");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("deep-tune: the run executes no call at L=256, M=256, N=256, T=0"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("could be predicted"), std::string::npos) << r.output;
}

// A run whose statements compute nothing at the parameter values (every region empty: found by
// random programs, seed 48): refused with a hint about the parameters, not the schedule.
TEST(CliDeepTune, ARunThatComputesNothingAsksForLargerParameters) {
  const fs::path dir = freshTempDir("deep-tune", "empty");
  const fs::path file = dir / "empty.sten";
  std::ofstream(file) << "parameter M=7, N=4;\n"
                         "iterator j, i;\n"
                         "double u[M,N], w[M,N];\n"
                         "copyin w;\n"
                         "stencil s (u, w) {\n"
                         "  u[j][i] = w[j][i+3] + w[j][i-3];\n"
                         "}\n"
                         "s (u, w);\n"
                         "copyout u;\n";
  auto r = runCommand(tesselBinary() + " deep-tune " + file.string());
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("the run computes nothing at these parameter values"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("give larger ones with --param"), std::string::npos) << r.output;
  auto larger = runCommand(tesselBinary() + " deep-tune " + file.string() + " --param N=16");
  EXPECT_EQ(larger.exitCode, 0) << larger.output;
}
