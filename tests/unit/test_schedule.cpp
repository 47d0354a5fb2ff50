// Machine descriptions and Schedules: loading, defaults, pragma mapping, command-line overrides,
// and the located errors of validate().
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/machine.h"
#include "model/occupancy.h"
#include "schedule/schedule.h"
#include "sten_test_util.h"

using namespace tessel;
using tessel::test::compileText;
namespace fs = std::filesystem;

namespace {

const std::vector<fs::path> kSourceMachines = {fs::path(TESSEL_SOURCE_DIR) / "machines"};
const std::vector<std::string> kAllMachines = {"a100", "h100", "h200", "k20c", "p100", "v100"};

MachineDesc machine(const std::string& id = "h100") {
  DiagnosticEngine d;
  auto m = loadMachine(id, d, kSourceMachines);
  if (!m) throw std::runtime_error("cannot load machine " + id);
  return *m;
}

std::string allText(const DiagnosticEngine& d) {
  std::string s;
  for (auto& x : d.diagnostics()) s += DiagnosticEngine::render(x);
  return s;
}

const char* k3d =
    "parameter L=16, M=16, N=16;\n"
    "iterator k, j, i;\n"
    "double a[L,M,N], b[L,M,N];\n"
    "%PRAGMA%\n"
    "stencil s (x, y) { x[k][j][i] = y[k][j][i]; }\n"
    "s (b, a);\n";
const char* k2d =
    "parameter M=16, N=16;\n"
    "iterator j, i;\n"
    "double a[M,N], b[M,N];\n"
    "%PRAGMA%\n"
    "stencil s (x, y) { x[j][i] = y[j][i]; }\n"
    "s (b, a);\n";
const char* k1d =
    "parameter N=16;\n"
    "iterator i;\n"
    "double a[N], b[N];\n"
    "%PRAGMA%\n"
    "stencil s (x, y) { x[i] = y[i]; }\n"
    "s (b, a);\n";

tessel::test::Compiled program(const char* tmpl, const std::string& pragma = "") {
  std::string t = tmpl;
  t.replace(t.find("%PRAGMA%"), 8, pragma);
  auto c = compileText(t);
  EXPECT_TRUE(c.prog.has_value()) << c.diagText();
  return c;
}

ScheduleOptions options(const std::vector<std::pair<std::string, std::string>>& flags) {
  ScheduleOptions o;
  DiagnosticEngine d;
  for (auto& [f, v] : flags) EXPECT_TRUE(setScheduleOption(o, f, v, d)) << f << " " << v;
  return o;
}

struct Checked {
  Schedule schedule;
  DiagnosticEngine diags;
  bool valid = false;
};

Checked check(const Program& p, const ScheduleOptions& o = {}, const MachineDesc& m = machine()) {
  Checked c;
  c.schedule = buildSchedule(p, 0, o, c.diags);
  c.valid = validate(c.schedule, p, m, c.diags) && !c.diags.hasErrors();
  return c;
}

}  // namespace

// ---- machine descriptions ----

TEST(Machine, AllSixLoadWithEveryFigureSourced) {
  EXPECT_EQ(listMachines(kSourceMachines), kAllMachines);
  for (auto& id : kAllMachines) {
    SCOPED_TRACE(id);
    DiagnosticEngine d;
    auto m = loadMachine(id, d, kSourceMachines);
    ASSERT_TRUE(m) << allText(d);
    EXPECT_EQ(m->id, id);
    EXPECT_EQ(m->compute.warpSize, 32);
    EXPECT_EQ(m->limits.maxThreadsPerBlock, 1024);
    EXPECT_EQ(m->limits.maxBlockDims, (std::array<int64_t, 3>{1024, 1024, 64}));
    EXPECT_EQ(m->sources.size(), 25u);    // every figure says where it comes from
    EXPECT_FALSE(m->memory.l2Bandwidth);  // NVIDIA publishes none for these GPUs
    EXPECT_GT(m->compute.peakFp32, m->compute.peakFp64);
  }
  auto h100 = machine("h100");
  EXPECT_EQ(h100.computeCapability(), "9.0");
  EXPECT_EQ(h100.compute.sms, 132);
  EXPECT_EQ(h100.memory.sharedPerSm, 228 * 1024);
  EXPECT_EQ(h100.memory.sharedPerBlockOptin, 227 * 1024);
  EXPECT_EQ(h100.memory.l2Bytes, 50 * 1024 * 1024);
  EXPECT_EQ(h100.compute.smClock, 1.98e9);
  EXPECT_EQ(h100.memory.measuredDramBandwidth, 3.0e12);  // kept apart from the datasheet's
  EXPECT_EQ(h100.memory.dramBandwidth, 3.35e12);
  EXPECT_EQ(machine("v100").memory.measuredDramBandwidth, 805e9);
  EXPECT_EQ(machine("a100").compute.smClock, 1.41e9);  // boost clock, consistent with its peak
  EXPECT_EQ(machine("k20c").compute.smClock, 7.06e8);
  EXPECT_EQ(h100.calibration.at("global"), 0.598);  // fitted on measured H100 times
  EXPECT_EQ(h100.calibration.size(), 6u);
  EXPECT_EQ(machine("h200").calibration.size(), 6u);  // fitted on measured H200 times
  EXPECT_EQ(machine("h200").calibration.at("global"), 0.7624);
  EXPECT_TRUE(machine("a100").calibration.empty());
  EXPECT_DOUBLE_EQ(h100.memory.dramBandwidth, 3.35e12);
  EXPECT_DOUBLE_EQ(h100.compute.peakFp64, 34e12);
  EXPECT_EQ(machine("h200").memory.l2Bytes, 60 * 1024 * 1024);  // read on the device
  EXPECT_EQ(machine("h200").memory.measuredDramBandwidth, 4.28e12);
  EXPECT_DOUBLE_EQ(machine("h200").memory.dramBandwidth, 4.8e12);
  EXPECT_EQ(machine("a100").compute.sms, 108);
  EXPECT_EQ(machine("v100").computeCapability(), "7.0");
  EXPECT_EQ(machine("p100").memory.sharedPerBlockOptin, 48 * 1024);
  EXPECT_EQ(machine("k20c").limits.maxBlocksPerSm, 16);
  EXPECT_EQ(machine("k20c").computeCapability(), "3.5");
}

