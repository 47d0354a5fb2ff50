// The figures of a fused kernel (overlapped, stream + time_tile): its variant's tile analysis.
#include <fmt/format.h>

#include <set>

#include "analysis/tile_regions.h"
#include "perf/kernel_figures.h"

namespace tessel {

KernelReport fusedKernelReport(const Program& prog, const GpuKernelInfo& k,
                               const ResolvedSchedule& resolved) {
  KernelReport r;
  r.info = k;
  const TileAnalysis& a = resolved.variantOf(k.fusedCalls, k.tile).analysis;
  std::vector<std::string> calls;
  for (int c : k.fusedCalls) calls.push_back(fmt::format("{} ({})", c, prog.calls.at(c).name));
  r.computes = fmt::format("calls {} fused: {} stage{} in shared memory{}", fmt::join(calls, ", "),
                           a.stages.size(), a.stages.size() == 1 ? "" : "s",
                           k.streamIter >= 0 ? ", streamed (figures per plane)" : "");
  for (size_t d = 0; d < k.tile.size(); ++d)
    r.tile.push_back(static_cast<int>(d) == k.streamIter ? "stream" : std::to_string(k.tile[d]));
  // What the kernel really loads: the hull of every global array it writes (so that points no
  // stage writes keep their values), less the points its first writer overwrites unread, and
  // the footprint of every array it only reads.
  std::set<int> loaded;
  double loads = 0;
  auto add = [&](int array, const Box& box, int64_t points) {
    ArrayFootprint f;
    f.array = prog.arrays.at(static_cast<size_t>(array)).name;
    for (size_t d = 0; d < box.lo.size(); ++d)
      f.extents.push_back(std::to_string(box.hi[d] - box.lo[d] + 1));
    f.points = points;
    loads += static_cast<double>(points);
    r.footprints.push_back(f);
  };
  // Streamed: the input rings and the stages' reads of the other arrays, per plane.
  if (k.streamIter >= 0) {
    for (const TileInput& in : a.inputs) {
      add(in.array, in.footprint, in.points);
      size_t sd = static_cast<size_t>(k.streamIter);
      if (sd < in.footprint.lo.size())
        r.footprints.back().extents[sd] =
            fmt::format("all+{}", in.footprint.hi[sd] - in.footprint.lo[sd]);
    }
    r.sharedBytes = k.sharedBytes;
    r.redundancyPercent = a.totals.redundancyPercent;
    r.loadsPerPoint = a.totals.loadsPerPoint;
    r.storesPerPoint = a.totals.storesPerPoint;
    return r;
  }
  for (const TileHull& h : a.hulls) {
    int src =
        h.value.kind == TileValue::Kind::Global ? h.value.index
        : h.value.kind == TileValue::Kind::LocalArray
            ? prog.calls.at(static_cast<size_t>(k.fusedCalls.at(static_cast<size_t>(h.value.step))))
                  .localArrays.at(static_cast<size_t>(h.value.index))
                  .scratchOf
            : -1;
    // Interior loads: the hull minus what the value's first writer overwrites unread.
    if (src >= 0 && loaded.insert(src).second && h.loads > 0) add(src, h.box, h.loads);
  }
  for (const TileInput& in : a.inputs)
    if (loaded.insert(in.array).second) add(in.array, in.footprint, in.points);
  r.sharedBytes = k.sharedBytes;
  r.redundancyPercent = a.totals.redundancyPercent;
  r.loadsPerPoint = a.totals.tilePoints > 0 ? loads / static_cast<double>(a.totals.tilePoints) : 0;
  r.storesPerPoint = a.totals.storesPerPoint;
  return r;
}

}  // namespace tessel
