// The resolved schedule: a program's Schedules (one per stencil) turned, once, into what every
// later stage reads: per stencil the grid (the family as applied, which iterator each grid
// dimension runs over, the block with the family's defaults filled in, the streamed iterator,
// chunk, unrolling and time tile), the program's fused groups of time steps (overlapped and
// stream + time_tile) with their tiles, and each statement's staging (its footprint).
//
// setUpSchedules() goes from the command line's flags to this value: it builds the Schedules
// (schedule.h), fits and validates them, and resolves them (pass `resolve-schedule`). The
// `info` reports, the resource checks and the lowering (lower/lower.h) all read that one value,
// and nothing downstream recomputes a block, a tile or a fused group. The formula tile = block
// x unroll lives here only (GridShape::tile, GridShape::coverage).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/regions.h"
#include "analysis/staging.h"
#include "analysis/tile_regions.h"
#include "ir/program.h"
#include "model/machine.h"
#include "schedule/schedule.h"
#include "support/diagnostics.h"
#include "support/pass_log.h"

namespace tessel {

/// How the points of a stencil's statements map onto a GPU grid.
struct GridShape {
  ScheduleFamily family = ScheduleFamily::Global;
  std::vector<int> iters;                 // iterator dimension of grid x, y, z
  std::array<int, 3> block = {1, 1, 1};   // threads per block, x first
  int stream = -1;                        // the iterator each thread (block) sweeps, or -1
  std::array<int, 3> unroll = {1, 1, 1};  // points per thread along x, y, z
  bool cyclic = false;                    // a thread's points a block apart
  /// shared with the input or mixed perspective (paper 000 III-B3): the block's threads before
  /// and after its output tile along grid x, y, z, one per halo element (each thread loads one
  /// element of the input tile; those of the halo compute nothing). 0 under the output one.
  std::array<int, 3> haloLo = {0, 0, 0}, haloHi = {0, 0, 0};
  int chunk = 0;                // stream: planes per block; 0: the whole extent
  int timeTile = 1;             // overlapped, stream: time steps fused per kernel
  bool keepDeadStores = false;  // fused kernels write back dead arrays too
  bool sparePlane = true;       // Schedule::sparePlane (stream + time_tile)
  bool registerValues = false;  // Schedule::registerValues (overlapped)
  /// Schedule::retime under the stream family (per-statement kernels): each statement's kernel
  /// accumulates its retimed parts plane by plane (analysis/retiming.h).
  bool retime = false;
  /// Schedule::prefetch under the stream family (per-statement kernels): each shared plane is
  /// loaded into registers one plane ahead, while the current one is computed (paper 000 III-A4).
  bool prefetch = false;
  /// Schedule::fold under the staged families (per-statement kernels) and stream + time_tile
  /// (the fused kernels' input rings, TileSpec::folds): arrays only ever combined point-wise are
  /// staged as their combination (analysis/folding.h).
  bool fold = false;
  /// Schedule::fuseStatements: under `global`, the call's statements in kernels of several
  /// (analysis/stmt_fusion.h); under `stream`, each call of a stencil of several statements one
  /// streamed kernel (the fused kernel of stream + time_tile with one step; fusedStreamDim()).
  bool fuseStatements = false;
  /// staged families: arrays (the stencil's formal names) read from global memory at each use,
  /// never staged: `gmem` placements and the arrays Schedule::demoted names.
  std::vector<std::string> globalFormals;
  /// The stencil-wide `no_shmem` clause (paper 000 II-B): under the staged families every array
  /// a kernel would stage in shared memory is read from global memory at each use instead (its
  /// register planes too; an array read only at its centre keeps its registers); a fused
  /// streamed kernel's intermediates, and the arrays it writes, keep their rings (nothing else
  /// holds them), with a remark.
  bool noShmem = false;
  int indexBits = 0;     // Schedule::indexBits: 0 auto, 32 or 64
  bool fma = false;      // Schedule::fma: contracted multiply-adds
  int maxRegisters = 0;  // Schedule::maxRegisters: a register cap; 0 none