TEST(Machine, FoundByDefaultSearchPathByNameCaseOrPath) {
  EXPECT_STREQ(kDefaultMachine, "h100");
  DiagnosticEngine d;
  auto m = loadMachine(kDefaultMachine, d);  // the source tree's machines/ is on the path
  ASSERT_TRUE(m) << allText(d);
  EXPECT_EQ(m->name, "NVIDIA H100 SXM5 80GB");
  EXPECT_TRUE(loadMachine("V100", d, kSourceMachines));
  auto byPath = loadMachine((kSourceMachines[0] / "a100.json").string(), d, {});
  ASSERT_TRUE(byPath) << allText(d);
  EXPECT_EQ(byPath->id, "a100");
  EXPECT_FALSE(d.hasErrors()) << allText(d);
}

TEST(Machine, TesselMachinesComesFirstOnTheSearchPath) {
  fs::path dir = fs::temp_directory_path() / "tessel_test_machines";
  fs::create_directories(dir);
  {
    std::ifstream in(kSourceMachines[0] / "k20c.json");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    text.replace(text.find("NVIDIA Tesla K20c"), 17, "My test GPU");
    std::ofstream(dir / "h100.json") << text;  // shadows the real h100
  }
  const char* old = std::getenv("TESSEL_MACHINES");
  std::string saved = old ? old : "";
  setenv("TESSEL_MACHINES", dir.c_str(), 1);
  auto path = machineSearchPath();
  DiagnosticEngine d;
  auto m = loadMachine("h100", d);
  if (old)
    setenv("TESSEL_MACHINES", saved.c_str(), 1);
  else
    unsetenv("TESSEL_MACHINES");
  fs::remove_all(dir);
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path[0], dir);
  ASSERT_TRUE(m) << allText(d);
  EXPECT_EQ(m->name, "My test GPU");
}

TEST(Machine, UnknownNameListsOrSuggests) {
  DiagnosticEngine d;
  EXPECT_FALSE(loadMachine("mi300x", d, kSourceMachines));
  ASSERT_EQ(d.errorCount(), 1);
  EXPECT_EQ(d.diagnostics()[0].id, DiagId::bad_machine);
  EXPECT_NE(d.diagnostics()[0].message.find("unknown machine 'mi300x'"), std::string::npos);
  EXPECT_NE(d.diagnostics()[0].hint.find("a100, h100, h200, k20c, p100, v100"), std::string::npos)
      << d.diagnostics()[0].hint;
  DiagnosticEngine d2;
  EXPECT_FALSE(loadMachine("/nonexistent/x.json", d2, kSourceMachines));
  EXPECT_NE(allText(d2).find("machine file '/nonexistent/x.json' does not exist"),
            std::string::npos);
}

namespace {
// The h100 file with one edit, parsed; returns every message.
std::string brokenH100(const std::string& from, const std::string& to) {
  std::ifstream in(kSourceMachines[0] / "h100.json");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto at = text.find(from);
  if (at == std::string::npos) return "edit not applied: " + from;
  text.replace(at, from.size(), to);
  DiagnosticEngine d;
  auto m = parseMachine(text, "broken/h100.json", d);
  std::string out = allText(d);
  if (m) out += "(accepted)";
  return out;
}
}  // namespace

