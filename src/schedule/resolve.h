// The resolved schedule: a program's Schedules (one per stencil) turned, once, into what every
// later stage reads: per stencil the grid (the family as applied, which iterator each grid
// dimension runs over, the block with the family's defaults filled in, the streamed iterator,
// chunk, unrolling and time tile), and the program's fused groups of time steps (overlapped and
// stream + time_tile, analysis/fusion_plan.h) with their tiles.
//
// The driver resolves after fitting and validation (pass `resolve-schedule`); the `info`
// reports, the resource checks and the lowering (lower/lower.h) all read that one value, and
// nothing downstream recomputes a block, a tile or a fused group. The formula tile = block x
// unroll lives here only (fusionConfig).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/fusion_plan.h"
#include "analysis/staging.h"
#include "ir/program.h"
#include "schedule/schedule.h"

namespace tessel {

/// How the points of a stencil's statements map onto a GPU grid.
struct GridShape {
  ScheduleFamily family = ScheduleFamily::Global;
  std::vector<int> iters;                 // iterator dimension of grid x, y, z
  std::array<int, 3> block = {1, 1, 1};   // threads per block, x first
  int stream = -1;                        // the iterator each thread (block) sweeps, or -1
  std::array<int, 3> unroll = {1, 1, 1};  // shared, overlapped: points per thread along x, y, z
  bool cyclic = false;                    // shared: a thread's points a block apart
  int chunk = 0;                          // stream: planes per block; 0: the whole extent
  int timeTile = 1;                       // overlapped, stream: time steps fused per kernel

  bool staged() const {
    return family == ScheduleFamily::Shared || family == ScheduleFamily::Stream;
  }
  /// Points per block along grid dimension gd (64 bits: the fitting may try absurd unrolls).
  int64_t tile(size_t gd) const { return static_cast<int64_t>(block[gd]) * unroll[gd]; }
  /// The grid of the stencil's per-statement kernels (the calls a fused kernel does not cover):
  /// an overlapped stencil's run as `global`, one point per thread; the others as they are.
  GridShape perStatement() const;
};

/// The overlapped view of a grid (fusion_plan.h): fused or not, the time tile, the streamed
/// iterator of stream + time_tile, and the points a block covers per iterator (block x unroll;
/// streamed kernels: one point per thread and plane). `dims`: the program's iterators.
FusionConfig fusionConfig(const GridShape& g, int dims);
/// The same for a schedule not yet resolved: fusionConfig(gridOf(s, prog), prog.dims()).
FusionConfig fusionConfig(const Schedule& s, const Program& prog);

struct ResolvedSchedule {
  std::vector<GridShape> grids;     // per stencil (Program::stencils order)
  std::vector<FusionGroup> groups;  // the call sequence's groups (planFusion); point into prog
  /// Per call (Program::calls order) and statement: the staging of the statement's own kernel
  /// (analysis/staging.h) where its stencil's per-statement kernels are staged (shared,
  /// stream); an empty list for the other calls. The lowering and the kernel reports read it.
  std::vector<std::vector<StmtStaging>> staging;
  /// Fallbacks the lowering applies (a streaming family on a 1-D program, a block extent the
  /// grid has no dimension for), for the user.
  std::vector<std::string> notes;
  /// The schedules' adjustments (fitSchedules) and the clauses recorded but not applied
  /// (scheduleNotes), for the user.
  std::vector<std::string> scheduleNotes;

  /// Whether some stencil runs kernels other than `global` ones (the C++ target then runs the
  /// GPU kernels on the CPU, pass work-item-loops; under `global` it runs plain loop nests).
  bool runsKernels() const;
  /// The staging of statement `stmt` of call `call`; throws std::logic_error ("internal
  /// error") where it has none.
  const StmtStaging& stagingOf(int call, int stmt) const;
  /// The fused variant of `calls` with output tile `tile` among the groups; throws
  /// std::logic_error ("internal error") where there is none.
  const FusedVariant& variantOf(const std::vector<int>& calls,
                                const std::vector<int64_t>& tile) const;
};

/// The staging of statement `st` of `call` under grid `g` (a staged family): a block covers
/// g.tile(gd) points along the iterator of grid dimension gd and sweeps g.stream.
StmtStaging stageStatement(const Program& prog, const CallInst& call, const Stmt& st,
                           const GridShape& g);

/// The grid of schedule `s` as the lowering applies it, without checks (the fitting tries
/// candidates before validate() has refused impossible values). Fallbacks go to `notes`.
GridShape gridOf(const Schedule& s, const Program& prog, std::vector<std::string>* notes = nullptr);

/// The fused groups of `schedules` (Program::stencils order), without checks.
std::vector<FusionGroup> fusionGroups(const std::vector<Schedule>& schedules, const Program& prog);

/// Resolves `schedules` for `prog`; a stencil without one gets the `global` family and its
/// default block. Throws std::invalid_argument for a setting no program can run (a block extent
/// below 0, a streamed dimension the program lacks or the unit-stride one under `stream`, a
/// chunk below 0, an unroll factor or a time tile below 1): validate() refuses these first,
/// with located errors.
ResolvedSchedule resolve(const Program& prog, const std::vector<Schedule>& schedules);

/// `r`, or when it is unset (no grids: options nobody filled in) every stencil under `global`
/// with its default block, resolve(prog, {}).
ResolvedSchedule resolvedOrGlobal(const Program& prog, const ResolvedSchedule& r);

/// The resolved schedule as `--print-ir-after=resolve-schedule` shows it: one line per
/// stencil's grid and per fused group, then the notes.
std::string describe(const Program& prog, const ResolvedSchedule& r);

/// One sentence per clause a Schedule sets that the GPU lowering does not apply (unroll outside
/// `shared` and `overlapped`, time_tile outside them, prefetch, retime, fold, occupancy,
/// perspective, placements, a chunked stream under `global-stream`, a chunk without chunked
/// streaming), naming the stencil and where the clause came from, after the schedules'
/// adjustments. Nothing is silently ignored.
std::vector<std::string> scheduleNotes(const Program& prog, const std::vector<Schedule>& schedules);

}  // namespace tessel
