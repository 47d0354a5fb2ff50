// `tessel info` with a schedule: the per-kernel report (block, tile, footprint, shared memory,
// redundancy, loads and stores per output point, ptxas registers when nvcc is present).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "exec/cuda_resources.h"
#include "support/command.h"
#include "support/nvcc.h"

using namespace tessel::testing;

namespace {
std::string bench(const std::string& b) { return sourceDir() + "/benchmarks/" + b + ".sten"; }
bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }
}  // namespace

TEST(CliInfoKernels, OnlyWithAScheduleFlagOrKernels) {
  auto plain = runCommand(tesselBinary() + " info " + bench("j2d5pt"));
  ASSERT_EQ(plain.exitCode, 0) << plain.output;
  EXPECT_FALSE(has(plain.output, "GPU kernels")) << plain.output;
  auto k = runCommand(tesselBinary() + " info --kernels --no-ptxas " + bench("j2d5pt"));
  ASSERT_EQ(k.exitCode, 0) << k.output;
  EXPECT_TRUE(has(k.output, "GPU kernels (for NVIDIA H100")) << k.output;
}

TEST(CliInfoKernels, GlobalFamilyCountsEveryRead) {
  // j2d5pt reads in at 5 offsets (-1..+1 along j and i): a 64x4 block's 4x64 tile reads a
  // (4+2) x (64+2) = 396-point footprint; every thread loads its 5 points, stores 1.
  auto r = runCommand(tesselBinary() + " info --json --no-ptxas " + bench("j2d5pt") +
                      " --schedule global --block 64,4");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["kernels"].size(), 2u) << r.output;
  auto& k0 = j["kernels"][0];
  EXPECT_EQ(k0["name"], "call0_j2d5pt_s0");
  EXPECT_EQ(k0["family"], "global");
  EXPECT_EQ(k0["block"], nlohmann::json::array({64, 4, 1}));
  EXPECT_EQ(k0["tile"], nlohmann::json::array({"4", "64"}));
  ASSERT_EQ(k0["footprints"].size(), 1u);
  EXPECT_EQ(k0["footprints"][0]["array"], "in");
  EXPECT_EQ(k0["footprints"][0]["extents"], nlohmann::json::array({"6", "66"}));
  EXPECT_EQ(k0["footprints"][0]["points"], 396);
  EXPECT_EQ(k0["shared_bytes"], 0);
  EXPECT_EQ(k0["redundancy_percent"], 0.0);
  EXPECT_EQ(k0["loads_per_point"], 5.0);
  EXPECT_EQ(k0["stores_per_point"], 1.0);
  // The second call of the ping-pong reads `out`: actual names, not the stencil's formals.
  EXPECT_EQ(j["kernels"][1]["footprints"][0]["array"], "out");
  EXPECT_TRUE(has(j["kernels"][1]["computes"].get<std::string>(), "in[j][i] = (5.1 * out[j-1][i]"))
      << j["kernels"][1]["computes"];
}

TEST(CliInfoKernels, GlobalStreamSweepsAndCountsPerPlane) {
  // j3d7pt streamed along k with a 32x16 block: each thread sweeps k; per plane the block
  // reads (16+2) x (32+2) = 612 points of in, and 7 loads per point (no reuse in this family).
  auto r = runCommand(tesselBinary() + " info --no-ptxas " + bench("j3d7pt") +
                      " --schedule global-stream --stream k --block 32,16");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(has(r.output, "call0_j3d7pt_s0  global-stream, block 32x16x1")) << r.output;
  EXPECT_TRUE(has(r.output, "tile       all x 16 x 32")) << r.output;
  EXPECT_TRUE(has(r.output, "reads      in       all+2 x 18 x 34 (612 points per plane)"))
      << r.output;
  EXPECT_TRUE(has(r.output, "shared 0 B, redundant 0.0%, 7 loads and 1 stores per point"))
      << r.output;
}

