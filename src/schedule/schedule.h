// The Schedule: how one stencil is run on a GPU (architecture.md: Algorithm and Schedule are
// separate values). It is built from the stencil's validated hints (language.md section 8),
// overridden by the command line, and checked against a machine description by validate(),
// which refuses an impossible schedule with a located error instead of letting wrong code be
// emitted. Every setting remembers where it came from, so that errors point at it.
//
// Four families exist (docs/gpu.md, "Schedule families"):
//   global         one thread per point of each statement's region; the thread grid covers every
//                  iterator: block x <-> the last (unit-stride) iterator, y <-> the one before, ...
//   global-stream  a grid over every iterator but the streamed one (by default the slowest);
//                  each thread sweeps the streamed iterator. Block x <-> the fastest remaining
//                  iterator, y <-> the next. It needs a 2-D or 3-D program.
//   shared         the global grid; a block's input tiles (with halos) staged in shared memory;
//                  `unroll` gives each thread several points (the tile is block x unroll).
//   stream         a grid over every iterator but the streamed one; each block sweeps a chunk of
//                  `chunk` planes (`stream ITER`) or every plane (`full_stream ITER`), with
//                  rotating planes in registers and shared memory. `stream`/`full_stream` clauses
//                  select it; on a 1-D program a plain `--schedule stream` runs `shared`. With
//                  time_tile T >= 2 it fuses T steps into streamed kernels (overlapped tiles in
//                  the plane, rings of planes per stage: 3.5-D blocking, stream_fusion.h).
// and one time-tiling family:
//   overlapped     time_tile T consecutive calls (or the statements of one call, T = 1) fused
//                  into one kernel per output tile, intermediates in shared memory, the halo
//                  recomputed (paper 001); unroll gives elements per thread. Grid as global.
// validate() checks the shared memory and threads per block each kernel of shared and stream
// needs against the machine (validateFusion() those of overlapped and of stream with
// time_tile T >= 2, which fuses T steps into streamed kernels). The other clauses
// (prefetch, ...) are recorded for later passes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/program.h"
#include "model/machine.h"
#include "schedule/family.h"
#include "support/diagnostics.h"

namespace tessel {

/// Where a setting came from: a default, a clause in the program file (`#pragma`, `#assign`, a
/// placement list), or a command-line option.
struct Origin {
  /// Model: the performance model chose the setting (`--schedule auto`, or no schedule named
  /// for a GPU); it overrides the file as the command line does.
  enum class Kind { Default, File, CommandLine, Model };
  Kind kind = Kind::Default;
  SourceLoc loc;     // File: the clause (for placements: the array's name in its list)
  std::string flag;  // CommandLine: the option as given, e.g. "--block 64,32"; Model: what asked
                     // for the choice ("--schedule auto", "no schedule named")

