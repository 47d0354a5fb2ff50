// Tile regions of a fused sequence of stages (paper 001, Algorithm 2, generalised).
//
// A fused sequence is the statements ("stages") of one call or of several consecutive calls
// (e.g. T time steps of a ping-pong `iterate` body), run by one thread block for one output tile
// without global synchronisation. Working backwards from the tile through the stages, the
// analysis finds the rectangular hull each stage must compute and each value must cover so that
// every result array is right on the whole tile (overlapped tiling: the halo is recomputed by
// every block that needs it).
//
// Coordinates are relative to the tile: the tile is [0, tile_d - 1] along each dimension d. All
// offsets in the language are constants, so every region is the tile grown by constants.
//
// The rule (a hull, as Algorithm 2): every result array must be right on the tile, so every
// stage that writes one covers the tile; a stage that reads value v at offset o over its region
// R needs v right on R + o, so *every* earlier stage that writes v covers R + o (a later writer
// may skip a point, e.g. at a statement domain's edge, and then an earlier writer's value is the
// one that is read). Hulls only grow, which is what makes the result safe for any domain.
//
// Streaming. With a streamed dimension the tile is one plane along it: regions along that
// dimension say how many planes ahead of the output plane a stage runs (its lead), and point
// counts are per plane. Buffers then hold a window of planes: as many as the span of the offsets
// at which later stages read the value along the streamed dimension (2r+1 for a radius-r star).
//
// Values are global arrays, a call's local arrays and a call's per-point local scalars; locals
// belong to one execution of a call (a step of the sequence), so a repeated call has fresh ones.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/accesses.h"
#include "analysis/folding.h"
#include "analysis/regions.h"
#include "analysis/retiming.h"
#include "ir/program.h"

