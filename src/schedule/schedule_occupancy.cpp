// demoteForOccupancy(): ARTEMIS's `occupancy t` (paper 000 section II-B) under the staged
// families: arrays move from shared to global memory, fewest accesses first, until every kernel
// of the stencil keeps the target share of its multiprocessor's warps resident (schedule.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "model/occupancy.h"
#include "schedule/resolve.h"
#include "schedule/schedule.h"

namespace tessel {

namespace {

/// The least occupancy over the stencil's kernels (threads and shared memory; registers are not
/// known before nvcc runs, so it is an upper bound), and the most shared memory of one of them.
struct Worst {
  double occupancy = 1;
  int64_t shared = 0;
};

Worst worstKernel(const Schedule& s, const Program& prog, const MachineDesc& m) {
  Worst w;
  for (const KernelNeeds& k : kernelNeeds(s, prog)) {
    OccupancyQuery q;
    q.threads = k.threads;
    q.staticShared = k.sharedBytes;
    if (k.sharedBytes > m.memory.sharedPerBlock) {  // dynamic, opted in (kernel_report.cpp)
      q.staticShared = 0;
      q.dynamicShared = k.sharedBytes;
      q.optIn = true;
    }
    w.occupancy = std::min(w.occupancy, occupancy(m, q).fraction);
    w.shared = std::max(w.shared, k.sharedBytes);
  }
  return w;
}

/// Per array (formal name) staged in shared memory by some kernel of the stencil: its accesses
/// per point (the distinct references of every statement that stages it).
std::map<std::string, int64_t> sharedArrays(const Schedule& s, const Program& prog) {
  std::map<std::string, int64_t> out;
  const GridShape g = gridOf(s, prog);
  for (const CallInst& call : prog.calls) {
    if (call.stencil != s.stencil) continue;
    for (const Stmt& st : call.stmts)
      for (const StagePlan& p : stageStatement(prog, call, st, g).groups)
        if (p.sharedElements() > 0)
          out[formalName(prog, call, p.group.array)] += static_cast<int64_t>(p.group.refs.size());
  }
  return out;
}

}  // namespace

void demoteForOccupancy(std::vector<Schedule>& schedules, const Program& prog,
                        const MachineDesc& m) {
  if (!occupancyRules(m.compute.ccMajor, m.compute.ccMinor)) return;
  for (Schedule& s : schedules) {
    if (!s.occupancy) continue;
    const GridShape g = gridOf(s, prog);
    if (!g.staged() || g.fusesSteps()) continue;  // noted as not applied (scheduleNotes)
    const std::string who = prog.stencils.at(static_cast<size_t>(s.stencil)).name;
    const double target = s.occupancy->value;
    const std::string clause =
        fmt::format("occupancy {} ({})", target, describe(s.occupancy->origin));
    for (;;) {
      const Worst before = worstKernel(s, prog, m);
      if (before.occupancy >= target - 1e-9) break;
      std::map<std::string, int64_t> arrays = sharedArrays(s, prog);
      for (const PlacementSpec& p : s.placements)
        if (p.kind == PlacementKind::Shmem) arrays.erase(p.array);  // placed: kept
      if (arrays.empty()) {
        s.adjustments.push_back(fmt::format(
            "stencil '{}': {}: occupancy {:.0f}% on {} with no array left in shared memory to "
            "move (arrays placed with shmem stay); threads, blocks or registers limit it",
            who, clause, 100 * before.occupancy, m.name));
        break;
      }
      auto fewest = std::min_element(arrays.begin(), arrays.end(), [](auto& a, auto& b) {
        return a.second < b.second;  // ties: the first by name
      });
      s.demoted.push_back(fewest->first);
      const Worst after = worstKernel(s, prog, m);
      s.adjustments.push_back(fmt::format(
          "stencil '{}': {}: '{}' ({} access{} per point, the fewest of the arrays in shared "
          "memory) moves to global memory: {} -> {} bytes of shared memory per block, occupancy "
          "{:.0f}% -> {:.0f}% on {}",
          who, clause, fewest->first, fewest->second, fewest->second == 1 ? "" : "es",
          before.shared, after.shared, 100 * before.occupancy, 100 * after.occupancy, m.name));
    }
  }
}

}  // namespace tessel
