// The figures of a fused kernel (overlapped, stream + time_tile): its variant's tile analysis.
#include <fmt/format.h>

#include <optional>

#include "analysis/stream_fusion.h"
#include "analysis/tile_regions.h"
#include "perf/kernel_figures.h"
#include "perf/traffic.h"

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
  // What the kernel really loads (fusedLoads, perf/traffic.h); streamed, per plane, and the
  // planes an input ring loads beyond the block's own: its prologue (StreamedPlan::loadFrom).
  std::optional<StreamedPlan> plan;
  if (k.streamIter >= 0) plan = streamedPlan(prog, a);
  auto beyond = [&](const FusedLoad& l, size_t d) {
    if (plan)
      for (size_t b = 0; b < a.buffers.size(); ++b)
        if (a.buffers[b].producer < 0 && a.buffers[b].value.kind == TileValue::Kind::Global &&
            a.buffers[b].value.index == l.array && plan->loadFrom.at(b) != INT64_MAX)
          return -plan->loadFrom[b];
    return l.box.hi[d] - l.box.lo[d];
  };
  double loads = 0;
  for (const FusedLoad& l : fusedLoads(prog, k, a)) {
    ArrayFootprint f;
    f.array = prog.arrays.at(static_cast<size_t>(l.array)).name;
    for (size_t d = 0; d < l.box.lo.size(); ++d)
      f.extents.push_back(static_cast<int>(d) == k.streamIter
                              ? fmt::format("all+{}", beyond(l, d))
                              : std::to_string(l.box.hi[d] - l.box.lo[d] + 1));
    f.points = l.points;
    loads += static_cast<double>(l.points);
    r.footprints.push_back(f);
  }
  if (k.streamIter >= 0) {
    r.sharedBytes = k.sharedBytes;
    r.redundancyPercent = a.totals.redundancyPercent;
    r.loadsPerPoint = a.totals.loadsPerPoint;
    r.storesPerPoint = a.totals.storesPerPoint;
    return r;
  }
  r.sharedBytes = k.sharedBytes;
  r.redundancyPercent = a.totals.redundancyPercent;
  r.loadsPerPoint = a.totals.tilePoints > 0 ? loads / static_cast<double>(a.totals.tilePoints) : 0;
  r.storesPerPoint = a.totals.storesPerPoint;
  return r;
}

}  // namespace tessel