TEST(Machine, BrokenFileGivesAClearErrorNamingFileAndField) {
  auto has = [](const std::string& got, const std::string& want) {
    EXPECT_NE(got.find(want), std::string::npos) << "want: " << want << "\ngot: " << got;
  };
  EXPECT_EQ(brokenH100("x", "x"), "(accepted)");  // unchanged: no message
  has(brokenH100("\"sms\": 132,", "\"sms\": 132"),
      "machine file 'broken/h100.json': not valid JSON: parse error at line 5");
  has(brokenH100("\"sms\": 132", "\"sms\": \"132\""),
      "machine file 'broken/h100.json': field 'sms' must be a positive integer, not \"132\"");
  has(brokenH100("\"sms\": 132", "\"sms\": 0"), "field 'sms' must be a positive integer, not 0");
  has(brokenH100("\"sms\": 132", "\"sm\": 132"), "unknown field 'sm'");
  has(brokenH100("\"sms\": 132", "\"sm\": 132"), "hint: did you mean 'sms'?");
  has(brokenH100("\"sms\": 132", "\"sm\": 132"), "missing field 'sms' (a positive integer)");
  has(brokenH100("\"max_block_dims\": [1024, 1024, 64]", "\"max_block_dims\": [1024, 64]"),
      "field 'max_block_dims' must be a list of 3 positive integers [x, y, z], not [1024,64]");
  has(brokenH100("\"compute_capability\": \"9.0\"", "\"compute_capability\": 9.0"),
      "field 'compute_capability' must be a compute capability \"MAJOR.MINOR\"");
  has(brokenH100("\"peak_fp32_flop_per_s\": 67e12", "\"peak_fp32_flop_per_s\": null"),
      "field 'peak_fp32_flop_per_s' must be a positive number, not null");
  has(brokenH100("\"sms\": \"NVIDIA", "\"smz\": \"NVIDIA"),
      "'sources' names 'smz', which is not a figure of a machine file");
  has(brokenH100("\"sms\": \"NVIDIA", "\"smz\": \"NVIDIA"),
      "field 'sms' has no entry in 'sources' saying where it comes from");
  has(brokenH100("\"shared_memory_per_sm_bytes\": 233472", "\"shared_memory_per_sm_bytes\": 1024"),
      "shared_memory_per_block_optin_bytes 232448 exceeds shared_memory_per_sm_bytes 1024");
  has(brokenH100("\"calibration\": {\"global\": 0.598", "\"calibration\": {\"global\": -1"),
      "field 'calibration' must be an object of schedule families to positive factors, or null");
  has(brokenH100("\"warp_size\": 32", "\"warp_size\": 48"),
      "max_threads_per_block 1024 is not a multiple of warp_size 48");
  DiagnosticEngine d;
  EXPECT_FALSE(parseMachine("[1, 2]", "list.json", d));
  has(allText(d), "machine file 'list.json': expected a JSON object of fields");
}

TEST(Machine, ACapabilityWithoutOccupancyRulesIsRefused) {
  // Occupancy needs the allocation rules of the compute capability: a machine file naming one
  // the calculator lacks is refused (it was accepted, and every kernel then predicted at one
  // block per SM without a word), naming the file, the value and the ones it knows.
  const std::string known =
      "3.5, 3.7, 5.0, 5.2, 5.3, 6.0, 6.1, 6.2, 7.0, 7.2, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0";
  for (const char* cc : {"9.5", "10.0", "8.2", "4.0", "3.0"}) {
    const std::string got = brokenH100("\"compute_capability\": \"9.0\"",
                                       std::string("\"compute_capability\": \"") + cc + "\"");
    EXPECT_NE(got.find(std::string("machine file 'broken/h100.json': field 'compute_capability' "
                                   "is \"") +
                       cc + "\", which the occupancy calculator has no rules for (it knows " +
                       known + ")"),
              std::string::npos)
        << got;
    EXPECT_EQ(got.find("(accepted)"), std::string::npos) << got;
  }
  // Every capability the calculator knows is accepted, and every shipped machine has one.
  for (const std::string& cc : occupancyCapabilities())
    EXPECT_EQ(
        brokenH100("\"compute_capability\": \"9.0\"", "\"compute_capability\": \"" + cc + "\""),
        "(accepted)")
        << cc;
  for (const std::string& id : kAllMachines)
    EXPECT_TRUE(occupancyRules(machine(id).compute.ccMajor, machine(id).compute.ccMinor)) << id;
}

TEST(Machine, UnknownCalibrationFamiliesAreRefusedWithTheClosest) {
  // A factor under a misspelt family was accepted and never looked up: the kernels of that
  // family were predicted uncalibrated without a word. Each key must be a family of the model.
  auto has = [](const std::string& got, const std::string& want) {
    EXPECT_NE(got.find(want), std::string::npos) << "want: " << want << "\ngot: " << got;
  };
  const std::string cal = "\"calibration\": {\"global\"";
  const std::string tiles = "\"calibration_time_tiles\": {\"overlapped\"";
  for (auto [key, closest] :
       {std::pair<std::string, std::string>{"stream+time_tile", "stream + time_tile"},
        {"globl", "global"},
        {"overlaped", "overlapped"},
        {"Stream", "stream"}}) {
    const std::string got = brokenH100(cal, "\"calibration\": {\"" + key + "\"");
    has(got, "machine file 'broken/h100.json': 'calibration' names '" + key +
                 "', which is not a schedule family of the model (global, global-stream, shared, "
                 "stream, overlapped, stream + time_tile)");
    has(got, "hint: did you mean '" + closest + "'?");
    EXPECT_EQ(got.find("(accepted)"), std::string::npos) << got;
  }
  has(brokenH100(tiles, "\"calibration_time_tiles\": {\"overlaped\""),
      "'calibration_time_tiles' names 'overlaped', which is not a family that fuses time steps "
      "(overlapped, stream + time_tile)\n  hint: did you mean 'overlapped'?");
  has(brokenH100(tiles, "\"calibration_time_tiles\": {\"stream+time_tile\""),
      "hint: did you mean 'stream + time_tile'?");
  // A family that fuses no time steps has no time tiles to list.
  const std::string global = brokenH100(tiles, "\"calibration_time_tiles\": {\"global\"");
  has(global,
      "'calibration_time_tiles' names 'global', which is not a family that fuses time steps");
  EXPECT_EQ(global.find("hint"), std::string::npos) << global;
  // Every family of the model is a valid key.
  for (const std::string& f : calibrationFamilies())
    EXPECT_EQ(brokenH100(cal, "\"calibration\": {\"" + f + "\": 1, \"global\""), "(accepted)") << f;
}