  bool staged() const {
    return family == ScheduleFamily::Shared || family == ScheduleFamily::Stream;
  }
  /// Points per block along grid dimension gd (64 bits: the fitting may try absurd unrolls).
  int64_t tile(size_t gd) const {
    return static_cast<int64_t>(block[gd]) * unroll[gd] - haloLo[gd] - haloHi[gd];
  }
  /// Points per thread (per plane of a sweep): the product of the unroll factors. A kernel that
  /// gives each copy names of its own (registers, accumulators) writes this many copies.
  int copies() const;
  /// Copy `copy`'s position along grid dimension gd, 0..unroll[gd]-1 (x fastest).
  int copyAlong(int copy, size_t gd) const;
  /// The grid of the stencil's per-statement kernels (the calls a fused kernel does not cover):
  /// an overlapped stencil's run as `global`, one point per thread; the others as they are.
  GridShape perStatement() const;
  /// Whether the stencil's calls run fused time steps: overlapped, or stream + time_tile.
  bool fusesSteps() const;
  /// The iterator the fused kernels of stream + time_tile (or of stream with fuseStatements)
  /// sweep; -1: they tile every one.
  int fusedStreamDim() const;
  /// The points a block of a fused kernel covers per iterator (`dims` of them): block x unroll,
  /// one point per thread and plane in a streamed kernel. Saturating (the fitting may try
  /// absurd unrolls). The tile is this minus the accumulated halo.
  std::vector<int64_t> coverage(int dims) const;
};

struct FusedVariant {
  int phase = 0;  // the body position of its first call
  FusedSequence seq;
  std::vector<int64_t> tile;
  TileAnalysis analysis;
};

/// Calls whose time steps run fused (overlapped, stream + time_tile; paper 001, Algorithms 1
/// and 5), taken from the call sequence (Program::body):
///   - an `iterate` loop whose body is only calls of fusing stencils: its S = n * iterations
///     steps (n calls per iteration) run as floor(S/T) fused kernels of T consecutive steps, and
///     the S mod T remaining steps as ordinary per-statement kernels. A fused kernel starts at
///     body position p = (g*T) mod n; one variant is made per position that occurs;
///   - a maximal run of consecutive calls of fusing stencils with the same time tile elsewhere
///     (top level, or beside other nodes in a loop body): its k calls run as floor(k/T) fused
///     kernels, then the rest per statement; a run of fewer than T calls (k < T, e.g. a program
///     with one call) is fused as one kernel of its k steps (overlapped; with a streamed
///     dimension it runs per statement).
/// The grid of a group's first call's stencil (time tile, block) applies to the group. A group
/// is not fused, with a note saying why, when its tile analysis does not apply (a fixed plane of
/// a value the group writes is read), when it writes no global array, or when the block leaves
/// no tile after the accumulated halo. With a streamed dimension (stream + time_tile) the tiles
/// are one plane along it and a group is also not fused when its rings cannot hold what the
/// stages read (analysis/stream_fusion.h).
struct FusionGroup {
  const ExecNode* iterate = nullptr;  // the loop whose body this is; null for a straight run
  const std::vector<ExecNode>* parent = nullptr;  // straight run: nodes [first, first + count)
  size_t first = 0, count = 0;
  std::vector<int> body;  // the calls, in order
  int stencil = -1;       // whose grid applies
  int timeTile = 1;
  int streamDim = -1;  // the fused kernels stream this dimension; -1: they tile every one
  bool fused = false;
  std::string note;  // why it is not fused
  /// A decision about a fused group the user should hear about: fewer calls than the time tile
  /// (fused as they are) or calls left over after the fused kernels (run per statement).
  std::string remark;
  /// What the options did not do to the fused kernels, and why: a pair that folds in a statement
  /// but not over the fused kernel, a `gmem` placement of an array the kernel writes.
  std::vector<std::string> remarks;
  std::vector<FusedVariant> variants;

