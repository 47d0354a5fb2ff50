// Staging analysis: what one statement's kernel keeps on chip under the staged GPU families.
//
// A statement reads arrays through references `A[s0][s1]...`, each subscript an iterator plus
// an offset or a constant. References that agree on the array and on every subscript but the
// offsets form a *group* (A[k][j][i-1] and A[k+1][j][i] do; A[0][j][i] and A[1][j][i] do not):
// one tile of a group covers what all its references read.
//
//   shared  A block computes a tile of `tile[d]` points along each iterator d. A group read at
//           an offset somewhere is staged in shared memory: the tile widened by the group's
//           offsets along each subscript (the halo). A group read only at its centre is read
//           from global memory directly (each thread reads its own element once).
//   stream  A block computes a tile of the iterators but the streamed one, sweeping the streamed
//           one plane by plane. A group whose subscripts include the streamed iterator has a
//           window of planes (its offsets along it, lo..hi: 2r+1 for an order-r stencil). A
//           plane read only at its centre point ("diagonal-access free", STENCILGEN V-A2) lives
//           in a register of each thread (a shift register over the planes regLo..regHi); a
//           plane read at in-plane offsets lives in shared memory (a ring of the planes
//           sharedLo..sharedHi, each the plane's tile plus the in-plane halo). A group without
//           the streamed iterator is the same for every plane: staged once like `shared`.
//
// The GPU lowering builds kernels from this plan, Schedule::validate() sums its shared memory
// and the kernel reports take their footprints and loads from it (for the global families too,
// where every group is read from global memory), so all agree on what a kernel needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/accesses.h"
#include "ir/program.h"

namespace tessel {

/// The references of one statement to one array that differ only in their offsets.
struct StageGroup {
  ArrayId array;
  std::string name;  // the array as the program names it (for messages and generated names)
  ScalarType type = ScalarType::Double;
  std::vector<int> iters;       // per subscript: its iterator, or -1 for a constant index
  std::vector<int64_t> fixed;   // per subscript: the constant where iters[p] < 0
  std::vector<Reference> refs;  // the distinct references, in order of first appearance
  std::vector<int64_t> lo, hi;  // per subscript: least and greatest offset

  /// Some reference reads off the centre (a non-zero offset along an iterator).
  bool offCentre() const;
  /// The subscript of iterator `iter`, or -1.
  int position(int iter) const;
};

/// The groups of what statement `st` of `call` reads on its right-hand side, in order of first
/// appearance (a compound assignment's read of its left side is not included: it reads the
/// point it writes).
std::vector<StageGroup> stageGroups(const Program& prog, const CallInst& call, const Stmt& st);

/// Where a group's values come from in a staged kernel.
enum class StageKind {
  Global,  // read from global memory at each use
  Tile,    // one shared-memory tile for the block, loaded before the computation
  Planes,  // stream: planes in registers and/or a ring of shared planes
};

struct StagePlan {
  StageGroup group;
  StageKind kind = StageKind::Global;
  /// The group's tile: per subscript its extent and the offset of its first element from the
  /// block's origin (1 and 0 at a constant index and at the streamed iterator). Tile and Planes:
  /// the shared tile (or one shared plane); Global: the elements its reads touch.
  std::vector<int64_t> extent, first;
  // Planes: the window along the streamed iterator.
  int streamPos = -1;                   // the subscript of the streamed iterator
  int64_t sharedLo = 0, sharedHi = -1;  // shared ring: planes sharedLo..sharedHi (empty if lo > hi)
  int64_t regLo = 0, regHi = -1;        // registers: planes regLo..regHi (empty if lo > hi)
  std::vector<bool> planeInShared;      // per plane group.lo[streamPos]..hi: read off centre
  /// Planes: the leading shared plane (sharedHi) is also in the register chain, so each thread
  /// stores its own point into it from its register and the block loads only the halo. The
  /// plane's tile then covers the block's own points (the centre is in its hull) even where no
  /// reference reads the centre of that plane.
  bool ownFromRegisters = false;

  int64_t sharedPlanes() const { return sharedHi >= sharedLo ? sharedHi - sharedLo + 1 : 0; }
  int64_t registerPlanes() const { return regHi >= regLo ? regHi - regLo + 1 : 0; }
  /// Elements of one tile or plane.
  int64_t tileElements() const;
  /// Planes: the slots of the shared ring, one more than its planes (0 without shared planes):
  /// the leading plane goes to the slot no thread reads any more, so a plane needs one barrier
  /// (loaded, then read), not a second one before its load (STENCILGEN's double buffering).
  /// The sweep is unrolled by the slots, so each access names its slot's array (or, with
  /// rolledRing, the slot is chosen per plane at run time).
  int64_t ringSlots() const { return sharedPlanes() > 0 ? sharedPlanes() + spareSlots : 0; }
  /// The ring's slots beyond its planes: 1, or 0 (`--spare-plane off` for a retimed statement's
  /// plane: one slot, a barrier before each load as well as after it).
  int64_t spareSlots = 1;
  /// The ring is one shared array of ringSlots() planes and the sweep stays rolled: plane k + o
  /// is in slot (k - the sweep's first plane + o - sharedLo) mod ringSlots(), computed per plane
  /// (a retimed statement's plane: PoCL 3.1 miscompiles the unrolled sweep with a slot per array,
  /// docs/gpu.md section 10). With a spare slot, still one barrier per plane.
  bool rolledRing = false;
  /// Folding: the array folded into this group's and the operator (every element staged, or
  /// read, is `group.array op partner` at the same index); none without.
  std::optional<ArrayId> foldPartner;
  Op foldOp = Op::Mul;
  std::string foldText;  // "my * u"
  /// Shared-memory elements this group needs (Tile: one tile; Planes: the ring's slots).
  int64_t sharedElements() const;
};

struct StmtStaging {
  std::vector<StagePlan> groups;
  int64_t sharedBytes = 0;     // the kernel's shared memory
  int64_t registerPlanes = 0;  // values each thread keeps in plane registers
  /// Folding (analysis/folding.h): the statement the kernel computes, whose references to a
  /// folded group's array stand for the combination (StagePlan::fold); none without.
  std::optional<Stmt> computes;
};

/// The staging of statement `st` when a block computes `tile[d]` points along iterator d
/// (`tile` has one entry per iterator) and, when streamIter >= 0, sweeps that iterator (its
/// tile entry is ignored). `onChip` false (the global and global-stream families): every group
/// is read from global memory, at all its offsets; its tile is still what those reads touch.
StmtStaging planStaging(const Program& prog, const CallInst& call, const Stmt& st,
                        const std::vector<int64_t>& tile, int streamIter, bool onChip = true);

/// "k-1", "k", "k+2": plane `o` ahead of iterator `iter` (staging_describe.cpp).
std::string planeText(const std::string& iter, int64_t o);
/// Where plan `p` keeps its group, in words: "a 10x34 tile in shared memory, loaded once",
/// "read at its centre only, from global memory", "planes k-1, k+1 in registers, k in shared
/// memory (one plane of 10x34)"; `streamIter`: the streamed iterator's name.
std::string describePlan(const StagePlan& p, const std::string& streamIter);

}  // namespace tessel
