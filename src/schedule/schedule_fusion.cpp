// The overlapped family against the machine: every fused kernel must leave a tile after its
// halo and fit its shared buffers into one block's shared memory.
#include <fmt/format.h>

#include <algorithm>

#include "schedule/resolve.h"
#include "schedule/schedule.h"

namespace tessel {

bool streamsTimeTiled(const Schedule& s, const Program& prog) {
  return gridOf(s, prog).fusedStreamDim() >= 0;
}

bool usesSparePlanes(const Schedule& s, const Program& prog) {
  return streamsTimeTiled(s, prog) ||
         (s.family.value == ScheduleFamily::Stream && s.retime.value && streamDim(s, prog) >= 0);
}

bool validateFusion(const std::vector<Schedule>& schedules, const Program& prog,
                    const MachineDesc& m, DiagnosticEngine& diags, bool refuseStreamedExcess,
                    int onlyStencil) {
  if (std::none_of(schedules.begin(), schedules.end(),
                   [&](const Schedule& s) { return gridOf(s, prog).fusesSteps(); }))
    return true;
  bool ok = true;
  for (const FusionGroup& g : fusionGroups(schedules, prog)) {
    if (onlyStencil >= 0 && g.stencil != onlyStencil) continue;
    const Schedule& s = schedules.at(static_cast<size_t>(g.stencil));
    const std::string who = prog.stencils.at(static_cast<size_t>(g.stencil)).name;
    const Origin& where =
        s.block.origin.kind != Origin::Kind::Default ? s.block.origin : s.timeTile.origin;
    auto loc = [](const Origin& o) { return o.kind == Origin::Kind::File ? o.loc : SourceLoc{}; };
    const bool statements = g.streamDim >= 0 && g.timeTile <= 1;  // stream's statement fusion
    const std::string family =
        statements ? fmt::format("stream {} with fuse_statements",
                                 prog.iterators.at(static_cast<size_t>(g.streamDim)).name)
        : g.streamDim >= 0
            ? fmt::format("stream {} with time_tile {}",
                          prog.iterators.at(static_cast<size_t>(g.streamDim)).name, g.timeTile)
            : fmt::format("overlapped with time_tile {}", g.timeTile);
    const std::string smaller =
        statements ? "or leave fuse_statements out" : "or a smaller time tile (--time-tile)";
    if (!g.fused && g.note.find("leaves no tile") != std::string::npos) {
      std::string block;
      for (int64_t b : s.block.value) block += (block.empty() ? "" : ", ") + std::to_string(b);
      diags.report(DiagId::bad_schedule, loc(where),
                   fmt::format("stencil '{}', {}: {}: {}", who, family,
                               settingName(s.block.origin, "block (" + block + ")"), g.note),
                   g.streamDim >= 0
                       ? "give a larger block (--block) " + smaller
                       : "give a larger block (--block), more elements per thread (--unroll) "
                         "or a smaller time tile (--time-tile)");
      ok = false;
      continue;
    }
    for (const FusedVariant& v : g.variants) {
      // Streamed: rings of planes per stage; tiled: one hull per value.
      int64_t bytes =
          g.streamDim >= 0 ? v.analysis.totals.sharedBytes : v.analysis.totals.sharedBytesHulls;
      if (bytes <= m.sharedPerBlockMax() || (g.streamDim >= 0 && !refuseStreamedExcess)) continue;
      std::string tile;
      for (int64_t t : v.tile) tile += (tile.empty() ? "" : "x") + std::to_string(t);
      // The input rings' spare planes (Schedule::sparePlane), where leaving them out would fit.
      int64_t spare = 0;
      for (const TileBuffer& b : v.analysis.buffers)
        if (g.streamDim >= 0 && b.producer < 0 && b.planes > b.window) spare += b.bytes / b.planes;
      const bool withoutSpare = spare > 0 && bytes - spare <= m.sharedPerBlockMax();
      diags.report(
          DiagId::bad_schedule, loc(where),
          fmt::format("stencil '{}', {}: the fused kernel of calls {} "
                      "(tile {}) needs {} bytes of shared memory per block, more than the {} "
                      "bytes that {} ({}) allows",
                      who, family, fmt::join(v.seq.calls, ", "), tile, bytes, m.sharedPerBlockMax(),
                      m.name, m.id),
          withoutSpare ? fmt::format("--spare-plane off leaves out the input rings' spare "
                                     "planes ({} bytes; one barrier more per plane), or give a "
                                     "smaller block (--block) {}",
                                     spare, smaller)
                       : "give a smaller block (--block) " + smaller);
      ok = false;
      break;
    }
  }
  return ok;
}

}  // namespace tessel
