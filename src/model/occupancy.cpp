// Occupancy by NVIDIA's allocation rules (occupancy.h).
#include "model/occupancy.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tessel {

namespace {

constexpr int kNoLimit = std::numeric_limits<int>::max();
constexpr int64_t kKiB = 1024;

int64_t divUp(int64_t x, int64_t y) { return (x + y - 1) / y; }
int64_t roundUp(int64_t x, int64_t y) { return y * divUp(x, y); }

/// The carve-out steps (KiB) of the L1/shared array from 7.0 on, per the CUDA C++ Programming
/// Guide's compute-capability sections ("the shared memory capacity can be set to 0, 8, 16, 32,
/// 64, 100, 132, 164, 196 or 228 KB" for 9.0, and so on) and the CUDA Occupancy Calculator.
std::vector<int64_t> carveoutSteps(int major, int minor) {
  std::vector<int64_t> kib;
  if (major == 7 && minor == 5)
    kib = {32, 64};  // Turing: 32 or 64 KiB, never 0
  else if (major == 7)
    kib = {0, 8, 16, 32, 64, 96};
  else if (major == 8 && (minor == 0 || minor == 7))
    kib = {0, 8, 16, 32, 64, 100, 132, 164};
  else if (major == 8)
    kib = {0, 8, 16, 32, 64, 100};
  else if (major == 9)
    kib = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  for (int64_t& k : kib) k *= kKiB;
  return kib;
}

/// The smallest carve-out step that holds `bytes`; throws past the largest.
int64_t alignToCarveout(const OccupancyRules& r, int64_t bytes) {
  for (int64_t step : r.carveouts)
    if (bytes <= step) return step;
  throw std::invalid_argument(fmt::format(
      "occupancy: {} bytes of shared memory per SM exceed the largest carve-out ({} bytes)", bytes,
      r.carveouts.empty() ? 0 : r.carveouts.back()));
}

/// Blocks the register file allows (0 when one block does not fit); `allocated` receives the
/// registers allocated per block.
int registerLimit(const MachineDesc& m, const OccupancyRules& r, int64_t threads, int registers,
                  int64_t& allocated) {
  const int64_t warp = m.compute.warpSize;
  const int64_t warps = divUp(threads, warp);
  const int64_t perWarp = roundUp(static_cast<int64_t>(registers) * warp, r.registerGranularity);
  allocated = perWarp * warps;
  // The hardware places a block's warps on whole sub-partitions.
  const int64_t assumed = perWarp * roundUp(warps, r.subPartitions);
  if (m.limits.maxRegistersPerBlock < assumed || m.limits.maxRegistersPerBlock < allocated ||
      registers > r.maxRegistersPerThread)
    return 0;
  if (perWarp == 0) return kNoLimit;
  const int64_t warpsPerPartition = m.limits.registersPerSm / r.subPartitions / perWarp;
  return static_cast<int>(warpsPerPartition * r.subPartitions / warps);
}

/// Blocks shared memory allows (0 when one block exceeds its limit); `allocated` receives the
/// bytes allocated per block and `smem` the SM's shared memory configured for the kernel: before
/// 7.0 all of it ("prefer shared", the default); from 7.0 the preferred carve-out (the whole
/// shared capacity unless `carveoutPercent` says less), or the smallest step that holds one
/// block when the preference does not.
int sharedLimit(const MachineDesc& m, const OccupancyRules& r, const OccupancyQuery& q,
                int64_t& allocated, int64_t& smem) {
  int64_t preference = m.memory.sharedPerSm;
  if (m.compute.ccMajor >= 7) {
    if (q.carveoutPercent >= 0) preference = q.carveoutPercent * m.memory.sharedPerSm / 100;
    preference = alignToCarveout(r, preference);
  }
  const int64_t fixed = q.staticShared + r.reservedSharedPerBlock;
  allocated = roundUp(fixed + q.dynamicShared, r.sharedGranularity);
  // The per-block limit: the opt-in maximum (7.0+) for a kernel that opted in and needs it; the
  // reserve comes on top from 8.0.
  int64_t limit = m.memory.sharedPerBlock;
  if (m.compute.ccMajor >= 7 && q.optIn && fixed + q.dynamicShared > m.memory.sharedPerBlock)
    limit = m.memory.sharedPerBlockOptin;
  if (m.compute.ccMajor >= 8) limit += r.reservedSharedPerBlock;
  smem = 0;
  if (allocated > limit) return 0;
  smem =
      preference >= allocated || m.compute.ccMajor < 7 ? preference : alignToCarveout(r, allocated);
  return allocated > 0 ? static_cast<int>(smem / allocated) : kNoLimit;
}

}  // namespace