TEST(CliInfoKernels, StagedFamiliesCountLoadsFromTheStagingAnalysis) {
  // stream (the file's `stream k`, chunk 16, block 32x16): k-1 and k+1 in registers, plane k in
  // one shared plane of 18 x 34, its own points from the register chain: per plane 1 register
  // load + 612 - 512 halo elements per 512 points, and per chunk of 16 planes two prologue
  // register loads: (512 + 100 + 2 * 512 / 16) / 512 = 1.32 loads per point.
  auto r = runCommand(tesselBinary() + " info --no-ptxas --kernels " + bench("j3d7pt"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(has(r.output, "call0_j3d7pt_s0  stream, block 32x16x1")) << r.output;
  EXPECT_TRUE(has(r.output, "tile       16 x 16 x 32")) << r.output;
  EXPECT_TRUE(has(r.output, "reads      in       16+2 x 18 x 34 (612 points per plane)"))
      << r.output;
  EXPECT_TRUE(has(r.output, "shared 9792 B, redundant 0.0%, 1.32 loads and 1 stores per point"))
      << r.output;
  // shared, 32x4x4: a 6 x 6 x 34 tile per 512 points: 1224 / 512 = 2.391 loads per point.
  auto s =
      runCommand(tesselBinary() + " info --no-ptxas " + bench("j3d27pt") + " --schedule shared");
  ASSERT_EQ(s.exitCode, 0) << s.output;
  EXPECT_TRUE(has(s.output, "reads      in       6 x 6 x 34 (1224 points)")) << s.output;
  EXPECT_TRUE(has(s.output, "shared 9792 B, redundant 0.0%, 2.391 loads and 1 stores per point"))
      << s.output;
}

TEST(CliInfoKernels, EveryFamilyReadsItsFootprintsFromTheOneStaging) {
  // fdtd2d's `ey[j][i] -= 0.5*(hz[j][i] - hz[j-1][i])` and `ey[j][i] = src[i]`, 32x8 blocks:
  // global reads hz at both offsets from global memory, shared stages it (9 x 32 tile); both
  // list the compound assignment's own point of ey, and the 1-D src as the 32 distinct
  // elements a block reads (not one per point). The global family loads hz twice per point.
  for (const char* family : {"global", "shared"}) {
    auto r = runCommand(tesselBinary() + " info --no-ptxas " + bench("fdtd2d") +
                        " --block 32,8 --schedule " + family);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(has(r.output, "reads      hz       9 x 32 (288 points)")) << family << r.output;
    EXPECT_TRUE(has(r.output, "reads      ey       8 x 32 (256 points)")) << family << r.output;
    EXPECT_TRUE(has(r.output, "reads      src      32 (32 points)")) << family << r.output;
    const bool global = std::string(family) == "global";
    EXPECT_TRUE(has(r.output, global ? "shared 0 B, redundant 0.0%, 3 loads"
                                     : "shared 2304 B, redundant 0.0%, 2.125 loads"))
        << family << r.output;
  }
}

TEST(CliInfoKernels, BarriersAsTheBarrierPassPlacedThem) {
  // Counted from the kernels' IR after pass insert-barriers: none without shared memory; the
  // shared family's one after the tile; the stream family's one per plane (the leading plane
  // goes to a slot of its own, issue 11, and the compute reads it); stream + time_tile 2: one after
  // the inputs, one between the stages, per plane (the next step's loads go to the input ring's
  // spare plane: issue 11, one per plane and step); without the spare plane, also one before the
  // next step's loads.
  auto barriers = [](const std::string& schedule) {
    auto r =
        runCommand(tesselBinary() + " info --json --no-ptxas " + bench("j3d7pt") + " " + schedule);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    auto k = nlohmann::json::parse(r.output)["kernels"].back();
    return std::make_pair(k["barriers_once"].get<int>(), k["barriers_per_plane"].get<int>());
  };
  EXPECT_EQ(barriers("--schedule global"), std::make_pair(0, 0));
  EXPECT_EQ(barriers("--schedule shared"), std::make_pair(1, 0));
  EXPECT_EQ(barriers("--schedule stream"), std::make_pair(0, 1));  // issue 11: at most one
  EXPECT_EQ(barriers("--schedule stream --time-tile 2"), std::make_pair(0, 2));
  EXPECT_EQ(barriers("--schedule stream --time-tile 3"), std::make_pair(0, 3));
  EXPECT_EQ(barriers("--schedule stream --time-tile 2 --spare-plane off"), std::make_pair(0, 3));
  // hypterm's overlapped kernel: its stages read only inputs and write one array each, so only
  // the previous values' loads and the write-back wait (the builders used to place 6).
  auto r = runCommand(tesselBinary() + " info --no-ptxas " + bench("hypterm") +
                      " --schedule overlapped");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(has(r.output, "fused0_p0_hypterm  overlapped")) << r.output;
  EXPECT_TRUE(has(r.output, "    barriers   2\n")) << r.output;
}

TEST(CliInfoKernels, PtxasRegistersWhenNvccIsPresent) {
  TESSEL_REQUIRE_NVCC();
  for (const char* family : {"global", "shared", "stream"}) {
    auto r = runCommand(tesselBinary() + " info --json " + bench("heat") + " --schedule " + family);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto j = nlohmann::json::parse(r.output);
    ASSERT_FALSE(j["kernels"].empty());
    for (auto& k : j["kernels"]) {
      ASSERT_TRUE(k.contains("registers")) << k;
      EXPECT_GT(k["registers"].get<int>(), 0);
      EXPECT_EQ(k["ptxas_shared_bytes"], k["shared_bytes"])
          << family << ": the report's shared memory is what ptxas allocates";
    }
  }
}

TEST(CliInfoKernels, OccupancyOnTheMachine) {
  // j3d27pt under shared (32x4x4 threads, 9792 B): on the H100 at most 4 blocks of 16 warps fill
  // the SM's 64 warps (shared memory would allow 233472 / (9792 + 1024 reserved, to 10880) = 21);
  // on the K20c shared memory allows 49152 / 9984 = 4 as well. Without ptxas the registers are
  // estimated from the kernel's IR (perf/register_estimate.h), and the occupancy follows from the
  // estimate and says so.
  for (const char* machine : {"h100", "k20c"}) {
    auto r = runCommand(tesselBinary() + " info --json --no-ptxas " + bench("j3d27pt") +
                        " --schedule shared --machine " + machine);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto j = nlohmann::json::parse(r.output);
    auto& k = j["kernels"][0];
    auto& o = k["occupancy"];
    EXPECT_EQ(o["upper_bound"], false) << machine << o;
    EXPECT_EQ(o["registers_estimated"], true) << machine << o;
    EXPECT_FALSE(k.contains("registers")) << "no ptxas figure without ptxas";
    const int regs = k["registers_estimate"]["registers"].get<int>();
    EXPECT_GE(regs, 16) << k;
    // 512-thread blocks: 16 warps of regs x 32 registers (rounded to 256) in 64 Ki registers.
    const int perWarp = (regs * 32 + 255) / 256 * 256;
    const int byRegisters = 65536 / perWarp / 16;
    EXPECT_EQ(o["blocks_per_sm"], std::min(4, byRegisters)) << machine << o;
    if (byRegisters > 4) {
      EXPECT_EQ(o["limited_by"],
                std::string(machine) == "h100" ? "threads" : "threads and shared memory")
          << machine << o;
    }
  }
  auto t =
      runCommand(tesselBinary() + " info --no-ptxas " + bench("j3d27pt") + " --schedule shared");
  EXPECT_TRUE(has(t.output, "registers (estimated)")) << t.output;
  EXPECT_TRUE(has(t.output, "(with the estimated registers)")) << t.output;
  // With ptxas: the registers decide, no bound.
  if (tessel::findNvcc().empty() && !tessel::testing::nvccRequired()) return;
  auto p = runCommand(tesselBinary() + " info --json --kernels " + bench("j3d7pt"));
  ASSERT_EQ(p.exitCode, 0) << p.output;
  auto k = nlohmann::json::parse(p.output)["kernels"][0];
  ASSERT_TRUE(k.contains("registers")) << k;
  EXPECT_EQ(k["occupancy"]["upper_bound"], false) << k;
  EXPECT_EQ(k["occupancy"]["registers_estimated"], false) << k;
  const int regs = k["registers"].get<int>();
  // 512-thread blocks: 16 warps of regs x 32 registers (rounded to 256) in 64 Ki registers.
  const int perWarp = (regs * 32 + 255) / 256 * 256;
  EXPECT_EQ(k["occupancy"]["blocks_per_sm"], std::min(4, 65536 / 4 / perWarp * 4 / 16)) << k;
}

// Issue 12, the retiming analysis (analysis/retiming.h) in `tessel info`: per statement, along
// the slowest iterator, whether it can be retimed, its parts and accumulators and the distinct
// plane reads per point before and after (j3d27pt: 27 -> 9), or why not (naming the term).
TEST(CliInfoKernels, StatementsSayWhetherTheyCanBeRetimed) {
  auto r = runCommand(tesselBinary() + " info --json " + bench("j3d27pt"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto st = nlohmann::json::parse(r.output)["calls"][0]["statements"][0]["retiming"];
  EXPECT_EQ(st["along"], "k");
  EXPECT_EQ(st["retimable"], true);
  EXPECT_EQ(st["parts"], 3);
  EXPECT_EQ(st["accumulators"], 3);
  EXPECT_EQ(st["distinct_plane_reads_before"], 27);
  EXPECT_EQ(st["distinct_plane_reads_after"], 9);
  auto t = runCommand(tesselBinary() + " info " + bench("j3d27pt"));
  EXPECT_TRUE(has(t.output,
                  "retimable along k: 3 parts, 3 accumulators, distinct plane reads per point "
                  "27 -> 9 (applied by --schedule stream --retime)"))
      << t.output;
  auto d = runCommand(tesselBinary() + " info " + bench("denoise"));
  EXPECT_TRUE(has(d.output,
                  "not retimable along k: the term `1.0 / sqrt(eps + (u[k][j][i] - "
                  "u[k][j][i+1]) ^ 2 + (u[k][...` reads planes k-1 (`u[k-1][j][i]`) "
                  "and k (`u[k][j][i]`)"))
      << d.output;
}

TEST(CliInfoKernels, AppliedNamesTheKernelQualityChanges) {
  // Issue 11: what was applied to each fused kernel, beside its 32-bit indices: the dead
  // stores left out (j3d7pt's `out` is overwritten before anything reads it), the spare plane
  // of stream + time_tile's input rings, contracted multiply-adds; each gone when switched off.
  auto applied = [&](const std::string& flags) {
    auto r = runCommand(tesselBinary() + " info --kernels --json --no-ptxas " + sourceDir() +
                        "/benchmarks/j3d7pt.sten " + flags);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    for (const auto& k : j["kernels"])
      if (k["name"].get<std::string>().rfind("fused", 0) == 0)
        return k["applied"].get<std::string>();
    return std::string("no fused kernel");
  };
  const std::string on = applied("--schedule stream --time-tile 2 --fma");
  EXPECT_NE(on.find("write-back left out for out (dead stores"), std::string::npos) << on;
  EXPECT_NE(on.find("a spare plane per input ring"), std::string::npos) << on;
  EXPECT_NE(on.find("contracted multiply-adds"), std::string::npos) << on;
  const std::string off =
      applied("--schedule stream --time-tile 2 --dead-stores keep --spare-plane off");
  EXPECT_EQ(off.find("dead stores"), std::string::npos) << off;
  EXPECT_EQ(off.find("spare plane"), std::string::npos) << off;
  EXPECT_EQ(off.find("multiply-adds"), std::string::npos) << off;
  const std::string overlapped = applied("--schedule overlapped --time-tile 2");
  EXPECT_NE(overlapped.find("write-back left out for out"), std::string::npos) << overlapped;
  EXPECT_EQ(overlapped.find("spare plane"), std::string::npos) << overlapped;
}