  static Origin defaulted() { return {}; }
  static Origin file(SourceLoc loc) { return {Kind::File, loc, {}}; }
  static Origin commandLine(std::string flag) { return {Kind::CommandLine, {}, std::move(flag)}; }
  static Origin model(std::string asked) { return {Kind::Model, {}, std::move(asked)}; }
  /// Set outside the program's file (command line or model): it overrides the file's clauses.
  bool outsideFile() const { return kind == Kind::CommandLine || kind == Kind::Model; }
};
/// "default", "heat.sten:13:9", "command line (--block 64,32)", "the performance model's choice
/// (--schedule auto)".
std::string describe(const Origin& o);
/// How a message names a setting: the option as given ("--block 64,32"), the clause in quotes
/// ("'block (64, 32)'"), or "the default CLAUSE".
std::string settingName(const Origin& o, const std::string& clause);

template <typename T>
struct Setting {
  T value{};
  Origin origin;
};

/// `stream ITER` (full = false: the extent is cut into chunks swept concurrently; the chunking is
/// chosen by later passes) or `full_stream ITER` (full = true: one thread sweeps the whole extent).
struct StreamSpec {
  std::string iterator;
  bool full = false;
};

enum class UnrollDistribution { Blocked, Cyclic };
/// `unroll j=2, i=1 cyclic`: points per thread along each named iterator (unnamed ones: 1).
struct UnrollSpec {
  std::vector<std::pair<std::string, int64_t>> factors;
  UnrollDistribution distribution = UnrollDistribution::Blocked;
};

enum class Perspective { Output, Input, Mixed };

enum class PlacementKind { Shmem, Gmem, NoShmem };
struct PlacementSpec {
  std::string array;
  PlacementKind kind = PlacementKind::Shmem;
  Origin origin;
  /// gmem and no_shmem: the array is never staged in shared memory, read from global memory.
  bool readFromGlobal() const {
    return kind == PlacementKind::Gmem || kind == PlacementKind::NoShmem;
  }
};

struct Schedule {
  int stencil = -1;  // index into Program::stencils
  Setting<ScheduleFamily> family;
  /// Set when the family streams (global-stream, stream), except for `stream` on a 1-D program
  /// given without a stream clause (it runs as `shared`).
  std::optional<Setting<StreamSpec>> stream;
  Setting<int64_t> chunk{16, {}};       // stream: planes per block of a chunked `stream`
  Setting<std::vector<int64_t>> block;  // 1 to 3 extents: x (fastest grid iterator), y, z
  Setting<UnrollSpec> unroll;
  Setting<int64_t> timeTile{1, {}};
  /// Fused kernels write back every array they write, also those no later kernel reads
  /// (analysis/dead_stores.h); default false: only the live ones.
  Setting<bool> keepDeadStores;
  /// stream + time_tile: each input ring keeps a spare plane, the slot its next plane loads into
  /// while the current planes are read, so that no barrier stands before the load (T barriers
  /// per plane and step instead of T + 1; a plane more of shared memory per input). The same for
  /// the plane of a retimed `stream` kernel (1 barrier per plane instead of 2). Default on;
  /// off from `--spare-plane off`, or by fitSchedules where the spare plane would not fit the
  /// machine's shared memory.
  Setting<bool> sparePlane{true, {}};
  /// overlapped: a local array or per-point scalar that one stage writes and one later stage
  /// reads, only at its centre, is computed in that reader's loop, in a register, instead of in
  /// a shared tile of its own (analysis/tile_regions.h, TileHull::inRegisters). Default off (the
  /// kernels the model's calibration and register fit were measured on); on from
  /// `--register-values on`.
  Setting<bool> registerValues{false, {}};
  /// Width of the kernels' index arithmetic (`index_bits`, `--index-bits`): 0 (auto, the
  /// default) narrows each kernel to 32 bits where pass narrow-indices proves it safe and keeps
  /// a 64-bit copy the host launches when the sizes of a run do not fit; 32 narrows without the
  /// copy (a run whose sizes do not fit stops with an error); 64 keeps 64-bit arithmetic.
  Setting<int> indexBits;
  /// Contracted multiply-adds (`--fma`): pass contract-fma turns a*b+c in the kernels into
  /// fma(a, b, c) (one rounding instead of two); default false: the exact IEEE operations of
  /// the language, which agree with the reference interpreter bit for bit.
  Setting<bool> fma;
  /// A register cap per thread for the kernels' CUDA code (`max_registers N`,
  /// `--max-registers N`): `__maxnreg__(N)` instead of the launch bounds (ptxas spills what does
  /// not fit); 0, the default: the launch bounds of each family (docs/gpu.md section 5).
  Setting<int> maxRegisters;
  Setting<bool> prefetch, retime, fold, noShmem;
  /// `fuse_statements`, `--fuse-statements`: under `global`, a call's consecutive statements share
  /// one kernel where no thread touches another's element (analysis/stmt_fusion.h), local
  /// scalars in registers.
  Setting<bool> fuseStatements;
  std::optional<Setting<double>> occupancy;  // 0 < t <= 1
  std::optional<Setting<Perspective>> perspective;
  std::vector<PlacementSpec> placements;
  /// `occupancy t` under a staged family: the arrays (formal names) moved from shared to global
  /// memory, fewest accesses first, until the block's shared memory allows the target
  /// (demoteForOccupancy; a note each in adjustments).
  std::vector<std::string> demoted;
  /// What fitSchedules() changed so that the schedule runs (a dropped `#pragma` setting, an
  /// adapted default block, fewer fused steps), one note each for the user.
  std::vector<std::string> adjustments;