TEST(Machine, CalibrationFamiliesAreTheModels) {
  // The machine layer lists the names the model looks factors up by (perf/kernel_figures.h,
  // familyText): every schedule family's name, then the streamed fused kernel's.
  std::vector<std::string> names;
  for (ScheduleFamily f :
       {ScheduleFamily::Global, ScheduleFamily::GlobalStream, ScheduleFamily::Shared,
        ScheduleFamily::Stream, ScheduleFamily::Overlapped})
    names.push_back(familyName(f));
  names.push_back("stream + time_tile");
  EXPECT_EQ(calibrationFamilies(), names);
  EXPECT_EQ(fusedCalibrationFamilies(),
            (std::vector<std::string>{"overlapped", "stream + time_tile"}));
}

// ---- schedules: defaults ----

TEST(Schedule, DefaultsPerDimensionality) {
  auto c1 = program(k1d);
  auto r1 = check(*c1.prog);
  EXPECT_TRUE(r1.valid) << allText(r1.diags);
  EXPECT_EQ(r1.schedule.family.value, ScheduleFamily::Global);
  EXPECT_EQ(r1.schedule.family.origin.kind, Origin::Kind::Default);
  EXPECT_EQ(r1.schedule.block.value, (std::vector<int64_t>{256}));
  EXPECT_EQ(r1.schedule.blockShape(), (std::array<int64_t, 3>{256, 1, 1}));
  EXPECT_FALSE(r1.schedule.stream);
  EXPECT_EQ(r1.schedule.timeTile.value, 1);
  EXPECT_EQ(r1.schedule.unrollFactor("i"), 1);

  for (const char* t : {k2d, k3d}) {
    auto c = program(t);
    auto r = check(*c.prog);
    EXPECT_TRUE(r.valid) << allText(r.diags);
    EXPECT_EQ(r.schedule.family.value, ScheduleFamily::Global);
    EXPECT_EQ(r.schedule.block.value, (std::vector<int64_t>{32, 8, 1}));
    EXPECT_EQ(r.schedule.blockThreads(), 256);
    EXPECT_EQ(r.schedule.block.origin.kind, Origin::Kind::Default);
  }
  auto c3 = program(k3d);
  EXPECT_EQ(gridDims(check(*c3.prog).schedule, *c3.prog), (std::vector<int>{2, 1, 0}));
}

TEST(Schedule, GlobalStreamStreamsTheSlowestIteratorByDefault) {
  auto c3 = program(k3d);
  auto r3 = check(*c3.prog, options({{"--schedule", "global-stream"}}));
  EXPECT_TRUE(r3.valid) << allText(r3.diags);
  ASSERT_TRUE(r3.schedule.stream);
  EXPECT_EQ(r3.schedule.stream->value.iterator, "k");
  EXPECT_TRUE(r3.schedule.stream->value.full);  // each thread sweeps the whole extent
  EXPECT_EQ(r3.schedule.stream->origin.kind, Origin::Kind::Default);
  EXPECT_EQ(streamDim(r3.schedule, *c3.prog), 0);
  EXPECT_EQ(gridDims(r3.schedule, *c3.prog), (std::vector<int>{2, 1}));  // x: i, y: j
  EXPECT_EQ(r3.schedule.block.value, (std::vector<int64_t>{32, 8, 1}));

  auto c2 = program(k2d);
  auto r2 = check(*c2.prog, options({{"--schedule", "global-stream"}}));
  EXPECT_TRUE(r2.valid) << allText(r2.diags);
  EXPECT_EQ(r2.schedule.stream->value.iterator, "j");
  EXPECT_EQ(gridDims(r2.schedule, *c2.prog), (std::vector<int>{1}));
  EXPECT_EQ(r2.schedule.block.value, (std::vector<int64_t>{256}));  // a 1-D grid
}

// ---- schedules: pragmas ----

TEST(Schedule, AFoldClauseUnderOverlappedIsLeftOutWithANoteAtItsLocation) {
  auto c = program(k3d, "#pragma time_tile 2 fold");
  // The command line's family leaves out the file's clause it does not apply (language.md 8).
  auto r = check(*c.prog, options({{"--schedule", "overlapped"}}));
  EXPECT_TRUE(r.valid) << allText(r.diags);
  EXPECT_FALSE(r.schedule.fold.value);
  ASSERT_EQ(r.schedule.adjustments.size(), 1u);
  EXPECT_NE(r.schedule.adjustments[0].find("fold (test.sten:4:21) is left out: it applies to "
                                           "the shared and stream families' kernels, and "
                                           "--schedule overlapped chose 'overlapped'"),
            std::string::npos)
      << r.schedule.adjustments[0];
  // Given on the command line, it is refused.
  auto cli = check(*c.prog, options({{"--schedule", "overlapped"}, {"--fold", "on"}}));
  EXPECT_FALSE(cli.valid);
  EXPECT_NE(allText(cli.diags).find("--fold: folding stages"), std::string::npos)
      << allText(cli.diags);
  EXPECT_NE(allText(cli.diags).find("nothing is staged to fold"), std::string::npos)
      << allText(cli.diags);
  // The same clause under stream + time_tile is taken.
  auto tt = check(*c.prog, options({{"--schedule", "stream"}}));
  EXPECT_TRUE(tt.valid) << allText(tt.diags);
}

