// demoteForOccupancy(): ARTEMIS's `occupancy t` (paper 000 section II-B) under the staged
// families: arrays move from shared to global memory, fewest accesses first, until every kernel
// of the stencil keeps the target share of its multiprocessor's warps resident (schedule.h).
// Under stream + time_tile the candidates are the fused kernels' input rings of the arrays they
// only read (the rings of values they compute have no copy in global memory to read instead).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

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

void addKernel(Worst& w, int64_t threads, int64_t shared, const MachineDesc& m) {
  // A block left without a thread or a tile (a halo wider than the block under the input
  // perspective): the validation that follows refuses the schedule and says why.
  if (threads < 1 || shared < 0) return;
  OccupancyQuery q;
  q.threads = threads;
  q.staticShared = shared;
  if (shared > m.memory.sharedPerBlock) {  // dynamic, opted in (kernel_report.cpp)
    q.staticShared = 0;
    q.dynamicShared = shared;
    q.optIn = true;
  }
  w.occupancy = std::min(w.occupancy, occupancy(m, q).fraction);
  w.shared = std::max(w.shared, shared);
}

Worst worstKernel(const Schedule& s, const Program& prog, const MachineDesc& m) {
  Worst w;
  for (const KernelNeeds& k : kernelNeeds(s, prog)) addKernel(w, k.threads, k.sharedBytes, m);
  return w;
}

/// Stream + time_tile: the fused kernels of stencil `s.stencil` under `all` (every stencil's
/// schedule, in stencil order): the least occupancy and the most shared memory, and per input
/// ring of an array they only read (by its formal name in the stencil's calls) its reads per
/// point over the stages.
Worst worstFused(const std::vector<Schedule>& all, const Schedule& s, const Program& prog,
                 const MachineDesc& m, std::map<std::string, int64_t>& rings) {
  std::vector<GridShape> grids;
  for (const Schedule& x : all) grids.push_back(gridOf(x, prog));
  const GridShape& g = grids.at(static_cast<size_t>(s.stencil));
  int64_t threads = 1;
  for (size_t gd = 0; gd < g.iters.size() && gd < 3; ++gd) threads *= g.block[gd];
  Worst w;
  for (const FusionGroup& grp : planFusion(prog, grids)) {
    if (grp.stencil != s.stencil || !grp.fused || grp.streamDim < 0) continue;
    for (const FusedVariant& v : grp.variants) {
      const TileAnalysis& a = v.analysis;
      addKernel(w, threads, a.totals.sharedBytes, m);
      std::set<int> written;
      for (const TileStage& st : a.stages)
        if (st.writes.kind == TileValue::Kind::Global) written.insert(st.writes.index);
      for (const TileBuffer& b : a.buffers) {
        if (b.producer >= 0 || !b.shared || b.value.kind != TileValue::Kind::Global ||
            written.count(b.value.index))
          continue;
        int64_t reads = 0;
        for (const TileStage& st : a.stages)
          for (const Reference& r : st.accesses.reads)
            reads += !r.lhs && valueOf(r, st.step) == b.value ? 1 : 0;
        for (int c : v.seq.calls) {
          const CallInst& call = prog.calls.at(static_cast<size_t>(c));
          if (call.stencil != s.stencil) continue;
          const std::string f = formalName(prog, call, {false, b.value.index});
          rings[f] = std::max(rings[f], reads);
          break;
        }
      }
    }
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
    const bool fusedStream = g.fusesSteps() && g.fusedStreamDim() >= 0;
    if (!g.staged() || (g.fusesSteps() && !fusedStream)) continue;  // noted (scheduleNotes)
    const std::string who = prog.stencils.at(static_cast<size_t>(s.stencil)).name;
    const double target = s.occupancy->value;
    const std::string clause =
        fmt::format("occupancy {} ({})", target, describe(s.occupancy->origin));
    const std::string what = fusedStream ? "input rings of the arrays the fused kernels only read"
                                         : "arrays in shared memory";
    auto worst = [&](std::map<std::string, int64_t>& arrays) {
      if (!fusedStream) {
        arrays = sharedArrays(s, prog);
        return worstKernel(s, prog, m);
      }
      return worstFused(schedules, s, prog, m, arrays);
    };
    for (;;) {
      std::map<std::string, int64_t> arrays;
      const Worst before = worst(arrays);
      if (before.occupancy >= target - 1e-9) break;
      for (const PlacementSpec& p : s.placements)
        if (p.kind == PlacementKind::Shmem) arrays.erase(p.array);  // placed: kept
      for (const std::string& d : s.demoted) arrays.erase(d);       // moved already
      if (arrays.empty()) {
        s.adjustments.push_back(fmt::format(
            "stencil '{}': {}: occupancy {:.0f}% on {} with none of the {} left to move (arrays "
            "placed with shmem stay); threads, blocks, registers or the other buffers limit it",
            who, clause, 100 * before.occupancy, m.name, what));
        break;
      }
      auto fewest = std::min_element(arrays.begin(), arrays.end(), [](auto& a, auto& b) {
        return a.second < b.second;  // ties: the first by name
      });
      s.demoted.push_back(fewest->first);
      std::map<std::string, int64_t> left;
      const Worst after = worst(left);
      s.adjustments.push_back(fmt::format(
          "stencil '{}': {}: '{}' ({} access{} per point, the fewest of the {}) moves to global "
          "memory: {} -> {} bytes of shared memory per block, occupancy {:.0f}% -> {:.0f}% on {} "
          "(threads and shared memory; the kernel report counts its registers)",
          who, clause, fewest->first, fewest->second, fewest->second == 1 ? "" : "es", what,
          before.shared, after.shared, 100 * before.occupancy, 100 * after.occupancy, m.name));
    }
  }
}

}  // namespace tessel
