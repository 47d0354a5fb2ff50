// The lowering pipeline (lower/lower.h): golden IR after each pass for a 2-D and a 3-D
// benchmark, the pass log's printing and timing, and the command-line flags that drive it.
//
// Golden files: tests/golden/pipeline/<case>/<n>-<pass>.ir, one per pass as
// `--print-ir-after-all` prints it. After an intended change to the lowering, regenerate them with
//   TESSEL_UPDATE_GOLDEN=1 build/test_pipeline
// and review the diff like any other change of generated code.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "driver/fusion_groups.h"
#include "driver/load.h"
#include "lower/lower.h"
#include "schedule/resolve.h"
#include "support/command.h"

namespace fs = std::filesystem;
using namespace tessel;
using tessel::testing::runCommand;
using tessel::testing::sourceDir;
using tessel::testing::tesselBinary;

namespace {

constexpr const char* kDumpMarker = "// -----// IR Dump After ";

/// The dumps of a pass log's output, in order: (pass, IR).
std::vector<std::pair<std::string, std::string>> splitDumps(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t at = text.find(kDumpMarker);
  while (at != std::string::npos) {
    size_t nameStart = at + std::string(kDumpMarker).size();
    size_t nameEnd = text.find(' ', nameStart);
    size_t bodyStart = text.find('\n', nameEnd) + 1;
    size_t next = text.find(kDumpMarker, bodyStart);
    out.emplace_back(
        text.substr(nameStart, nameEnd - nameStart),
        text.substr(bodyStart, next == std::string::npos ? std::string::npos : next - bodyStart));
    at = next;
  }
  return out;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Case {
  std::string name;       // the golden directory
  std::string benchmark;  // benchmarks/<name>.sten, or a path from the source tree ("tests/...")
  std::map<std::string, std::string> flags;
  bool kernels = true;  // through lower() for the CPU target; false: lowerLoops (global on cpp)
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

/// Runs the pipeline on `c` with --print-ir-after-all into a string.
std::string pipelineOutput(const Case& c) {
  DiagnosticEngine diags;
  const std::string file = c.benchmark.find('/') != std::string::npos
                               ? sourceDir() + "/" + c.benchmark
                               : sourceDir() + "/benchmarks/" + c.benchmark + ".sten";
  LoadedProgram lp = loadProgram(file, diags);
  EXPECT_TRUE(lp.program.has_value());
  const Program& prog = *lp.program;
  std::map<std::string, std::string> flags;
  for (const std::string& f : scheduleFlags()) flags[f] = "";
  for (auto& [k, v] : c.flags) flags[k] = v;
  std::ostringstream os;
  PassLog log(PassOptions{true, {}, false}, os);
  auto setup = setUpSchedules(prog, flags, diags, false, &log);  // runs resolve-schedule
  EXPECT_TRUE(setup.has_value());
  if (c.kernels)
    lower(prog, setup->resolved, GpuApi::Cpu, log);
  else
    lowerLoops(prog, log);
  // Paths in notes depend on where the source tree is.
  std::string text = os.str();
  for (size_t p; (p = text.find(sourceDir())) != std::string::npos;)
    text.replace(p, sourceDir().size(), "<src>");
  return text;
}

class PipelineGolden : public ::testing::TestWithParam<Case> {};

TEST_P(PipelineGolden, IrAfterEachPassMatches) {
  const Case& c = GetParam();
  auto dumps = splitDumps(pipelineOutput(c));
  ASSERT_FALSE(dumps.empty());
  fs::path dir = fs::path(sourceDir()) / "tests/golden/pipeline" / c.name;
  bool update = std::getenv("TESSEL_UPDATE_GOLDEN") != nullptr;
  if (update) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  std::vector<std::string> expected;
  for (auto& e : fs::directory_iterator(dir)) expected.push_back(e.path().filename().string());
  std::sort(expected.begin(), expected.end());
  std::vector<std::string> got;
  for (size_t i = 0; i < dumps.size(); ++i) {
    std::string file = std::to_string(i + 1) + "-" + dumps[i].first + ".ir";
    got.push_back(file);
    if (update) std::ofstream(dir / file) << dumps[i].second;
    std::string golden = readFile(dir / file);
    // Line by line, so that a failure shows the first line that differs.
    std::istringstream a(dumps[i].second), b(golden);
    std::string la, lb;
    int line = 0;
    while (true) {
      bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
      ++line;
      if (ea && eb) break;
      ASSERT_EQ(ea ? "<end>" : la, eb ? "<end>" : lb)
          << "IR after pass " << dumps[i].first << " differs from " << (dir / file).string()
          << " at line " << line << " (regenerate with TESSEL_UPDATE_GOLDEN=1 if intended)";
    }
  }
  if (!update) {
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, expected) << "the passes run are not those of the golden files";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Benchmarks, PipelineGolden,
    ::testing::Values(
        Case{"j2d5pt-overlapped-t2",
             "j2d5pt",
             {{"--schedule", "overlapped"}, {"--time-tile", "2"}, {"--block", "16,8"}}},
        Case{"j2d5pt-global", "j2d5pt", {{"--schedule", "global"}}, false},
        Case{"j3d7pt-stream-t2",
             "j3d7pt",
             {{"--schedule", "stream"}, {"--time-tile", "2"}, {"--block", "16,8"}}},
        Case{"j3d7pt-shared-unroll2",
             "j3d7pt",
             {{"--schedule", "shared"}, {"--block", "8,4,2"}, {"--unroll", "i=2"}}},
        // Issue 12: the retimed stream kernel (analysis/retiming.h).
        Case{"j3d27pt-stream-retime",
             "j3d27pt",
             {{"--schedule", "stream"}, {"--retime", "on"}, {"--block", "16,8"}}},
        // Issue 12: a stream + time_tile kernel unrolled (two copies of each stage).
        Case{"j3d7pt-stream-t2-unroll2",
             "j3d7pt",
             {{"--schedule", "stream"},
              {"--time-tile", "2"},
              {"--unroll", "i=2"},
              {"--block", "16,8"}}},
        // Issue 12: the input ring of a stream + time_tile kernel prefetched.
        Case{"j3d7pt-stream-t2-prefetch",
             "j3d7pt",
             {{"--schedule", "stream"},
              {"--time-tile", "2"},
              {"--prefetch", "on"},
              {"--block", "16,8"}}},
        // Issue 12: retimed stages of a stream + time_tile kernel (rings of one plane).
        Case{"j3d7pt-stream-t2-retime",
             "j3d7pt",
             {{"--schedule", "stream"},
              {"--time-tile", "2"},
              {"--retime", "on"},
              {"--block", "16,8"}}},
        // Issue 12: unrolling under stream (two points per thread, registers of their own).
        Case{"j3d7pt-stream-unroll2",
             "j3d7pt",
             {{"--schedule", "stream"}, {"--block", "16,8"}, {"--unroll", "i=2"}}},
        // Issue 12: prefetching the next shared plane into registers.
        Case{"j3d7pt-stream-prefetch",
             "j3d7pt",
             {{"--schedule", "stream"}, {"--block", "16,8"}, {"--prefetch", "on"}}},
        // Issue 12: folding (hypterm's m* * u staged as one array).
        Case{"hypterm-shared-fold",
             "hypterm",
             {{"--schedule", "shared"}, {"--block", "16,4,2"}, {"--fold", "on"}}},
        // Issue 12: the input perspective (a thread per input element).
        Case{"j3d7pt-shared-input",
             "j3d7pt",
             {{"--schedule", "shared"}, {"--block", "18,6,4"}, {"--perspective", "input"}}},
        // Issue 12: the mixed perspective (input along x only: the halo's columns idle).
        Case{"j3d7pt-shared-mixed",
             "j3d7pt",
             {{"--schedule", "shared"}, {"--block", "18,4,4"}, {"--perspective", "mixed"}}},
        // Issue 12: occupancy demotion (`occupancy 1.0`: c's input ring of a stream +
        // time_tile kernel moves to global memory on the H100; resolve-schedule says so).
        Case{"occupancy-fused-demotion", "tests/e2e/data/occupancy_fused.sten", {}}),
    [](const ::testing::TestParamInfo<Case>& i) {
      std::string n = i.param.name;
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });

TEST(Pipeline, NoKernelBuilderPlacesABarrier) {
  // Barriers are the job of pass insert-barriers (ADR 0005): after build-kernels the kernels of
  // every benchmark under every staged family have none; after insert-barriers every kernel
  // with a shared array has at least one, and only such kernels have any.
  const char* families[][2] = {
      {"shared", "1"}, {"stream", "1"}, {"overlapped", "2"}, {"stream", "2"}};
  int checked = 0;
  for (auto& entry : fs::directory_iterator(sourceDir() + "/benchmarks")) {
    if (entry.path().extension() != ".sten") continue;
    DiagnosticEngine diags;
    LoadedProgram lp = loadProgram(entry.path().string(), diags);
    ASSERT_TRUE(lp.program.has_value()) << entry.path();
    for (auto& [family, tt] : families) {
      if (lp.program->dims() == 1 && std::string(family) == "stream") continue;  // needs 2-D
      std::map<std::string, std::string> flags;
      for (const std::string& f : scheduleFlags()) flags[f] = "";
      flags["--schedule"] = family;
      flags["--time-tile"] = tt;
      std::ostringstream os;
      PassLog log(PassOptions{false, {"build-kernels", "insert-barriers"}, false}, os);
      auto setup = setUpSchedules(*lp.program, flags, diags, false, &log);
      ASSERT_TRUE(setup.has_value()) << entry.path() << " " << family;
      lower(*lp.program, setup->resolved, GpuApi::OpenCL, log);
      auto dumps = splitDumps(os.str());
      ASSERT_EQ(dumps.size(), 2u);
      ASSERT_EQ(dumps[0].first, "build-kernels");
      auto device = [](const std::string& ir) { return ir.substr(0, ir.find("// ---- host")); };
      std::string built = device(dumps[0].second), placed = device(dumps[1].second);
      std::string where = entry.path().filename().string() + " " + family + " T=" + tt;
      EXPECT_EQ(built.find("barrier();"), std::string::npos) << where;
      // Kernel by kernel: a barrier exactly where there is shared memory.
      for (size_t at = placed.find("\nkernel "); at != std::string::npos;) {
        size_t next = placed.find("\nkernel ", at + 1);
        std::string k = placed.substr(at, next == std::string::npos ? next : next - at);
        bool shared = k.find("  shared ") != std::string::npos;
        EXPECT_EQ(k.find("barrier();") != std::string::npos, shared) << where << "\n"
                                                                     << k.substr(0, k.find('('));
        ++checked;
        at = next;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// ---- the pass log ------------------------------------------------------------------------------

TEST(PassLog, PrintsOnlyThePassesAskedFor) {
  std::ostringstream os;
  PassLog log(PassOptions{false, {"second"}, false}, os);
  int a = log.run(
      "first", [] { return 1; }, [](int v) { return "value " + std::to_string(v); });
  int b = log.run(
      "second", [&] { return a + 1; }, [](int v) { return "value " + std::to_string(v); });
  EXPECT_EQ(b, 2);
  EXPECT_EQ(os.str(), "// -----// IR Dump After second //----- //\nvalue 2\n");
  ASSERT_EQ(log.times().size(), 2u);
  EXPECT_EQ(log.times()[0].first, "first");
  EXPECT_EQ(log.times()[1].first, "second");
}

TEST(PassLog, SilentLogPrintsNothingButTimes) {
  PassLog log;
  EXPECT_FALSE(log.wantsIr("build-kernels"));
  log.check(
      "verify", [] {}, [] { return std::string("never shown"); });
  ASSERT_EQ(log.times().size(), 1u);
  EXPECT_GE(log.times()[0].second, 0.0);
}

TEST(PassLog, TimingReportListsEachPassAndTheTotal) {
  PassLog log;
  log.run(
      "alpha", [] { return 0; }, [](int) { return std::string(); });
  log.check(
      "beta", [] {}, [] { return std::string(); });
  std::string r = log.timingReport();
  EXPECT_NE(r.find("Pass execution timing report"), std::string::npos) << r;
  EXPECT_NE(r.find("alpha"), std::string::npos) << r;
  EXPECT_NE(r.find("beta"), std::string::npos) << r;
  EXPECT_NE(r.find("Total"), std::string::npos) << r;
}

TEST(PassLog, EveryPassNameIsKnownToTheCommandLine) {
  // The names the pipeline runs are those --print-ir-after accepts.
  DiagnosticEngine diags;
  LoadedProgram lp = loadProgram(sourceDir() + "/benchmarks/j2d5pt.sten", diags);
  ASSERT_TRUE(lp.program.has_value());
  PassLog log;
  std::map<std::string, std::string> flags = {{"--schedule", "overlapped"},
                                              {"--time-tile", "2"},
                                              {"--fma", "on"}};  // every pass but one runs
  std::vector<std::string> notes;  // --fusion-groups, before the schedules
  std::optional<Program> prog = fusionGroupsPass(*lp.program, "greedy", "h100", diags, log, notes);
  ASSERT_TRUE(prog.has_value());
  auto setup = setUpSchedules(*prog, flags, diags, false, &log);
  ASSERT_TRUE(setup.has_value());
  lower(*prog, setup->resolved, GpuApi::Cpu, log);     // work-item-loops
  lower(*prog, setup->resolved, GpuApi::OpenCL, log);  // narrow-indices
  lowerLoops(*prog, log);
  // prefetch-planes: under stream with prefetch.
  auto streamed =
      setUpSchedules(*prog, {{"--schedule", "stream"}, {"--prefetch", "on"}}, diags, false, &log);
  ASSERT_TRUE(streamed.has_value());
  lower(*prog, streamed->resolved, GpuApi::OpenCL, log);
  std::set<std::string> ran;
  for (auto& [name, s] : log.times()) {
    EXPECT_NE(std::find(passNames().begin(), passNames().end(), name), passNames().end()) << name;
    ran.insert(name);
  }
  EXPECT_EQ(ran.size(), passNames().size());
}

// ---- the command line --------------------------------------------------------------------------

TEST(PipelineCli, PrintIrAfterOnePassOnEmit) {
  fs::path out = fs::temp_directory_path() / ("tessel-pipeline-" + std::to_string(getpid()));
  auto r = runCommand(tesselBinary() + " emit " + sourceDir() +
                      "/benchmarks/j2d5pt.sten --target opencl --schedule shared -o " +
                      out.string() + " --print-ir-after=resolve-schedule");
  fs::remove_all(out);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("IR Dump After resolve-schedule"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stencil 'j2d5pt': shared, grid x=i y=j"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("IR Dump After build-kernels"), std::string::npos) << r.output;
}

TEST(PipelineCli, UnknownPassIsAUserError) {
  auto r = runCommand(tesselBinary() + " info " + sourceDir() +
                      "/benchmarks/j2d5pt.sten --print-ir-after=unroll-everything");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("unroll-everything"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("resolve-schedule"), std::string::npos) << r.output;  // the choices
}

TEST(PipelineCli, TimePassesOnRunAndInfo) {
  auto r = runCommand(tesselBinary() + " run " + sourceDir() +
                      "/benchmarks/j2d5pt.sten --backend cpp --schedule overlapped --time-tile 2 "
                      "--param M=40 --param N=37 --verify --time-passes");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  for (const char* pass : {"resolve-schedule", "build-kernels", "unroll-loops", "insert-barriers",
                           "verify-kernels", "work-item-loops"})
    EXPECT_NE(r.output.find(pass), std::string::npos) << pass << "\n" << r.output;
  EXPECT_NE(r.output.find("Pass execution timing report"), std::string::npos) << r.output;
  auto i = runCommand(tesselBinary() + " info " + sourceDir() +
                      "/benchmarks/j3d7pt.sten --schedule stream --no-ptxas --time-passes");
  EXPECT_EQ(i.exitCode, 0) << i.output;
  EXPECT_NE(i.output.find("build-kernels"), std::string::npos) << i.output;
}

}  // namespace