TEST(Schedule, PragmaClausesMapOntoTheScheduleWithTheirLocations) {
  auto c = program(k3d,
                   "#pragma stream j block (64, 4) unroll k=2, i=1 cyclic time_tile 3\n"
                   "#pragma prefetch fold occupancy 0.5 perspective input no_shmem");
  auto r = check(*c.prog);
  // Every clause is read, with its location; the input perspective is refused under stream +
  // time_tile (time_tile 3), the only error (prefetch and fold apply there).
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.diags.errorCount(), 1) << allText(r.diags);
  EXPECT_NE(allText(r.diags).find("test.sten:5:37: error: 'perspective input'"), std::string::npos)
      << allText(r.diags);
  EXPECT_EQ(allText(r.diags).find("error: 'prefetch'"), std::string::npos) << allText(r.diags);
  EXPECT_EQ(allText(r.diags).find("error: 'fold'"), std::string::npos) << allText(r.diags);
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.family.value, ScheduleFamily::Stream);  // a stream clause selects `stream`
  ASSERT_TRUE(s.stream);
  EXPECT_EQ(s.stream->value.iterator, "j");
  EXPECT_FALSE(s.stream->value.full);
  EXPECT_EQ(s.stream->origin.kind, Origin::Kind::File);
  EXPECT_EQ(s.stream->origin.loc.line(), 4);
  EXPECT_EQ(s.stream->origin.loc.col(), 9);
  EXPECT_EQ(describe(s.stream->origin), "test.sten:4:9");
  EXPECT_EQ(gridDims(s, *c.prog), (std::vector<int>{2, 0}));  // x: i, y: k (j is streamed)
  EXPECT_EQ(s.block.value, (std::vector<int64_t>{64, 4}));
  EXPECT_EQ(s.block.origin.loc.col(), 18);
  EXPECT_EQ(s.unrollFactor("k"), 2);
  EXPECT_EQ(s.unrollFactor("j"), 1);
  EXPECT_EQ(s.unroll.value.distribution, UnrollDistribution::Cyclic);
  EXPECT_EQ(s.timeTile.value, 3);
  EXPECT_TRUE(s.prefetch.value && s.fold.value && s.noShmem.value);
  EXPECT_EQ(s.prefetch.origin.loc.line(), 5);
  ASSERT_TRUE(s.occupancy && s.perspective);
  EXPECT_DOUBLE_EQ(s.occupancy->value, 0.5);
  EXPECT_EQ(s.perspective->value, Perspective::Input);
  EXPECT_EQ(toString(s),
            "stream, stream j, chunk 16, block (64, 4), unroll k=2, i=1, cyclic, time_tile 3, "
            "prefetch, fold, no_shmem, occupancy 0.5, perspective input");
}

// Issue 12: the `prefetch` clause, like `retime`: the stream family applies it, also with a
// time tile (the fused kernel's rings).
TEST(Schedule, PrefetchClauseAppliesToTheStreamFamily) {
  auto c = program(k3d, "#pragma stream k prefetch");
  auto r = check(*c.prog);
  EXPECT_TRUE(r.valid) << allText(r.diags);
  EXPECT_TRUE(r.schedule.prefetch.value);
  EXPECT_EQ(toString(r.schedule), "stream, stream k, chunk 16, block (32, 8, 1), prefetch");
  // Also with time tiling: the fused kernel's input rings (tests/e2e/test_prefetch.cpp).
  auto t = program(k3d, "#pragma stream k time_tile 2 prefetch");
  auto rt = check(*t.prog);
  EXPECT_TRUE(rt.valid) << allText(rt.diags);
  EXPECT_TRUE(rt.schedule.prefetch.value);
}

// Issue 12: the `retime` clause maps onto Schedule::retime; the stream family applies it, also
// with a time tile above 1 (stream + time_tile).
TEST(Schedule, RetimeClauseAppliesToTheStreamFamily) {
  auto c = program(k3d, "#pragma stream k retime");
  auto r = check(*c.prog);
  EXPECT_TRUE(r.valid) << allText(r.diags);
  EXPECT_TRUE(r.schedule.retime.value);
  EXPECT_EQ(toString(r.schedule), "stream, stream k, chunk 16, block (32, 8, 1), retime");
  // Also with time tiling: the fused stages are retimed (tests/e2e/test_retime.cpp).
  auto t = program(k3d, "#pragma stream k time_tile 2 retime");
  auto rt = check(*t.prog);
  EXPECT_TRUE(rt.valid) << allText(rt.diags);
  EXPECT_TRUE(rt.schedule.retime.value);
  EXPECT_EQ(rt.schedule.timeTile.value, 2);
}

