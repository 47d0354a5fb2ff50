// describe(): the resolved schedule as `--print-ir-after=resolve-schedule` shows it (resolve.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "schedule/resolve.h"

namespace tessel {

std::string describe(const Program& prog, const ResolvedSchedule& r) {
  auto iterName = [&](int d) { return prog.iterators.at(static_cast<size_t>(d)).name; };
  std::string out;
  for (size_t s = 0; s < r.grids.size(); ++s) {
    const GridShape& g = r.grids[s];
    std::vector<std::string> dims, block, unroll;
    for (size_t gd = 0; gd < g.iters.size(); ++gd) {
      dims.push_back(fmt::format("{}={}", "xyz"[gd], iterName(g.iters[gd])));
      block.push_back(std::to_string(g.block[gd]));
      unroll.push_back(std::to_string(g.unroll[gd]));
    }
    out += fmt::format("stencil '{}': {}, grid {}, block {}", prog.stencils[s].name,
                       familyName(g.family), fmt::join(dims, " "), fmt::join(block, "x"));
    if (g.stream >= 0)
      out += fmt::format(", stream {}", iterName(g.stream)) +
             (g.family == ScheduleFamily::Stream
                  ? (g.chunk > 0 ? fmt::format(" in chunks of {}", g.chunk) : " whole")
                  : "");
    bool unrolled = g.unroll != std::array<int, 3>{1, 1, 1};
    if (g.family == ScheduleFamily::Shared || unrolled)
      out += fmt::format(", unroll {}{}", fmt::join(unroll, "x"), g.cyclic ? " cyclic" : "");
    out += "\n";
  }
  for (const FusionGroup& grp : r.groups) {
    if (grp.timeTile <= 1 && !grp.fused) continue;
    out += fmt::format("group of calls {} (stencil '{}'{}): ", fmt::join(grp.body, ","),
                       prog.stencils.at(static_cast<size_t>(grp.stencil)).name,
                       grp.iterate ? ", an iterate loop" : "");
    if (!grp.fused) {
      out += "per statement: " + grp.note + "\n";
      continue;
    }
    out += fmt::format("{} steps fused{}", grp.timeTile,
                       grp.streamDim >= 0 ? ", streaming " + iterName(grp.streamDim) : "");
    std::vector<std::string> names;
    for (size_t d = 0; d < prog.iterators.size(); ++d)
      names.push_back(iterName(static_cast<int>(d)));
    for (const FusedVariant& v : grp.variants)
      out += fmt::format("; phase {}: tile {} ({})", v.phase, fmt::join(v.tile, "x"),
                         fmt::join(names, ","));
    out += "\n";
  }
  // Each staged statement's staging, as the kernel's comment says it.
  for (size_t c = 0; c < r.staging.size(); ++c)
    for (size_t k = 0; k < r.staging[c].size(); ++k) {
      const CallInst& call = prog.calls[c];
      const GridShape& g = r.grids.at(static_cast<size_t>(call.stencil));
      if (!g.perStatement().staged()) continue;  // read from global memory: nothing to say
      std::string it = g.stream >= 0 ? iterName(g.stream) : std::string();
      std::vector<std::string> plans;
      for (const StagePlan& p : r.staging[c][k].groups)
        plans.push_back(p.group.name + ": " + describePlan(p, it));
      out += fmt::format("call {} ({}) statement {}: {} bytes of shared memory; {}\n", c, call.name,
                         k + 1, r.staging[c][k].sharedBytes, fmt::join(plans, "; "));
    }
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  // What fitting and occupancy demotion changed in the schedules (the notes `info` prints).
  for (const std::string& n : r.scheduleNotes) out += "adjusted: " + n + "\n";
  return out;
}

}  // namespace tessel