  /// The variant starting at body position `phase`, or null.
  const FusedVariant* variant(int phase) const;
};

struct ResolvedSchedule {
  std::vector<GridShape> grids;     // per stencil (Program::stencils order)
  std::vector<FusionGroup> groups;  // the call sequence's groups (planFusion); point into prog
  /// Per call (Program::calls order) and statement: the footprint of the statement's own kernel
  /// under its stencil's per-statement grid (analysis/staging.h): on chip where that grid is
  /// staged (shared, stream), else every group read from global memory. The staged lowering and
  /// the kernel reports read it.
  std::vector<std::vector<StmtStaging>> staging;
  /// Per call (Program::calls order): its statements' regions (analysis/regions.h), computed
  /// once here for the per-statement lowering and the model's prediction.
  std::vector<CallRegions> regions;
  /// Fallbacks the lowering applies (a streaming family on a 1-D program, a block extent the
  /// grid has no dimension for), for the user.
  std::vector<std::string> notes;
  /// The schedules' adjustments (fitSchedules) and the clauses recorded but not applied
  /// (scheduleNotes), for the user.
  std::vector<std::string> scheduleNotes;

  /// Whether some stencil runs kernels other than `global` ones (the C++ target then runs the
  /// GPU kernels on the CPU, pass work-item-loops; under `global` it runs plain loop nests).
  bool runsKernels() const;
  /// The grid of call `call`'s stencil (whose settings a kernel of that call follows; a fused
  /// kernel follows its first call's).
  const GridShape& gridOfCall(const Program& prog, int call) const;
  /// The staging of statement `stmt` of call `call`; throws std::logic_error ("internal
  /// error") where it has none.
  const StmtStaging& stagingOf(int call, int stmt) const;
  /// The fused variant of `calls` with output tile `tile` among the groups; throws
  /// std::logic_error ("internal error") where there is none.
  const FusedVariant& variantOf(const std::vector<int>& calls,
                                const std::vector<int64_t>& tile) const;
};

/// The staging of statement `st` of `call` under grid `g`: a block covers g.tile(gd) points
/// along the iterator of grid dimension gd and sweeps g.stream; on chip when g is staged.
/// The stencil's name for array `a` in `call`: its formal parameter's (or local array's) name.
std::string formalName(const Program& prog, const CallInst& call, ArrayId a);

StmtStaging stageStatement(const Program& prog, const CallInst& call, const Stmt& st,
                           const GridShape& g);

/// The grid of schedule `s` as the lowering applies it, without checks (the fitting tries
/// candidates before validate() has refused impossible values). Fallbacks go to `notes`.
GridShape gridOf(const Schedule& s, const Program& prog, std::vector<std::string>* notes = nullptr);

/// The fused groups of `prog` under one grid per stencil (Program::stencils order).
std::vector<FusionGroup> planFusion(const Program& prog, const std::vector<GridShape>& grids);
/// The fused groups of `schedules` (Program::stencils order), without checks.
std::vector<FusionGroup> fusionGroups(const std::vector<Schedule>& schedules, const Program& prog);

/// Resolves `schedules` for `prog`; a stencil without one gets the `global` family and its
/// default block. Throws std::invalid_argument for a setting no program can run (a block extent
/// below 0, a streamed dimension the program lacks or the unit-stride one under `stream`, a
/// chunk below 0, an unroll factor or a time tile below 1): validate() refuses these first,
/// with located errors.
ResolvedSchedule resolve(const Program& prog, const std::vector<Schedule>& schedules);

/// The command line's schedule: the machine, one fitted and validated Schedule per stencil, and
/// their resolution, what everything later reads.
struct ScheduleSetup {
  MachineDesc machine;
  std::vector<Schedule> schedules;  // one per stencil definition
  ResolvedSchedule resolved;        // resolve(prog, schedules)
};

/// From the schedule flags to the resolved schedule. `flags` maps option names
/// (scheduleFlags()) to the values given; empty ones are ignored. Reports malformed flags, an
/// unknown machine and impossible schedules; nullopt after an error. `forAnalysis` (tessel
/// info): stream + time_tile kernels beyond the machine's shared memory are reported, not
/// refused. The schedules are resolved once, as the pipeline's first pass (resolve-schedule,
/// through `log` when given: --print-ir-after, --time-passes).
std::optional<ScheduleSetup> setUpSchedules(const Program& prog,
                                            const std::map<std::string, std::string>& flags,
                                            DiagnosticEngine& diags, bool forAnalysis = false,
                                            PassLog* log = nullptr);

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