TEST(Schedule, FullStreamAndPlacements) {
  auto c = compileText(
      "parameter L=8, M=8, N=8;\niterator k, j, i;\ndouble a[L,M,N], b[L,M,N];\n"
      "#pragma full_stream k\n"
      "stencil s (x, y) {\n  #assign shmem (y), gmem (x)\n  x[k][j][i] = y[k][j][i];\n}\n"
      "s (b, a);\n");
  ASSERT_TRUE(c.prog) << c.diagText();
  auto r = check(*c.prog);
  EXPECT_TRUE(r.valid) << allText(r.diags);
  ASSERT_TRUE(r.schedule.stream);
  EXPECT_TRUE(r.schedule.stream->value.full);
  ASSERT_EQ(r.schedule.placements.size(), 2u);
  EXPECT_EQ(r.schedule.placements[0].array, "y");
  EXPECT_EQ(r.schedule.placements[0].kind, PlacementKind::Shmem);
  EXPECT_EQ(r.schedule.placements[1].kind, PlacementKind::Gmem);
  EXPECT_EQ(toString(r.schedule), "stream, full_stream k, block (32, 8, 1), shmem (y), gmem (x)");
}

TEST(Schedule, BenchmarksValidateOnEveryMachineInBothFamilies) {
  for (auto& e : fs::directory_iterator(fs::path(TESSEL_SOURCE_DIR) / "benchmarks")) {
    if (e.path().extension() != ".sten") continue;
    SCOPED_TRACE(e.path().filename().string());
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    auto c = compileText(ss.str(), e.path().filename().string());
    ASSERT_TRUE(c.prog) << c.diagText();
    for (auto& id : kAllMachines) {
      auto m = machine(id);
      for (auto fam : {ScheduleFamily::Global, ScheduleFamily::GlobalStream, ScheduleFamily::Shared,
                       ScheduleFamily::Stream}) {
        if (fam == ScheduleFamily::GlobalStream && c.prog->dims() < 2) continue;
        ScheduleOptions o;
        o.family = fam;
        DiagnosticEngine d;
        EXPECT_TRUE(buildSchedules(*c.prog, o, m, d)) << id << "\n" << allText(d);
      }
      DiagnosticEngine d;  // the file's own hints
      EXPECT_TRUE(buildSchedules(*c.prog, {}, m, d)) << id << "\n" << allText(d);
    }
  }
}

TEST(Schedule, HeatBenchmarkPragmaGivesStream) {
  std::ifstream in(fs::path(TESSEL_SOURCE_DIR) / "benchmarks" / "heat.sten");
  std::stringstream ss;
  ss << in.rdbuf();
  auto c = compileText(ss.str(), "heat.sten");
  ASSERT_TRUE(c.prog) << c.diagText();
  auto r = check(*c.prog);
  EXPECT_TRUE(r.valid) << allText(r.diags);
  EXPECT_EQ(toString(r.schedule, true),
            "stream [heat.sten:13:9], stream k [heat.sten:13:9], chunk 16 [default], "
            "block (32, 16) [heat.sten:13:18], shmem (in) [heat.sten:17:18]");
}

// ---- schedules: the command line ----