std::optional<OccupancyRules> occupancyRules(int major, int minor) {
  // Sources: the CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
  // (resident blocks per SM, registers per thread, shared memory per SM and its carve-outs, the
  // 1 KB reserved per block from 8.0), and the CUDA Occupancy Calculator (allocation
  // granularities, sub-partitions, barriers), whose rules the toolkit's cuda_occupancy.h states.
  const bool known = (major == 3 && (minor == 5 || minor == 7)) ||
                     (major == 5 && minor <= 3 && minor != 1) || (major == 6 && minor <= 2) ||
                     (major == 7 && (minor == 0 || minor == 2 || minor == 5)) ||
                     (major == 8 && (minor == 0 || minor == 6 || minor == 7 || minor == 9)) ||
                     (major == 9 && minor == 0);
  if (!known) return std::nullopt;
  OccupancyRules r;
  r.sharedGranularity = major >= 8 ? 128 : 256;
  r.registerGranularity = 256;
  r.maxRegistersPerThread = major >= 7 ? 256 : 255;
  r.subPartitions = major == 6 && minor == 0 ? 2 : 4;
  if (major == 3)
    r.maxBlocksPerSm = 16;
  else if (major == 7 && minor == 5)
    r.maxBlocksPerSm = 16;
  else if (major == 8 && minor == 9)
    r.maxBlocksPerSm = 24;
  else if (major == 8 && minor != 0)
    r.maxBlocksPerSm = 16;
  else
    r.maxBlocksPerSm = 32;
  r.reservedSharedPerBlock = major >= 8 ? kKiB : 0;
  r.carveouts = carveoutSteps(major, minor);
  r.barrierSlotsPerBlockLimit = major == 9 ? 2 : 0;
  return r;
}

std::vector<std::string> occupancyCapabilities() {
  std::vector<std::string> out;
  for (int major = 1; major <= 12; ++major)
    for (int minor = 0; minor <= 9; ++minor)
      if (occupancyRules(major, minor)) out.push_back(fmt::format("{}.{}", major, minor));
  return out;
}

std::string Occupancy::limitText() const {
  std::vector<std::string> parts;
  if (limitedBy & kLimitWarps) parts.push_back("threads");
  if (limitedBy & kLimitRegisters) parts.push_back("registers");
  if (limitedBy & kLimitSharedMemory) parts.push_back("shared memory");
  if (limitedBy & kLimitBlocks) parts.push_back("blocks per SM");
  if (limitedBy & kLimitBarriers) parts.push_back("barriers");
  if (parts.empty()) return "nothing";
  std::string out = parts[0];
  for (size_t k = 1; k < parts.size(); ++k)
    out += (k + 1 == parts.size() ? " and " : ", ") + parts[k];
  return out;
}

Occupancy occupancy(const MachineDesc& m, const OccupancyQuery& q) {
  const auto rules = occupancyRules(m.compute.ccMajor, m.compute.ccMinor);
  if (!rules)
    throw std::invalid_argument(fmt::format(
        "occupancy: no allocation rules for compute capability {}", m.computeCapability()));
  if (q.threads < 1 || q.registers < 0 || q.staticShared < 0 || q.dynamicShared < 0 ||
      q.barriers < 0 || q.carveoutPercent > 100)
    throw std::invalid_argument(
        "occupancy: a block needs at least one thread and no negative "
        "registers, shared bytes or barriers");
  const OccupancyRules& r = *rules;
  const int64_t warp = m.compute.warpSize;
  const int64_t warps = divUp(q.threads, warp);
  Occupancy o;
  o.byWarps = q.threads > m.limits.maxThreadsPerBlock
                  ? 0
                  : static_cast<int>(m.limits.maxThreadsPerSm / warp / warps);
  o.byRegisters = registerLimit(m, r, q.threads, q.registers, o.registersPerBlock);
  if (r.subPartitions == 2 && o.byRegisters > 0) {
    // 6.0 is also checked as if it had four sub-partitions (GP10x): a block that would not fit
    // there does not fit.
    OccupancyRules four = r;
    four.subPartitions = 4;
    int64_t ignored = 0;
    if (registerLimit(m, four, q.threads, q.registers, ignored) == 0) o.byRegisters = 0;
  }
  o.bySharedMemory = sharedLimit(m, r, q, o.sharedPerBlock, o.sharedPerSm);
  o.byBlocks = r.maxBlocksPerSm;
  o.blocksPerSm = std::min({o.byRegisters, o.bySharedMemory, o.byWarps, o.byBlocks});
  if (o.blocksPerSm == o.byWarps) o.limitedBy |= kLimitWarps;
  if (o.blocksPerSm == o.byRegisters) o.limitedBy |= kLimitRegisters;
  if (o.blocksPerSm == o.bySharedMemory) o.limitedBy |= kLimitSharedMemory;
  if (o.blocksPerSm == o.byBlocks) o.limitedBy |= kLimitBlocks;
  o.byBarriers = kNoLimit;
  if (r.barrierSlotsPerBlockLimit > 0 && q.barriers > 0) {
    o.byBarriers = r.barrierSlotsPerBlockLimit * o.byBlocks / q.barriers;
    o.blocksPerSm = std::min(o.blocksPerSm, o.byBarriers);
    if (o.blocksPerSm == o.byBarriers) o.limitedBy |= kLimitBarriers;
  }
  o.activeWarps = static_cast<int>(o.blocksPerSm * warps);
  o.fraction =
      static_cast<double>(o.activeWarps) / static_cast<double>(m.limits.maxThreadsPerSm / warp);
  return o;
}

}  // namespace tessel