  /// The block extents x, y, z (missing ones are 1).
  std::array<int64_t, 3> blockShape() const;
  int64_t blockThreads() const;
  /// The unroll factor along an iterator (1 if none is given).
  int64_t unrollFactor(const std::string& iterator) const;
};

/// The index of the streamed iterator, or -1 (global, or a stream naming no iterator).
int streamDim(const Schedule& s, const Program& prog);
/// The iterators the thread grid covers, fastest first: grid x, y, z (iterator indices).
std::vector<int> gridDims(const Schedule& s, const Program& prog);
/// Under the input or mixed perspective (Schedule::perspective), per grid dimension (x first)
/// the threads a block has before and after its output tile: the stencil's read offsets below
/// and above 0 along that iterator (every dimension for input, x for mixed); zeros otherwise.
std::array<std::array<int, 3>, 2> perspectiveHalo(const Schedule& s, const Program& prog);

/// Command-line options that override the hints of every stencil. Each mirrors a clause.
struct ScheduleOptions {
  std::optional<ScheduleFamily> family;       // --schedule global|...|stream|overlapped
  std::optional<std::vector<int64_t>> block;  // --block 32,8[,1]
  std::optional<std::string> stream;          // --stream k
  std::optional<std::string> fullStream;      // --full-stream k
  std::optional<UnrollSpec> unroll;           // --unroll j=2,i=1[,blocked|cyclic]
  std::optional<int64_t> timeTile;            // --time-tile T
  std::optional<int64_t> chunk;               // --chunk SB
  std::optional<bool> keepDeadStores;         // --dead-stores keep|drop
  std::optional<bool> sparePlane;             // --spare-plane on|off
  std::optional<bool> registerValues;         // --register-values on|off
  std::optional<bool> retime;                 // --retime
  std::optional<bool> prefetch;               // --prefetch
  std::optional<bool> fold;                   // --fold
  std::optional<bool> fuseStatements;         // --fuse-statements
  /// --fusion-groups (set by the driver after pass fusion-groups, not a flag of its own here):
  /// any choice but `none` has each call's statements share a kernel where the family can
  /// (global, stream), as --fuse-statements does, unless that is given.
  std::optional<std::string> fusionGroups;
  /// --schedule-chosen-by (set by the driver when the performance model chose --schedule, not a
  /// flag of its own): what asked for the choice, "--schedule auto" or "no schedule named".
  std::optional<std::string> familyChosenBy;
  std::optional<Perspective> perspective;  // --perspective output|input|mixed
  std::optional<int> indexBits;            // --index-bits auto|32|64 (auto: 0)
  std::optional<bool> fma;                 // --fma
  std::optional<int> maxRegisters;         // --max-registers N
  std::optional<std::string> machine;      // --machine NAME|FILE.json (not part of a Schedule)
};

/// Whether some call of stencil `stencil` has more than one statement (something to fuse).
bool severalStatements(const Program& prog, int stencil);

/// The option names setScheduleOption() accepts as flags of the command line (it also takes
/// "--fusion-groups", which the driver sets after regrouping).
const std::vector<std::string>& scheduleFlags();
/// Those of scheduleFlags() that are switches on the command line (on when given: --retime), not
/// options with a value.
bool scheduleSwitch(const std::string& flag);

/// Parses one option's value into `opts` ("--block", "32,8"). A malformed value is a bad_schedule
/// error naming the flag (no location) and gives false. Values that parse but are impossible (a
/// block extent of 0, an unknown iterator) are left to validate(). An unknown flag throws
/// std::invalid_argument.
bool setScheduleOption(ScheduleOptions& opts, std::string_view flag, std::string_view value,
                       DiagnosticEngine& diags);

/// The Schedule of stencil `stencil`: its hints, overridden by `opts`, defaults for the rest
/// (global, or stream when a `stream`/`full_stream` clause or option asks for it; a streaming
/// family without one streams the slowest iterator: global-stream every plane per thread,
/// stream in chunks; block (256) for a 1-D grid, (32, 4, 4) for a 3-D shared one, (32, 8, 1)
/// otherwise). Contradictions (both `stream` and `full_stream`, `--schedule global` or `shared`
/// with `--stream`, both `blocked` and `cyclic`) are bad_schedule errors.
Schedule buildSchedule(const Program& prog, int stencil, const ScheduleOptions& opts,
                       DiagnosticEngine& diags);

/// The family's default block for s (s.family and s.stream set): defaultBlockShape() for its
/// grid.
std::vector<int64_t> defaultBlock(const Schedule& s, const Program& prog);

/// Defaults that always fit (schedule_fit.cpp): makes each schedule one that runs wherever
/// only settings nobody gave explicitly for the family in use stand in the way, and records
/// each change in Schedule::adjustments:
///   - the family came from the command line and a `#pragma` block or unroll written for
///     another family does not fit it: the pragma's settings are dropped for the family's
///     defaults;
///   - a default block that does not fit (shared memory, no tile left after the halo of the
///     fused steps) is replaced by the best block that fits (shared, stream: the largest one
///     no larger than the default; overlapped and stream + time_tile: the least redundant one);
///   - when no block within the machine's limits leaves a tile at the time tile asked for,
///     fewer steps are fused (the largest time tile that fits).
/// Explicit settings for the family in use are never changed: validate() and validateFusion()
/// refuse them as they are.
/// Fitting refuses what run and emit refuse (a stream + time_tile kernel beyond the shared
/// memory too), also where the validation only reports it (`tessel info`), so that info shows
/// the schedule they run.
void fitSchedules(std::vector<Schedule>& schedules, const Program& prog, const MachineDesc& m);

/// ARTEMIS's `occupancy t` (paper 000 section II-B) under the staged families (shared, stream):
/// while a kernel of the stencil keeps fewer than t of its multiprocessor's warps resident (the
/// occupancy calculator on `m` with the kernel's threads and shared memory; registers are not
/// known before nvcc, so this is an upper bound), the array in shared memory with the fewest
/// accesses per point moves to global memory (Schedule::demoted), each move a note in
/// Schedule::adjustments; arrays placed with `shmem` stay. A target that nothing more reaches is
/// noted too. Other families keep the clause recorded (scheduleNotes).
void demoteForOccupancy(std::vector<Schedule>& schedules, const Program& prog,
                        const MachineDesc& m);

/// Refuses a schedule the machine cannot run or that names what the program lacks, with a
/// bad_schedule error at the clause it came from (or naming the command-line flag): a block
/// with more threads than the machine allows, a block extent of 0 or over the machine's limit
/// per dimension, block dimensions the grid does not have, a stream along a dimension that is
/// not an iterator or that is the unit-stride one, global-stream or an explicit stream on a 1-D
/// program, an unroll factor below 1 or along a non-iterator, time_tile < 1, chunk < 1,
/// occupancy outside (0, 1], and for the staged families a kernel that needs more shared memory
/// per block than the machine has (saying which statement stages what).
bool validate(const Schedule& s, const Program& prog, const MachineDesc& m,
              DiagnosticEngine& diags);

/// What one kernel of a staged family needs (Schedule::validate checks it).
struct KernelNeeds {
  int call = -1, stmt = -1;
  int64_t sharedBytes = 0, threads = 0;
  std::string staged;  // the staged arrays, "in (36x12 double), c (36 double)"
};
/// The needs of every kernel of stencil s.stencil under shared or stream; empty for the other
/// families.
std::vector<KernelNeeds> kernelNeeds(const Schedule& s, const Program& prog);

/// Where the register-level clauses apply (schedule_clauses.cpp): prefetch under `stream` with
/// a streamed iterator; retime under `stream` and `global-stream` with one; fold under `shared`
/// and `stream` without retiming; the input and mixed perspectives under `shared`;
/// fuse_statements under `global` and `stream`. validate() refuses the others.
bool prefetchApplies(const Schedule& s, const Program& prog);
bool retimeApplies(const Schedule& s, const Program& prog);
bool foldApplies(const Schedule& s);
bool perspectiveApplies(const Schedule& s);
bool fuseStatementsApplies(const Schedule& s);
/// A family chosen on the command line overrides the file's (language.md section 8): the
/// clauses of the stencil's `#pragma` that it does not apply are left out, a note each in
/// Schedule::adjustments. The command line's own clauses stay (validate() refuses them).
void dropFileClausesNotApplied(Schedule& s, const Program& prog);

/// stream + time_tile: the stream family with a streamed iterator and time_tile T >= 2 fuses T
/// steps into streamed kernels (analysis/stream_fusion.h); T = 1 is the plain stream family.
bool streamsTimeTiled(const Schedule& s, const Program& prog);
/// Whether Schedule::sparePlane applies to `s`: stream + time_tile's input rings, and the
/// retimed `stream` kernels' ring of one plane (a slot more, one barrier per plane fewer).
bool usesSparePlanes(const Schedule& s, const Program& prog);

/// Refuses overlapped (and stream + time_tile) schedules whose fused kernels cannot run: a
/// block that leaves no tile after the halo of T fused steps, or shared memory beyond the
/// machine's per-block limit (saying how many bytes are needed and allowed). `schedules` in
/// Program::stencils order. With `refuseStreamedExcess` false, stream + time_tile kernels beyond
/// the shared memory limit pass (`tessel info` reports them, marked as exceeding it).
/// With `onlyStencil` >= 0, only the groups whose configuration is that stencil's are checked.
bool validateFusion(const std::vector<Schedule>& schedules, const Program& prog,
                    const MachineDesc& m, DiagnosticEngine& diags, bool refuseStreamedExcess = true,
                    int onlyStencil = -1);

/// buildSchedule() and validate() for every stencil, and validateFusion(), in
/// Program::stencils order; nullopt after any error.
std::optional<std::vector<Schedule>> buildSchedules(const Program& prog,
                                                    const ScheduleOptions& opts,
                                                    const MachineDesc& m, DiagnosticEngine& diags,
                                                    bool refuseStreamedExcess = true);

/// "global-stream, stream k, block (32, 16), unroll j=2, time_tile 2, prefetch"; with
/// `origins`, each setting is followed by where it came from, e.g. "[heat.sten:13:9]".
std::string toString(const Schedule& s, bool origins = false);

}  // namespace tessel