TEST(Schedule, CommandLineOverridesPragmas) {
  auto c = program(k3d, "#pragma stream k block (32, 16) unroll j=2, i=2 time_tile 2");
  auto r = check(
      *c.prog,
      options({{"--block", "64,4"}, {"--stream", "j"}, {"--unroll", "i=4"}, {"--time-tile", "5"}}));
  EXPECT_TRUE(r.valid) << allText(r.diags);
  const Schedule& s = r.schedule;
  EXPECT_EQ(s.block.value, (std::vector<int64_t>{64, 4}));
  EXPECT_EQ(s.block.origin.kind, Origin::Kind::CommandLine);
  EXPECT_EQ(describe(s.block.origin), "command line (--block 64,4)");
  EXPECT_EQ(s.stream->value.iterator, "j");
  EXPECT_EQ(describe(s.stream->origin), "command line (--stream j)");
  EXPECT_EQ(s.unrollFactor("i"), 4);
  EXPECT_EQ(s.unrollFactor("j"), 1);  // --unroll replaces the whole clause
  EXPECT_EQ(s.timeTile.value, 5);

  // --schedule global: the file's stream no longer applies; its block still does.
  auto g = check(*c.prog, options({{"--schedule", "global"}}));
  EXPECT_TRUE(g.valid) << allText(g.diags);
  EXPECT_EQ(g.schedule.family.value, ScheduleFamily::Global);
  EXPECT_FALSE(g.schedule.stream);
  EXPECT_EQ(g.schedule.block.value, (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(g.schedule.block.origin.kind, Origin::Kind::File);

  // --full-stream alone selects stream; global-stream takes --schedule global-stream.
  auto c2 = program(k3d);
  auto f = check(*c2.prog, options({{"--full-stream", "k"}}));
  EXPECT_TRUE(f.valid) << allText(f.diags);
  EXPECT_EQ(f.schedule.family.value, ScheduleFamily::Stream);
  EXPECT_EQ(describe(f.schedule.family.origin), "command line (--full-stream k)");
  EXPECT_TRUE(f.schedule.stream->value.full);
  auto gs = check(*c2.prog, options({{"--schedule", "global-stream"}, {"--stream", "j"}}));
  EXPECT_TRUE(gs.valid) << allText(gs.diags);
  EXPECT_EQ(gs.schedule.family.value, ScheduleFamily::GlobalStream);
  EXPECT_EQ(gs.schedule.stream->value.iterator, "j");

  // --chunk sets the planes per block of a chunked stream; the file's stream k applies.
  auto ch = check(*c.prog, options({{"--chunk", "3"}}));
  EXPECT_TRUE(ch.valid) << allText(ch.diags);
  EXPECT_EQ(ch.schedule.family.value, ScheduleFamily::Stream);
  EXPECT_EQ(ch.schedule.chunk.value, 3);
  EXPECT_EQ(describe(ch.schedule.chunk.origin), "command line (--chunk 3)");

  // --schedule stream without a stream clause streams the slowest iterator, in chunks;
  // --schedule shared gets 32x4x4 blocks in 3-D.
  auto st = check(*c2.prog, options({{"--schedule", "stream"}}));
  EXPECT_TRUE(st.valid) << allText(st.diags);
  ASSERT_TRUE(st.schedule.stream);
  EXPECT_EQ(st.schedule.stream->value.iterator, "k");
  EXPECT_FALSE(st.schedule.stream->value.full);
  auto sh = check(*c2.prog, options({{"--schedule", "shared"}}));
  EXPECT_TRUE(sh.valid) << allText(sh.diags);
  EXPECT_EQ(sh.schedule.block.value, (std::vector<int64_t>{32, 4, 4}));
}

TEST(Schedule, MalformedOptionValuesNameTheFlag) {
  auto bad = [](const std::string& flag, const std::string& value, const std::string& want) {
    ScheduleOptions o;
    DiagnosticEngine d;
    EXPECT_FALSE(setScheduleOption(o, flag, value, d));
    ASSERT_EQ(d.errorCount(), 1);
    EXPECT_EQ(d.diagnostics()[0].id, DiagId::bad_schedule);
    EXPECT_FALSE(d.diagnostics()[0].loc.valid());
    EXPECT_NE(d.diagnostics()[0].message.find(want), std::string::npos)
        << d.diagnostics()[0].message;
  };
  bad("--schedule", "streams", "--schedule 'streams': unknown schedule family");
  bad("--chunk", "x", "--chunk 'x': expected an integer");
  bad("--block", "32,8,1,1", "--block '32,8,1,1': expected 1 to 3 integers");
  bad("--block", "", "--block '': expected 1 to 3 integers");
  bad("--block", "32x8", "expected 1 to 3 integers separated by commas");
  bad("--stream", "2", "--stream '2': expected an iterator name");
  bad("--unroll", "j2", "--unroll 'j2': 'j2' is not ITERATOR=FACTOR");
  bad("--unroll", "j=2,blocked,cyclic", "'blocked' and 'cyclic' contradict each other");
  bad("--time-tile", "two", "--time-tile 'two': expected an integer");
  ScheduleOptions o;
  DiagnosticEngine d;
  EXPECT_THROW(setScheduleOption(o, "--blok", "1", d), std::invalid_argument);
  EXPECT_TRUE(setScheduleOption(o, "--block", "0,-1", d));  // parses; validate() refuses it
  EXPECT_EQ(o.block, (std::vector<int64_t>{0, -1}));
}

TEST(Schedule, ContradictoryOptionsAreErrors) {
  auto c = program(k3d);
  auto r = check(*c.prog, options({{"--stream", "k"}, {"--full-stream", "j"}}));
  EXPECT_FALSE(r.valid);
  EXPECT_NE(allText(r.diags).find("--stream k and --full-stream j contradict each other"),
            std::string::npos)
      << allText(r.diags);
  EXPECT_NE(allText(r.diags).find("hint: give one of them: --stream ITER sweeps chunks"),
            std::string::npos)
      << allText(r.diags);
  // An iterator that does not exist and resembles none: the hint says what to write.
  auto u = check(*c.prog, options({{"--unroll", "q=2"}}));
  EXPECT_FALSE(u.valid);
  EXPECT_NE(allText(u.diags).find("hint: name one of this program's iterators, e.g. --unroll i=2"),
            std::string::npos)
      << allText(u.diags);
  auto g = check(*c.prog, options({{"--schedule", "global"}, {"--stream", "k"}}));
  EXPECT_FALSE(g.valid);
  EXPECT_NE(allText(g.diags).find("--stream k needs a streaming schedule"), std::string::npos)
      << allText(g.diags);
}

// ---- validate(): located errors ----

namespace {
// The one error of a check, rendered.
std::string oneError(const Checked& r) {
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.diags.errorCount(), 1) << allText(r.diags);
  for (auto& d : r.diags.diagnostics()) EXPECT_EQ(d.id, DiagId::bad_schedule);
  return allText(r.diags);
}
}  // namespace

TEST(ScheduleErrors, BlockOf2048ThreadsIsLocatedAtTheClause) {
  auto c = program(k2d, "#pragma block (64, 32)");
  std::string e = oneError(check(*c.prog));
  EXPECT_NE(e.find("test.sten:4:9: error: 'block (64, 32)' has 2048 threads, more than the 1024 "
                   "threads per block that NVIDIA H100 SXM5 80GB (h100) allows"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("#pragma block (64, 32)\n          ^"), std::string::npos) << e;
  // From the command line: no location, the flag named.
  auto c2 = program(k2d);
  std::string e2 = oneError(check(*c2.prog, options({{"--block", "1024,2"}})));
  EXPECT_NE(e2.find("tessel: error: --block 1024,2 has 2048 threads, more than the 1024"),
            std::string::npos)
      << e2;
}

TEST(ScheduleErrors, BlockExtentOfZero) {
  auto c = program(k2d);
  std::string e = oneError(check(*c.prog, options({{"--block", "32,0"}})));
  EXPECT_NE(e.find("--block 32,0: block extent 0 in y must be at least 1"), std::string::npos) << e;
}

TEST(ScheduleErrors, StreamDimensionThatDoesNotExist) {
  auto c = program(k3d);
  std::string e = oneError(check(*c.prog, options({{"--stream", "kk"}})));
  EXPECT_NE(e.find("--stream kk: 'kk' is not an iterator of this program (its iterators: k, j, "
                   "i)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("hint: did you mean 'k'?"), std::string::npos) << e;
  // A pragma naming a non-iterator is refused by the frontend, located at the name.
  auto bad = compileText(
      std::string(k3d).replace(std::string(k3d).find("%PRAGMA%"), 8, "#pragma stream q"));
  EXPECT_FALSE(bad.prog);
  EXPECT_NE(bad.diagText().find("test.sten:4:16: error: 'q' in 'stream' is not an iterator"),
            std::string::npos)
      << bad.diagText();
  // A Schedule built by other means (the tuner) is located at its origin all the same.
  auto ok = program(k3d, "#pragma stream k");
  Checked r;
  r.schedule = buildSchedule(*ok.prog, 0, {}, r.diags);
  r.schedule.stream->value.iterator = "q";
  r.valid = validate(r.schedule, *ok.prog, machine(), r.diags);
  std::string e3 = oneError(r);
  EXPECT_NE(e3.find("test.sten:4:9: error: 'stream q': 'q' is not an iterator"), std::string::npos)
      << e3;
}

TEST(ScheduleErrors, StreamingTheUnitStrideIterator) {
  auto c = program(k2d, "#pragma stream i");
  std::string e = oneError(check(*c.prog));
  EXPECT_NE(e.find("test.sten:4:9: error: 'stream i': 'i' is the unit-stride (last) iterator and "
                   "cannot be streamed"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("hint: stream the slowest iterator, 'j'"), std::string::npos) << e;
}

TEST(ScheduleErrors, GlobalStreamOnA1DProgram) {
  auto c = program(k1d);
  std::string e = oneError(check(*c.prog, options({{"--schedule", "global-stream"}})));
  EXPECT_NE(e.find("tessel: error: --schedule global-stream: the 'global-stream' schedule needs "
                   "a 2-D or 3-D program"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("this program has one iterator, 'i'"), std::string::npos) << e;
  EXPECT_NE(e.find("hint: use --schedule global"), std::string::npos) << e;
}

TEST(ScheduleErrors, UnrollOfZero) {
  auto c = program(k2d);
  std::string e = oneError(check(*c.prog, options({{"--unroll", "j=0"}})));
  EXPECT_NE(e.find("--unroll j=0: unroll factor 0 for 'j' must be at least 1"), std::string::npos)
      << e;
  auto e2 = oneError(check(*c.prog, options({{"--unroll", "q=2"}})));
  EXPECT_NE(e2.find("--unroll q=2: 'q' is not an iterator of this program"), std::string::npos)
      << e2;
  // In a pragma the frontend refuses it, located at the iterator.
  auto bad = compileText(
      std::string(k2d).replace(std::string(k2d).find("%PRAGMA%"), 8, "#pragma unroll j=0"));
  EXPECT_FALSE(bad.prog);
  EXPECT_NE(bad.diagText().find("test.sten:4:16: error: unroll factor for 'j' must be at least 1"),
            std::string::npos)
      << bad.diagText();
}

TEST(ScheduleErrors, TimeTileBelowOne) {
  auto c = program(k2d);
  std::string e = oneError(check(*c.prog, options({{"--time-tile", "0"}})));
  EXPECT_NE(e.find("--time-tile 0: time_tile must be at least 1"), std::string::npos) << e;
}

TEST(ScheduleErrors, BlockDimensionsBeyondTheGrid) {
  auto c = program(k2d);
  std::string e = oneError(check(*c.prog, options({{"--block", "32,2,2"}})));
  EXPECT_NE(e.find("--block 32,2,2 spreads threads over 3 dimensions, but the 'global' grid of "
                   "this 2-D program has 2 (i, j)"),
            std::string::npos)
      << e;
}

TEST(ScheduleErrors, MachineLimitsDiffer) {
  // 1024 threads fit every machine; a z extent of 65 fits none.
  auto c = program(k3d, "#pragma block (16, 4, 16)");
  for (auto& id : kAllMachines) EXPECT_TRUE(check(*c.prog, {}, machine(id)).valid) << id;
  auto c2 = program(k3d, "#pragma block (1, 1, 65)");
  std::string e = oneError(check(*c2.prog, {}, machine("k20c")));
  EXPECT_NE(e.find("block extent 65 in z is more than the 64 that NVIDIA Tesla K20c (k20c) "
                   "allows in z"),
            std::string::npos)
      << e;
}
