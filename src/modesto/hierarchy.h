// MODESTO's abstract machine and tiling hierarchy (paper 002, sections 2.4-2.5): a chain of
// levels, level 1 the outermost (the whole domain, in DRAM), each with the tile size of its
// groups, their halo strategy, and the memory its group storage lives in with that memory's
// vertical bandwidth V (to the children), lateral bandwidth L (halo exchange between sibling
// tiles) and capacity M (of ONE memory at that level, not summed over units), plus the machine's
// combined compute throughput C. Bandwidths are in values per second and capacities in values,
// as in the paper.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessel {
struct MachineDesc;
struct HostMachine;
}  // namespace tessel

namespace tessel::modesto {

/// The three halo strategies (section 2.4).
enum class Halo {
  OnTheFly,            // of: overlapped tiles, halo points computed redundantly
  ExchangeParallel,    // hp: one tile per point, halos exchanged laterally, tiles in parallel
  ExchangeSequential,  // hs: tiles shifted so every dependence points one way, one sweep
};

const char* haloName(Halo h);  // "of", "hp", "hs"

struct Level {
  std::string memory;         // where a group's storage at this level lives, e.g. "DRAM"
  std::vector<int64_t> tile;  // per dimension; 0 = untiled (the paper's infinity)
  Halo halo = Halo::OnTheFly;
  double vertical = 0;  // V: values/s between this level's storage and its children; 0 = infinite
  double lateral = 0;   // L: values/s of halo exchange between sibling tiles; 0 = infinite
  double capacity = 0;  // M: values one memory of this level holds; 0 = unlimited
};

struct Hierarchy {
  std::vector<Level> levels;  // level 1 first
  double compute = 0;         // C: flop/s, all units together (the paper: without FMA)
};

/// The two-level GPU hierarchy of model-notes.md 1.7 on machine `m`: level 1 the whole domain
/// (tile 0 = untiled) in DRAM at the measured copy bandwidth where the machine file has one,
/// level 2 a thread block's `block` tile in shared memory at the SMs' combined 128 B per clock
/// (halved, the paper's rule for memories that exchange halos: a write and a read), capacity the
/// default 48 KiB per block, both on-the-fly; C the FP64 (or FP32) peak halved (no FMA). Values
/// are `valueBytes` wide. Throws std::invalid_argument when the machine lacks a clock.
Hierarchy gpuTwoLevel(const MachineDesc& m, std::vector<int64_t> block, int valueBytes);

/// The two-level CPU hierarchy of paper 002's Table 1 on the measured host (model/host.h): level 1
/// the whole domain in DRAM at the measured DRAM copy bandwidth, level 2 a `tile` in one core's
/// L2 at the measured L2 copy bandwidth (all cores), capacity the L2 (256 KiB where the system
/// does not say), both on the fly; C the measured FP64 multiply-add rate. Values are `valueBytes`
/// bytes (8: double).
Hierarchy cpuTwoLevel(const HostMachine& host, std::vector<int64_t> tile, int valueBytes = 8);

}  // namespace tessel::modesto
