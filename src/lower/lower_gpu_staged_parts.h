// The parts of a staged kernel (lower_gpu_staged.h), free functions over its StagedContext:
// the index arithmetic (lower_gpu_staged_index.cpp), the cooperative loads of tiles and planes
// (lower_gpu_staged_loads.cpp) and the stream family's plane sweep
// (lower_gpu_staged_stream.cpp). Internal to the GPU lowering.
#pragma once

#include <string>
#include <vector>

#include "lower/lower_gpu_staged.h"

namespace tessel::gpu::staged {

// ---- Index arithmetic ----------------------------------------------------------------------

/// The staging group reference `ref` belongs to, or -1.
int groupOf(const StmtStaging& staging, const Expr& ref);
/// The variable of iterator d.
ExprPtr iterVar(const StagedContext& c, int d);
/// The index in a group's tile (one plane of it) of the element at the current point shifted
/// by `offsets` (per subscript).
ExprPtr tileIndex(const StagedContext& c, const StagePlan& p, const std::vector<int64_t>& offsets);
/// Row-major in the group's array at `coords` (per subscript).
ExprPtr globalIndex(const StagedContext& c, const StagePlan& p, const std::vector<ExprPtr>& coords);
/// `coords` lie inside the group's array.
ExprPtr inArray(const StagedContext& c, const StagePlan& p, const std::vector<ExprPtr>& coords);
/// The ring slot of plane k + `offset` in copy `phase` of the unrolled sweep, k being that
/// copy's plane: planes take the slots in turn from the block's first plane, whose window's
/// first plane (k + sharedLo) is in slot 0, so (phase + offset - sharedLo) mod the slots.
int64_t ringSlot(const StagePlan& p, int phase, int64_t offset);
/// A rolled ring (StagePlan::rolledRing): the index in its one shared array of the first
/// element of plane `plane`'s slot.
ExprPtr rolledSlotBase(const StagedContext& c, const StagePlan& p, const ExprPtr& plane);
/// The copies of the stream sweep's body per round: the least common multiple of the rings'
/// slots (1 without shared planes).
int sweepCopies(const StmtStaging& staging);
/// The current point lies within the region's upper bounds along the grid's dimensions.
ExprPtr regionGuard(const StagedContext& c);
/// The thread's index in its block: x fastest.
ExprPtr flatThreadId(const GridShape& grid);

// ---- Cooperative loads ---------------------------------------------------------------------

/// Cooperative load of group gi's tile (or of plane `plane`) into shared array `shared` (the
/// tile's, or a ring slot's; `base`: where in it the tile starts, a rolled ring's slot, null
/// for 0). With `ownStores` (each thread storing its own points of that plane from its
/// registers: ownStore), the loop loads only the halo around the block's points.
std::vector<lir::StmtPtr> loadTile(const StagedContext& c, size_t gi, const ExprPtr& plane,
                                   const std::string& shared,
                                   const std::vector<lir::StmtPtr>& ownStores = {},
                                   const ExprPtr& base = nullptr);
/// The store of register `reg` (group gi's plane at the current point) into shared array
/// `shared` (from `base`, as loadTile) at that point.
lir::StmtPtr ownStore(const StagedContext& c, size_t gi, const std::string& shared,
                      const std::string& reg, const ExprPtr& base = nullptr);
/// The thread's point of unrolled copy `copy`: the iterator variables of the grid's
/// dimensions, from the block's first point (t0).
std::vector<lir::StmtPtr> declarePoint(const StagedContext& c, int copy);
/// Whether some group's tile loads as one flat loop over its elements (each split into
/// coordinates by division and modulo), which needs the thread's flat index, rather than one
/// loop per dimension from the thread's own index: when some grid dimension of more than one
/// thread spreads along no subscript of the tile, or two subscripts run along one iterator.
bool needsFlatIndex(const StagedContext& c);
/// A load of group p at global `index`: the element, or for a folded group the combination
/// with its partner's element (analysis/folding.h).
ExprPtr groupValue(const StagedContext& c, const StagePlan& p, const ExprPtr& index);
/// Loads plane `plane` of group gi at the thread's own point into register `reg`.
lir::StmtPtr loadRegister(const StagedContext& c, size_t gi, const ExprPtr& plane,
                          const std::string& reg);

// ---- The stream family's sweep -------------------------------------------------------------

/// The stream family's body: the block's chunk of planes swept plane by plane, each group's
/// window (registers, a ring of shared planes) loaded ahead and rotated.
std::vector<lir::StmtPtr> streamBody(
    const StagedContext& c,
    const std::function<std::vector<lir::StmtPtr>(int phase, int copy)>& computeAt);

}  // namespace tessel::gpu::staged
