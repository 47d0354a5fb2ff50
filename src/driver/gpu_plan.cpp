#include "driver/gpu_plan.h"

#include <fmt/format.h>

namespace tessel {

GpuLaunchPlan gpuLaunchPlan(const Program& prog, const std::vector<Schedule>& schedules) {
  GpuLaunchPlan plan;
  for (const Schedule& s : schedules) {
    GpuLaunchConfig c;
    c.family = s.family.value == ScheduleFamily::GlobalStream ? GpuFamily::GlobalStream
               : s.family.value == ScheduleFamily::Overlapped ? GpuFamily::Overlapped
                                                              : GpuFamily::Global;
    auto b = s.blockShape();
    for (size_t d = 0; d < 3; ++d) c.block[d] = static_cast<int>(b[d]);
    c.streamDim = streamDim(s, prog);
    c.timeTile = static_cast<int>(s.timeTile.value);
    auto grid = gridDims(s, prog);
    for (size_t gd = 0; gd < grid.size() && gd < 3; ++gd)
      c.unroll[gd] = static_cast<int>(s.unrollFactor(prog.iterators[grid[gd]].name));
    plan.perStencil.push_back(c);
  }
  return plan;
}

std::vector<std::string> gpuPlanNotes(const Program& prog, const std::vector<Schedule>& schedules) {
  std::vector<std::string> notes;
  for (const Schedule& s : schedules) {
    const std::string who = s.stencil >= 0 && s.stencil < static_cast<int>(prog.stencils.size())
                                ? prog.stencils[s.stencil].name
                                : "?";
    auto note = [&](const std::string& clause, const Origin& o) {
      notes.push_back(fmt::format("stencil '{}': {} ({}) is recorded but not applied yet", who,
                                  clause, describe(o)));
    };
    bool unrolled = false, overlapped = s.family.value == ScheduleFamily::Overlapped;
    for (auto& [it, f] : s.unroll.value.factors) unrolled = unrolled || f != 1;
    if (unrolled && !overlapped) note("unroll", s.unroll.origin);
    if (s.timeTile.value > 1 && !overlapped)
      note(fmt::format("time_tile {}", s.timeTile.value), s.timeTile.origin);
    if (s.prefetch.value) note("prefetch", s.prefetch.origin);
    if (s.retime.value) note("retime", s.retime.origin);
    if (s.fold.value) note("fold", s.fold.origin);
    if (s.occupancy) note("occupancy", s.occupancy->origin);
    if (s.perspective) note("perspective", s.perspective->origin);
    for (const PlacementSpec& p : s.placements)
      note(fmt::format("the placement of '{}'", p.array), p.origin);
    if (overlapped)
      for (auto& c : prog.stencils[s.stencil].hints.clauses)
        if (c.name == "stream" || c.name == "full_stream")
          notes.push_back(fmt::format(
              "stencil '{}': {} {} ({}) does not apply to the overlapped family (it tiles every "
              "dimension)",
              who, c.name, c.words.empty() ? "" : c.words[0], describe(Origin::file(c.loc))));
    if (s.stream && !s.stream->value.full)
      notes.push_back(fmt::format(
          "stencil '{}': stream {} ({}) runs as full_stream: each thread sweeps the whole extent",
          who, s.stream->value.iterator, describe(s.stream->origin)));
  }
  return notes;
}

}  // namespace tessel
