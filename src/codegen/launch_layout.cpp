#include "codegen/launch_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "schedule/family.h"
#include "schedule/schedule.h"

namespace tessel {

namespace {

/// The grid every kernel of stencil `who` uses, from its configuration (notes for the user in
/// `notes`).
GridShape gridShape(const Program& prog, const GpuLaunchConfig& cfg, const std::string& who,
                    std::vector<std::string>& notes) {
  int n = prog.dims();
  GridShape g;
  g.family = cfg.family;
  if (g.family == ScheduleFamily::Overlapped && cfg.timeTile < 1)
    throw std::invalid_argument(fmt::format("{}: time tile {} is below 1", who, cfg.timeTile));
  bool streams = g.family == ScheduleFamily::GlobalStream || g.family == ScheduleFamily::Stream;
  if (streams && n == 1) {
    ScheduleFamily to =
        g.family == ScheduleFamily::Stream ? ScheduleFamily::Shared : ScheduleFamily::Global;
    notes.push_back(fmt::format(
        "{}: {} does not apply to a 1-D program (there is no dimension left to stream over): "
        "using {}",
        who, familyName(g.family), familyName(to)));
    g.family = to;
    streams = false;
  }
  if (streams) {
    g.stream = cfg.streamDim < 0 ? 0 : cfg.streamDim;
    if (g.stream >= n)
      throw std::invalid_argument(
          fmt::format("{}: streaming dimension {} does not exist: the program has {} iterator{}",
                      who, g.stream, n, n == 1 ? "" : "s"));
  }
  if (g.family == ScheduleFamily::Stream) {
    if (g.stream == n - 1)
      throw std::invalid_argument(
          fmt::format("{}: the stream family cannot stream the unit-stride iterator", who));
    if (cfg.chunk < 0)
      throw std::invalid_argument(fmt::format("{}: chunk {} is negative", who, cfg.chunk));
    g.chunk = cfg.chunk;
  }
  for (int d = n - 1; d >= 0; --d)
    if (d != g.stream) g.iters.push_back(d);  // x is the fastest remaining iterator
  size_t gd = g.iters.size();
  if (g.family == ScheduleFamily::Shared) {
    for (size_t k = 0; k < gd; ++k) {
      int u = cfg.unroll[k] == 0 ? 1 : cfg.unroll[k];
      if (u < 1) throw std::invalid_argument(fmt::format("{}: unroll {} is below 1", who, u));
      g.unroll[k] = u;
    }
    g.cyclic = cfg.cyclic;
  }
  for (int b : cfg.block)
    if (b < 0) throw std::invalid_argument(fmt::format("{}: block extent {} is negative", who, b));
  if (cfg.block[0] == 0) {  // the family's default, as the Schedule has it
    std::vector<int64_t> b = defaultBlockShape(g.family, gd);
    for (size_t k = 0; k < 3; ++k) g.block[k] = k < b.size() && k < gd ? static_cast<int>(b[k]) : 1;
    return g;
  }
  for (size_t k = 0; k < 3; ++k) {
    int b = cfg.block[k] == 0 ? 1 : cfg.block[k];
    if (k < gd)
      g.block[k] = b;
    else if (b > 1)
      notes.push_back(
          fmt::format("{}: block extent {} along {} ignored: the grid has {} "
                      "dimension{}",
                      who, b, "xyz"[k], gd, gd == 1 ? "" : "s"));
  }
  return g;
}

}  // namespace

LaunchLayout resolveLaunches(const Program& prog, const GpuLaunchPlan& plan) {
  LaunchLayout out;
  for (size_t s = 0; s < prog.stencils.size(); ++s)
    out.grids.push_back(gridShape(prog, plan.of(static_cast<int>(s)),
                                  "stencil '" + prog.stencils[s].name + "'", out.notes));
  // The fused groups (overlapped, stream + time_tile) and their tiles, from each stencil's grid.
  std::vector<FusionConfig> configs;
  for (size_t s = 0; s < prog.stencils.size(); ++s) {
    const GpuLaunchConfig& cfg = plan.of(static_cast<int>(s));
    const GridShape& gs = out.grids[s];
    std::array<int64_t, 3> block{}, unroll{};
    for (size_t gd = 0; gd < 3; ++gd) block[gd] = gs.block[gd], unroll[gd] = cfg.unroll[gd];
    configs.push_back(
        fusionConfigFor(gs.family, cfg.timeTile, gs.stream, gs.iters, block, unroll, prog.dims()));
  }
  out.groups = planFusion(prog, configs);
  return out;
}

std::string describeLayout(const Program& prog, const LaunchLayout& layout) {
  auto iterName = [&](int d) { return prog.iterators.at(static_cast<size_t>(d)).name; };
  std::string out;
  for (size_t s = 0; s < layout.grids.size(); ++s) {
    const GridShape& g = layout.grids[s];
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
    if (g.family == ScheduleFamily::Shared)
      out += fmt::format(", unroll {}{}", fmt::join(unroll, "x"), g.cyclic ? " cyclic" : "");
    out += "\n";
  }
  for (const FusionGroup& grp : layout.groups) {
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
  for (const std::string& n : layout.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace tessel
