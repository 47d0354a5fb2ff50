// resolve(): a program's Schedules into the grids and fused groups every later stage reads
// (resolve.h).
#include "schedule/resolve.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "support/saturating.h"

namespace tessel {

namespace {

/// v clamped into int (the fitting may try absurd values before validate() refuses them).
int clampInt(int64_t v) {
  return static_cast<int>(
      std::clamp<int64_t>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

bool appliesUnroll(ScheduleFamily f) {
  return f == ScheduleFamily::Shared || f == ScheduleFamily::Overlapped;
}

/// Throws std::invalid_argument when `g` is one no program can run.
void check(const GridShape& g, const Program& prog, const std::string& who) {
  int n = prog.dims();
  if (g.stream >= n)
    throw std::invalid_argument(
        fmt::format("{}: streaming dimension {} does not exist: the program has {} iterator{}", who,
                    g.stream, n, n == 1 ? "" : "s"));
  if (g.family == ScheduleFamily::Stream && g.stream == n - 1)
    throw std::invalid_argument(
        fmt::format("{}: the stream family cannot stream the unit-stride iterator", who));
  if (g.chunk < 0)
    throw std::invalid_argument(fmt::format("{}: chunk {} is negative", who, g.chunk));
  for (int b : g.block)
    if (b < 0) throw std::invalid_argument(fmt::format("{}: block extent {} is negative", who, b));
  for (int u : g.unroll)
    if (u < 1) throw std::invalid_argument(fmt::format("{}: unroll {} is below 1", who, u));
  if (g.timeTile < 1)
    throw std::invalid_argument(fmt::format("{}: time tile {} is below 1", who, g.timeTile));
}

}  // namespace

GridShape GridShape::perStatement() const {
  if (family != ScheduleFamily::Overlapped) return *this;
  GridShape g = *this;
  g.family = ScheduleFamily::Global;
  g.unroll = {1, 1, 1};
  return g;
}

bool ResolvedSchedule::runsKernels() const {
  return std::any_of(grids.begin(), grids.end(),
                     [](const GridShape& g) { return g.family != ScheduleFamily::Global; });
}

GridShape gridOf(const Schedule& s, const Program& prog, std::vector<std::string>* notes) {
  const int n = prog.dims();
  const std::string who = s.stencil >= 0 && s.stencil < static_cast<int>(prog.stencils.size())
                              ? "stencil '" + prog.stencils[s.stencil].name + "'"
                              : "a stencil";
  GridShape g;
  g.family = s.family.value;
  g.timeTile = clampInt(s.timeTile.value);
  if (streams(g.family) && n == 1) {
    // Nothing is left to stream over: stream runs as shared, global-stream as global.
    ScheduleFamily to =
        g.family == ScheduleFamily::Stream ? ScheduleFamily::Shared : ScheduleFamily::Global;
    if (notes)
      notes->push_back(fmt::format(
          "{}: {} does not apply to a 1-D program (there is no dimension left to stream over): "
          "using {}",
          who, familyName(g.family), familyName(to)));
    g.family = to;
  }
  if (streams(g.family)) g.stream = std::max(streamDim(s, prog), 0);  // default: the slowest
  if (g.family == ScheduleFamily::Stream)
    g.chunk = s.stream && s.stream->value.full ? 0 : clampInt(s.chunk.value);
  for (int d = n - 1; d >= 0; --d)
    if (d != g.stream) g.iters.push_back(d);  // x is the fastest remaining iterator
  const size_t gd = g.iters.size();
  if (appliesUnroll(g.family)) {
    for (size_t k = 0; k < gd && k < 3; ++k)
      g.unroll[k] = clampInt(s.unrollFactor(prog.iterators[g.iters[k]].name));
    g.cyclic = g.family == ScheduleFamily::Shared &&
               s.unroll.value.distribution == UnrollDistribution::Cyclic;
  }
  // The block: the family's default where none is set, else the Schedule's (0 means 1).
  std::vector<int64_t> b = s.block.value.empty() ? defaultBlockShape(g.family, gd) : s.block.value;
  for (size_t k = 0; k < 3 && k < b.size(); ++k) {
    int e = b[k] == 0 ? 1 : clampInt(b[k]);
    if (k < gd)
      g.block[k] = e;
    else if (e > 1 && notes)
      notes->push_back(
          fmt::format("{}: block extent {} along {} ignored: the grid has {} dimension{}", who, e,
                      "xyz"[k], gd, gd == 1 ? "" : "s"));
  }
  return g;
}

FusionConfig fusionConfig(const GridShape& g, int dims) {
  FusionConfig c;
  const bool streamed = g.family == ScheduleFamily::Stream && g.timeTile > 1 && g.stream >= 0;
  c.overlapped = g.family == ScheduleFamily::Overlapped || streamed;
  c.timeTile = g.timeTile;
  c.streamDim = streamed ? g.stream : -1;
  c.coverage.assign(static_cast<size_t>(dims), 1);
  for (size_t gd = 0; gd < g.iters.size() && gd < 3; ++gd)
    // The streamed kernel gives a thread one point per plane (unroll does not apply).
    // Saturating: fitting runs before validate() refuses an absurd unroll factor.
    c.coverage[static_cast<size_t>(g.iters[gd])] =
        satMul(g.block[gd], streamed ? 1 : std::max(1, g.unroll[gd]));
  return c;
}

FusionConfig fusionConfig(const Schedule& s, const Program& prog) {
  return fusionConfig(gridOf(s, prog), prog.dims());
}

std::vector<FusionGroup> fusionGroups(const std::vector<Schedule>& schedules, const Program& prog) {
  std::vector<FusionConfig> configs;
  for (const Schedule& s : schedules) configs.push_back(fusionConfig(s, prog));
  return planFusion(prog, configs);
}

ResolvedSchedule resolve(const Program& prog, const std::vector<Schedule>& schedules) {
  ResolvedSchedule out;
  std::vector<FusionConfig> configs;
  for (size_t i = 0; i < prog.stencils.size(); ++i) {
    Schedule global;  // a stencil without a Schedule: global, its default block
    global.stencil = static_cast<int>(i);
    const Schedule& s = i < schedules.size() ? schedules[i] : global;
    if (streams(s.family.value) && s.stream && streamDim(s, prog) < 0)
      throw std::invalid_argument(
          fmt::format("stencil '{}': the streamed iterator '{}' is not one "
                      "of the program's",
                      prog.stencils[i].name, s.stream->value.iterator));
    out.grids.push_back(gridOf(s, prog, &out.notes));
    check(out.grids.back(), prog, "stencil '" + prog.stencils[i].name + "'");
    configs.push_back(fusionConfig(out.grids.back(), prog.dims()));
  }
  out.groups = planFusion(prog, configs);
  for (const CallInst& call : prog.calls) {
    out.staging.emplace_back();
    const GridShape g = out.grids.at(static_cast<size_t>(call.stencil)).perStatement();
    if (g.staged())
      for (const Stmt& st : call.stmts)
        out.staging.back().push_back(stageStatement(prog, call, st, g));
  }
  out.scheduleNotes = scheduleNotes(prog, schedules);
  return out;
}

StmtStaging stageStatement(const Program& prog, const CallInst& call, const Stmt& st,
                           const GridShape& g) {
  std::vector<int64_t> tile(static_cast<size_t>(prog.dims()), 1);
  for (size_t gd = 0; gd < g.iters.size() && gd < 3; ++gd)
    tile[static_cast<size_t>(g.iters[gd])] = g.tile(gd);
  return planStaging(prog, call, st, tile, g.stream);
}

const StmtStaging& ResolvedSchedule::stagingOf(int call, int stmt) const {
  if (call < 0 || static_cast<size_t>(call) >= staging.size() || stmt < 0 ||
      static_cast<size_t>(stmt) >= staging[static_cast<size_t>(call)].size())
    throw std::logic_error(
        fmt::format("internal error: no staging resolved for call {}, statement {}", call, stmt));
  return staging[static_cast<size_t>(call)][static_cast<size_t>(stmt)];
}

const FusedVariant& ResolvedSchedule::variantOf(const std::vector<int>& calls,
                                                const std::vector<int64_t>& tile) const {
  for (const FusionGroup& g : groups)
    for (const FusedVariant& v : g.variants)
      if (v.seq.calls == calls && v.tile == tile) return v;
  throw std::logic_error(
      fmt::format("internal error: no fused variant of calls {} resolved", fmt::join(calls, ", ")));
}

ResolvedSchedule resolvedOrGlobal(const Program& prog, const ResolvedSchedule& r) {
  return r.grids.empty() ? resolve(prog, {}) : r;
}

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
      std::string it = g.stream >= 0 ? iterName(g.stream) : std::string();
      std::vector<std::string> plans;
      for (const StagePlan& p : r.staging[c][k].groups)
        plans.push_back(p.group.name + ": " + describePlan(p, it));
      out += fmt::format("call {} ({}) statement {}: {} bytes of shared memory; {}\n", c, call.name,
                         k + 1, r.staging[c][k].sharedBytes, fmt::join(plans, "; "));
    }
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace tessel