namespace tessel {

/// The calls of a fused sequence, in execution order (a call instance may repeat).
struct FusedSequence {
  std::vector<int> calls;  // indices into Program::calls
};

/// `steps` calls taken cyclically from `body` (a ping-pong body {A, B} with 3 steps: A, B, A).
FusedSequence fuseCalls(const Program& prog, const std::vector<int>& body, int steps);
/// The consecutive calls first, first+1, ..., first+count-1.
FusedSequence fuseCallRange(const Program& prog, int first, int count);

/// A statement retimed along the streamed dimension (analysis/retiming.h): its kernel reads
/// every plane-indexed access on one plane, the newest, `hi` planes beyond the output plane (its
/// parts' highest offset), and accumulates the outputs on planes out .. out + hi - lo.
struct RetimedStmt {
  int call = -1, stmt = -1;  // Program::calls index, statement index
  Retiming retiming;         // its parts (ok), computed once for the analysis and the kernel
  int64_t lo() const { return retiming.parts.front().offset; }
  int64_t hi() const { return retiming.parts.back().offset; }
};

struct TileSpec {
  /// Output tile extent per iterator dimension (iterator order, slowest first); the streamed
  /// dimension's entry is ignored (one plane).
  std::vector<int64_t> tile;
  int streamDim = -1;  // an iterator dimension excluded from tiling, or -1
  /// Global arrays (Program::arrays indices) that must be right on the tile afterwards; nullopt:
  /// every global array a stage writes.
  std::optional<std::vector<int>> results;
  /// Streamed: each input ring in shared memory keeps a spare plane (TileBuffer::window).
  bool sparePlane = true;
  /// Streamed: the statements retimed (stream + time_tile with retime): each reads its planes
  /// at `hi` (TileStage::accesses say so), and with any of them the buffers' windows span the
  /// planes their readers read (leads included) and the previous values later stages take.
  std::vector<RetimedStmt> retimed = {};
  /// Streamed: pairs of arrays the sequence only reads, and only as `A[s] op B[s]`
  /// (analysis/folding.h: foldSequence): the stages read A where they read the combination, A's
  /// ring holds the combination (loaded with B's elements), and B has no buffer of its own.
  std::vector<Fold> folds = {};
  /// Streamed: global arrays the sequence only reads that get no input ring (a `gmem`
  /// placement, or demoted for an occupancy target): the stages read them from global memory.
  std::vector<int> globalInputs = {};
  /// All dimensions tiled: values read once at the centre are computed in their reader's loop,
  /// in registers (TileHull::inRegisters; Schedule::registerValues, `--register-values on`).
  bool registerValues = false;
};

/// A value a fused sequence touches.
struct TileValue {
  enum class Kind { Global, LocalArray, LocalScalar };
  Kind kind = Kind::Global;
  int step = -1;  // LocalArray, LocalScalar: the step (position in the sequence) that owns it
  int index = -1;
  auto operator<=>(const TileValue&) const = default;
};

/// The value reference `r` of the stage at position `step` denotes.
TileValue valueOf(const Reference& r, int step);

/// One stage: statement `stmt` of the call at position `step` of the sequence.
struct TileStage {
  int step = 0, call = -1, stmt = -1;
  TileValue writes;
  /// The right-hand side the kernel computes: the statement's, or with TileSpec::folds the
  /// folded one (each combination its array).
  ExprPtr rhs;
  StmtAccesses accesses;  // what the statement reads and writes (taken once, from `rhs`)
  Box region;             // iteration points, tile coordinates (the hull it computes)
  int64_t points = 0;     // points of `region` (per plane when streamed)
  int64_t redundant = 0;  // points of `region` outside the tile (per plane)
  int64_t lead = 0;       // planes ahead of the output plane along the streamed dimension
  /// Retimed (TileSpec::retimed): the parts' offsets; its accesses read every plane at `hi`.
  std::optional<RetimedStmt> retimed;
  /// With retimed stages, streamed: the stage writes a global array that every earlier stage
  /// writing it writes with the same statement (a ping-pong's repeated call), so that where
  /// this stage does not compute, the array still holds its value from before the kernel: its
  /// previous value comes from global memory and needs no ring plane.
  bool previousFromMemory = false;
  bool readsProduced = false;  // reads a value an earlier stage wrote
  /// All dimensions tiled (no streamed dimension): the later stage whose loop computes this
  /// stage's value at its own point, in a register, instead of this stage storing it on chip
  /// (TileHull::inRegisters); -1: the stage runs on its own.
  int computedIn = -1;
};

/// A global array read from global memory (not produced earlier in the sequence).
struct TileInput {
  int array = -1;
  /// Folded (TileSpec::folds): the array whose ring this one's elements are combined into as
  /// they are loaded (its footprint is that array's); -1 for the others.
  int foldedInto = -1;
  Box footprint;       // the hull of its reads from global memory, tile coordinates
  int64_t points = 0;  // per plane when streamed; dimensions the array lacks count once
};

/// A buffer of the fused kernel: an input read at offsets, or a stage's result read by later
/// stages. Shared memory when some read is at a non-zero offset (another thread's point),
/// registers when every read is at the centre.
struct TileBuffer {
  TileValue value;
  int producer = -1;   // the stage that writes it; -1: an input staged from global memory
  Box box;             // what it covers (tile coordinates)
  int64_t planes = 1;  // streamed: planes kept (span of the read offsets along the stream;
                       // an input ring one more, see window)
  /// Streamed: the planes behind the newest one that its readers may read (the span of the
  /// read offsets): `planes`, or for an input ring in shared memory one fewer, the slot its
  /// next plane loads into while the current plane's readers run (no barrier between).
  int64_t window = 1;
  bool shared = true;
  int64_t elements = 0;  // per plane x planes
  int64_t bytes = 0;     // shared ones only; 0 for registers
};

/// One on-chip copy per value written in the sequence, covering the hull of everything done to
/// it (paper 001, Algorithm 3: one shared region per sub-grid). This is what an overlapped kernel
/// that tiles every dimension needs: the stages run one after the other with barriers between,
/// so a value's successive versions can share one buffer.
struct TileHull {
  TileValue value;
  Box box;
  int64_t elements = 0;
  int64_t bytes = 0;
  /// The stage whose write comes first among the live stages' accesses of the value, when that
  /// stage does not read it: the points it writes need not be loaded (they are overwritten
  /// before anything reads them). -1: none.
  int firstWriter = -1;
  /// Elements a kernel loads from global memory into the buffer in the interior (the hull minus
  /// firstWriter's written box); 0 for values without a global source (local arrays that are
  /// not scratch copies, local scalars).
  int64_t loads = 0;
  /// A local array or per-point scalar whose writers (the first a plain assignment, each at its
  /// own point, a later one reading the one before at its centre) are all read by one later
  /// stage, only at its centre, with nothing up to that reader changing what the writers read:
  /// the reader's loop computes it at its point in a register (TileStage::computedIn),
  /// STENCILGEN's placement rule (paper 004, V-A2) in the overlapped kernel. It has no shared
  /// buffer and no bytes in TileTotals::sharedBytesHulls.
  bool inRegisters = false;
};

struct TileTotals {
  int64_t tilePoints = 0;        // output points per tile (per plane when streamed)
  int64_t computed = 0;          // sum of the stages' points
  int64_t redundant = 0;         // sum of the stages' redundant points
  double redundancyPercent = 0;  // 100 * redundant / computed: the share of the work wasted
  int64_t sharedBytes = 0;       // sum of the shared TileBuffers (the per-stage, streaming model)
  int64_t sharedBytesHulls = 0;  // sum of the TileHulls (the all-dimensions-tiled kernel;
                                 // not meaningful when streamed)
  double loadsPerPoint = 0;      // global elements read per output point: inputs' footprints
  double storesPerPoint = 0;     // global elements written per output point: results on the tile
};

struct TileAnalysis {
  TileSpec spec;
  FusedSequence seq;
  bool supported = true;  // false: some read cannot be expressed relative to the tile
  std::string whyNot;     // why, when not supported
  std::vector<TileStage> stages;
  std::vector<TileInput> inputs;
  std::vector<TileBuffer> buffers;
  std::vector<TileHull> hulls;
  std::vector<int> results;  // global arrays right on the tile afterwards
  TileTotals totals;
  /// All dimensions tiled: the values `TileSpec::registerValues` keeps (or would keep, where it
  /// is off) in registers, in stage order.
  std::vector<TileValue> registerCandidates;
};

/// Regions, footprints, buffers and totals of `seq` for one tile (throws std::invalid_argument
/// for a tile of the wrong rank or with an extent below 1).
TileAnalysis analyzeTile(const Program& prog, const FusedSequence& seq, const TileSpec& spec);

/// The largest output tile a thread block of shape `block` (per iterator dimension, iterator
/// order; the streamed dimension's entry ignored) computes when the block covers the largest
/// stage region: block minus the accumulated halo. nullopt when the block is not larger than
/// the halo along some dimension.
std::optional<std::vector<int64_t>> tileForBlock(const Program& prog, const FusedSequence& seq,
                                                 const std::vector<int64_t>& block,
                                                 int streamDim = -1);

/// The halo the stages accumulate: per dimension, the largest stage region minus the tile.
std::vector<int64_t> accumulatedHalo(const Program& prog, const FusedSequence& seq,
                                     int streamDim = -1);

/// "in", "lap (step 2)", "r (local scalar, step 1)".
std::string valueName(const Program& prog, const FusedSequence& seq, const TileValue& v);

/// A readable report: per stage region, points, redundancy and lead; inputs; buffers; totals.
std::string describe(const TileAnalysis& a, const Program& prog);

}  // namespace tessel
