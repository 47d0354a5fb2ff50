// The traffic counts of the performance model (perf/traffic.h), written out by hand for j3d7pt
// (out = c0*in + c1*(six neighbours): 8 FLOPs per point, doubles) under `global` and under
// `overlapped` with T = 2 and 4, as `tessel info --json` reports them per point-update.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/command.h"

using namespace tessel::testing;

namespace {

/// The JSON traffic of the first kernel whose name starts with `prefix`.
nlohmann::json trafficOf(const std::string& flags, const std::string& prefix) {
  auto r = runCommand(tesselBinary() + " info --json --no-ptxas " + sourceDir() +
                      "/benchmarks/j3d7pt.sten " + flags);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  for (auto& k : j["kernels"])
    if (k["name"].get<std::string>().rfind(prefix, 0) == 0) return k["traffic"];
  ADD_FAILURE() << "no kernel " << prefix << " in\n" << r.output;
  return {};
}

}  // namespace

TEST(Traffic, J3d7ptGlobalByHand) {
  // Block 32x8x1 (i, j, k): 256 points per block.
  //   L1: every thread loads its 7 taps: 7 x 8 B = 56 B per point;
  //   L2: the block's box footprint (32+2) x (8+2) x (1+2) = 1020 elements: 1020 x 8 / 256;
  //   DRAM: in read once, the result written once: 16 B.
  auto t = trafficOf("--schedule global --block 32,8,1", "call0_");
  EXPECT_EQ(t["steps"], 1);
  EXPECT_DOUBLE_EQ(t["flops"].get<double>(), 8);
  EXPECT_DOUBLE_EQ(t["l1_bytes"].get<double>(), 56);
  EXPECT_DOUBLE_EQ(t["l2_bytes"].get<double>(), 1020.0 * 8 / 256);
  EXPECT_DOUBLE_EQ(t["dram_bytes"].get<double>(), 16);
  EXPECT_DOUBLE_EQ(t["shared_bytes"].get<double>(), 0);
}

TEST(Traffic, J3d7ptOverlappedTwoStepsByHand) {
  // Block 16x8x4 at T = 2 (the ping-pong in -> out -> in): the last stage computes the 14x6x2
  // tile (168 points), the first its halo of one, 16x8x4 = 512 points; 680 per 168 x 2
  // point-updates.
  //   FLOPs: 8 x 680 / 336;
  //   L2 (= L1, cooperative loads): `in` over the tile plus two per side, 18x10x6 = 1080
  //   elements: 1080 x 8 / 336;
  //   DRAM: `in` read once and written back once: (1 + 1) x 8 / 2 = 8 B. `out` is dead (the
  //   next launch writes it first and nothing copies it out: analysis/dead_stores.h); with
  //   --dead-stores keep it is written back too: (1 + 2) x 8 / 2 = 12 B;
  //   shared: the 1080 loaded elements stored, each stage's points stored (680) and each read
  //   of their 7 taps (7 x 680): (1080 + 680 + 4760) x 8 / 336.
  auto t = trafficOf("--schedule overlapped --time-tile 2 --block 16,8,4", "fused");
  EXPECT_EQ(t["steps"], 2);
  EXPECT_DOUBLE_EQ(t["flops"].get<double>(), 8.0 * 680 / 336);
  EXPECT_DOUBLE_EQ(t["useful_flops"].get<double>(), 8);
  EXPECT_DOUBLE_EQ(t["l2_bytes"].get<double>(), 1080.0 * 8 / 336);
  EXPECT_DOUBLE_EQ(t["l1_bytes"].get<double>(), 1080.0 * 8 / 336);
  EXPECT_DOUBLE_EQ(t["dram_bytes"].get<double>(), 8);
  EXPECT_DOUBLE_EQ(t["shared_bytes"].get<double>(), (1080.0 + 680 + 4760) * 8 / 336);
  auto keep =
      trafficOf("--schedule overlapped --time-tile 2 --block 16,8,4 --dead-stores keep", "fused");
  EXPECT_DOUBLE_EQ(keep["dram_bytes"].get<double>(), 12);
}

TEST(Traffic, J3d7ptOverlappedFourStepsByHand) {
  // Block 16x8x8 at T = 4: stages of 16x8x8, 14x6x6, 12x4x4 and the 10x2x2 tile: 1024 + 504 +
  // 192 + 40 = 1760 points for 40 x 4 point-updates; `in` over the tile plus 4 per side,
  // 18x10x10 = 1800 elements. Overlapping all three dimensions at four steps costs 11x the
  // FLOPs and about 3x global's L2 traffic, for 4 B of DRAM traffic instead of 16 (6 B with the
  // dead `out` written back).
  auto t = trafficOf("--schedule overlapped --time-tile 4 --block 16,8,8", "fused");
  EXPECT_EQ(t["steps"], 4);
  EXPECT_DOUBLE_EQ(t["flops"].get<double>(), 8.0 * 1760 / 160);
  EXPECT_DOUBLE_EQ(t["l2_bytes"].get<double>(), 1800.0 * 8 / 160);
  EXPECT_DOUBLE_EQ(t["dram_bytes"].get<double>(), 2.0 * 8 / 4);
  auto keep =
      trafficOf("--schedule overlapped --time-tile 4 --block 16,8,8 --dead-stores keep", "fused");
  EXPECT_DOUBLE_EQ(keep["dram_bytes"].get<double>(), 3.0 * 8 / 4);
}

TEST(Traffic, StagedFamiliesLoadEachElementOnce) {
  // shared (32x16 threads, 1 plane): `in` is staged as a 3x18x34 tile, 1836 elements per 512
  // points, loaded once (L1 = L2); the 7 taps read shared memory: (1836 + 7 x 512) x 8 / 512.
  auto t = trafficOf("--schedule shared", "call0_");
  EXPECT_DOUBLE_EQ(t["l2_bytes"].get<double>(), 1836.0 * 8 / 512);
  EXPECT_DOUBLE_EQ(t["l1_bytes"].get<double>(), t["l2_bytes"].get<double>());
  EXPECT_DOUBLE_EQ(t["shared_bytes"].get<double>(), (1836.0 + 7 * 512) * 8 / 512);
  EXPECT_DOUBLE_EQ(t["dram_bytes"].get<double>(), 16);
}
