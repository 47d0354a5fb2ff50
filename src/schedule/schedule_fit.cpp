// Defaults that always fit: what fitSchedules() changes so that a schedule runs when only
// settings nobody gave explicitly for the family in use stand in the way (schedule.h).
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "schedule/resolve.h"
#include "schedule/schedule.h"

namespace tessel {

namespace {

/// Schedule `i` fits: validate() and validateFusion() (its own groups) accept it.
bool fits(const std::vector<Schedule>& all, size_t i, const Program& prog, const MachineDesc& m,
          std::string* why = nullptr) {
  DiagnosticEngine scratch;
  bool ok =
      validate(all[i], prog, m, scratch) &&
      validateFusion(all, prog, m, scratch, /*refuseStreamedExcess=*/true, static_cast<int>(i));
  if (!ok && why)
    for (const Diagnostic& d : scratch.diagnostics())
      if (d.severity == Severity::Error) {
        // The notes name the stencil already.
        const std::string who = fmt::format(
            "stencil '{}', ", prog.stencils.at(static_cast<size_t>(all[i].stencil)).name);
        *why = d.message.rfind(who, 0) == 0 ? d.message.substr(who.size()) : d.message;
        break;
      }
  return ok;
}

/// The fraction of the points the fused kernels of schedule i cover that are output tile
/// (1 - redundancy); 0 when nothing of it is fused.
double fusedEfficiency(const std::vector<Schedule>& all, size_t i, const Program& prog) {
  const std::vector<int64_t> cover = gridOf(all[i], prog).coverage(prog.dims());
  double worst = 0;
  bool any = false;
  for (const FusionGroup& g : fusionGroups(all, prog)) {
    if (g.stencil != static_cast<int>(i) || !g.fused) continue;
    for (const FusedVariant& v : g.variants) {
      double tile = 1, covered = 1;
      for (size_t d = 0; d < v.tile.size() && d < cover.size(); ++d) {
        if (static_cast<int>(d) == g.streamDim) continue;  // one plane at a time
        tile *= static_cast<double>(v.tile[d]);
        covered *= static_cast<double>(cover[d]);
      }
      double e = covered > 0 ? tile / covered : 0;
      worst = any ? std::min(worst, e) : e;
      any = true;
    }
  }
  return worst;
}

/// Candidate blocks for a grid of `dims` dimensions within the machine's limits, at most
/// `maxThreads` threads and at least one warp.
std::vector<std::vector<int64_t>> candidateBlocks(size_t dims, const MachineDesc& m,
                                                  int64_t maxThreads) {
  std::vector<std::vector<int64_t>> out;
  const std::vector<int64_t> xs = dims <= 1 ? std::vector<int64_t>{1024, 512, 256, 128, 64, 32}
                                            : std::vector<int64_t>{64, 32, 16, 8};
  const std::vector<int64_t> ys = {1, 2, 4, 8, 16, 32, 64};
  for (int64_t x : xs)
    for (int64_t y : dims >= 2 ? ys : std::vector<int64_t>{1})
      for (int64_t z : dims >= 3 ? ys : std::vector<int64_t>{1}) {
        int64_t t = x * y * z;
        if (t < 32 || t > maxThreads || t > m.limits.maxThreadsPerBlock) continue;
        if (x > m.limits.maxBlockDims[0] || y > m.limits.maxBlockDims[1] ||
            z > m.limits.maxBlockDims[2])
          continue;
        std::vector<int64_t> b{x};
        if (dims >= 2) b.push_back(y);
        if (dims >= 3) b.push_back(z);
        out.push_back(b);
      }
  return out;
}

std::string blockText(const std::vector<int64_t>& b) {
  return fmt::format("({})", fmt::join(b, ", "));
}

/// Replaces schedule i's block with the best candidate that fits; false if none does.
/// Fused families: the least redundant block of at most 512 threads (of any size if none
/// fits); the others: the block with the most threads, no more than the default's, x widest.
bool fitBlock(std::vector<Schedule>& all, size_t i, const Program& prog, const MachineDesc& m) {
  Schedule& s = all[i];
  const bool fused = gridOf(s, prog).fusesSteps();
  const size_t dims = std::max<size_t>(1, std::min<size_t>(3, gridDims(s, prog).size()));
  const std::vector<int64_t> original = s.block.value;
  int64_t defaultThreads = 1;
  for (int64_t b : defaultBlock(s, prog)) defaultThreads *= b;
  for (int64_t limit : {fused ? int64_t{512} : defaultThreads, m.limits.maxThreadsPerBlock}) {
    std::vector<int64_t> best;
    double bestScore = -1;
    for (auto& b : candidateBlocks(dims, m, limit)) {
      s.block.value = b;
      if (!fits(all, i, prog, m)) continue;
      int64_t threads = 1;
      for (int64_t e : b) threads *= e;
      // Ties (and the unfused families) go to more threads, then to a wider x (coalescing).
      double score = (fused ? fusedEfficiency(all, i, prog) * 1e6 : 0) +
                     static_cast<double>(threads) + static_cast<double>(b[0]) * 1e-3;
      if (score > bestScore) bestScore = score, best = b;
    }
    if (!best.empty()) {
      s.block.value = best;
      return true;
    }
    if (!fused) break;  // an unfused family gets no larger block than its default
  }
  s.block.value = original;
  return false;
}

}  // namespace

void fitSchedules(std::vector<Schedule>& schedules, const Program& prog, const MachineDesc& m) {
  for (size_t i = 0; i < schedules.size(); ++i) {
    Schedule& s = schedules[i];
    std::string why;
    if (fits(schedules, i, prog, m, &why)) continue;
    const std::string who = prog.stencils.at(static_cast<size_t>(s.stencil)).name;
    const std::string family = familyName(s.family.value);

    // 0. The spare planes of stream + time_tile and of retimed stream kernels
    //    (Schedule::sparePlane, on by default) where they are what does not fit: the rings
    //    without them, one barrier more per plane.
    if (usesSparePlanes(s, prog) && s.sparePlane.value &&
        s.sparePlane.origin.kind == Origin::Kind::Default) {
      s.sparePlane.value = false;
      if (fits(schedules, i, prog, m)) {
        s.adjustments.push_back(fmt::format(
            "stencil '{}': with a spare plane per input ring, {}; the input rings keep none "
            "(one barrier more per plane)",
            who, why));
        continue;
      }
      s.sparePlane.value = true;
    }

    // 1. A pragma's block or unroll under a family chosen on the command line (or by the
    //    model): the family's defaults instead.
    if (s.family.origin.outsideFile()) {
      std::vector<std::string> dropped;
      if (s.block.origin.kind == Origin::Kind::File) {
        dropped.push_back(
            fmt::format("'block {}' ({})", blockText(s.block.value), describe(s.block.origin)));
        s.block = {defaultBlock(s, prog), Origin::defaulted()};
      }
      if (s.unroll.origin.kind == Origin::Kind::File) {
        dropped.push_back(fmt::format("'unroll' ({})", describe(s.unroll.origin)));
        s.unroll = {};
      }
      if (!dropped.empty())
        s.adjustments.push_back(fmt::format(
            "stencil '{}': {} does not fit the '{}' family {} ({}); the family's defaults are "
            "used instead",
            who, fmt::join(dropped, " and "), family,
            s.family.origin.kind == Origin::Kind::Model
                ? fmt::format("the performance model chose ({})", s.family.origin.flag)
                : std::string("given on the command line"),
            why));
      if (fits(schedules, i, prog, m, &why)) continue;
    }
    if (s.block.origin.kind != Origin::Kind::Default) continue;  // explicit: validate() refuses

    // 2. A default block that does not fit: the best one that does.
    const std::string before = blockText(s.block.value);
    if (fitBlock(schedules, i, prog, m)) {
      s.adjustments.push_back(fmt::format(
          "stencil '{}': the default block {} does not fit the '{}' family here ({}); block {} "
          "is used instead",
          who, before, family, why, blockText(s.block.value)));
      continue;
    }

    // 3. No block leaves a tile at this time tile: fuse fewer steps (when the time tile itself
    //    is one the schedule allows: validate() refuses one beyond its limit as it is).
    DiagnosticEngine scratch;
    if (!gridOf(s, prog).fusesSteps() || !validate(s, prog, m, scratch)) continue;
    const int64_t asked = s.timeTile.value;
    for (int64_t t = asked - 1; t >= 1; --t) {
      s.timeTile.value = t;
      s.block.value = defaultBlock(s, prog);
      if (fits(schedules, i, prog, m) || fitBlock(schedules, i, prog, m)) {
        s.adjustments.push_back(fmt::format(
            "stencil '{}': no block within the limits of {} leaves a tile after the halo of {} "
            "fused steps ({}); {} steps are fused instead, block {}",
            who, m.name, asked, why, t, blockText(s.block.value)));
        break;
      }
    }
    if (!fits(schedules, i, prog, m)) {
      s.timeTile.value = asked;  // nothing fits: validate() reports the schedule as asked
      s.block.value = defaultBlock(s, prog);
    }
  }
}

}  // namespace tessel
