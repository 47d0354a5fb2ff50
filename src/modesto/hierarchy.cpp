// The tiling hierarchies of the hierarchical model (hierarchy.h).
#include "modesto/hierarchy.h"

#include <fmt/format.h>

#include <stdexcept>

#include "model/host.h"
#include "model/machine.h"

namespace tessel::modesto {

const char* haloName(Halo h) {
  switch (h) {
    case Halo::OnTheFly:
      return "of";
    case Halo::ExchangeParallel:
      return "hp";
    case Halo::ExchangeSequential:
      return "hs";
  }
  return "?";
}

Hierarchy gpuTwoLevel(const MachineDesc& m, std::vector<int64_t> block, int valueBytes) {
  if (!m.compute.smClock)
    throw std::invalid_argument(fmt::format(
        "machine '{}' has no SM clock: its shared-memory bandwidth is unknown", m.name));
  const double bytes = valueBytes;
  const double dram = m.memory.measuredDramBandwidth.value_or(m.memory.dramBandwidth);
  const double shared = static_cast<double>(m.compute.sms) * 128.0 * *m.compute.smClock;
  Hierarchy h;
  Level whole;
  whole.memory = "DRAM";
  whole.tile.assign(block.size(), 0);
  whole.vertical = dram / bytes;
  whole.capacity = 0;  // device memory: not a tile's limit here
  Level blk;
  blk.memory = "shared memory";
  blk.tile = std::move(block);
  blk.vertical = shared / 2 / bytes;
  blk.lateral = shared / 2 / bytes;
  blk.capacity = static_cast<double>(m.memory.sharedPerBlock) / bytes;
  h.levels = {whole, blk};
  h.compute = (valueBytes == 8 ? m.compute.peakFp64 : m.compute.peakFp32) / 2;
  return h;
}

Hierarchy cpuTwoLevel(const HostMachine& host, std::vector<int64_t> tile, int valueBytes) {
  const double bytes = valueBytes;
  Hierarchy h;
  Level whole;
  whole.memory = "DRAM";
  whole.tile.assign(tile.size(), 0);
  whole.vertical = host.dramCopyBandwidth / bytes;
  Level cache;
  cache.memory = "L2";
  cache.tile = std::move(tile);
  cache.vertical = host.l2CopyBandwidth / bytes;
  cache.capacity = static_cast<double>(host.l2Bytes > 0 ? host.l2Bytes : 256 << 10) / bytes;
  h.levels = {whole, cache};
  h.compute = host.fp64FlopRate;
  return h;
}

}  // namespace tessel::modesto
