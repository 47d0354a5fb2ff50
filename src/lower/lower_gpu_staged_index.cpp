// A staged kernel's index arithmetic: which staging group a reference reads, its index in the
// group's shared tile or ring slot, the global index and bounds of a loaded element, the
// region guard and the thread's index in its block.
#include <fmt/format.h>

#include <numeric>
#include <stdexcept>

#include "lower/lower_gpu_staged_parts.h"

namespace tessel::gpu::staged {

using namespace lir;

int groupOf(const StmtStaging& staging, const Expr& ref) {
  for (size_t i = 0; i < staging.groups.size(); ++i) {
    const StageGroup& grp = staging.groups[i].group;
    if (!(grp.array == ref.array) || grp.iters.size() != ref.subs.size()) continue;
    bool same = true;
    for (size_t p = 0; p < ref.subs.size(); ++p)
      same = same && grp.iters[p] == ref.subs[p].iter &&
             (!ref.subs[p].fixed() || grp.fixed[p] == ref.subs[p].offset);
    if (same) return static_cast<int>(i);
  }
  return -1;
}

ExprPtr iterVar(const StagedContext& c, int d) { return var(c.g.iters.at(d), ScalarType::Int); }

ExprPtr tileIndex(const StagedContext& c, const StagePlan& p, const std::vector<int64_t>& offsets) {
  ExprPtr acc;
  const StageGroup& grp = p.group;
  for (size_t s = 0; s < grp.iters.size(); ++s) {
    int d = grp.iters[s];
    if (d < 0 || static_cast<int>(s) == p.streamPos) continue;
    ExprPtr x = indexAddConst(indexSub(iterVar(c, d), var(c.names.t0[d], ScalarType::Int)),
                              offsets[s] - p.first[s]);
    acc = acc ? indexAdd(indexMul(acc, intLit(p.extent[s])), x) : x;
  }
  return acc ? acc : intLit(0);
}

ExprPtr globalIndex(const StagedContext& c, const StagePlan& p,
                    const std::vector<ExprPtr>& coords) {
  const auto& ext = c.prog.extents(c.call, p.group.array);
  ExprPtr acc;
  for (size_t s = 0; s < coords.size(); ++s)
    acc = acc ? indexAdd(indexMul(acc, c.site.kernelIndex(ext[s])), coords[s]) : coords[s];
  return acc ? acc : intLit(0);
}

ExprPtr inArray(const StagedContext& c, const StagePlan& p, const std::vector<ExprPtr>& coords) {
  const auto& ext = c.prog.extents(c.call, p.group.array);
  ExprPtr ok;
  for (size_t s = 0; s < coords.size(); ++s) {
    if (p.group.iters[s] < 0) continue;  // a constant index lies inside (sema)
    ok = allOf(ok, binary(Op::Le, intLit(0), coords[s]));
    ok = allOf(ok, binary(Op::Lt, coords[s], c.site.kernelIndex(ext[s])));
  }
  return ok ? ok : boolLit(true);
}

int64_t ringSlot(const StagePlan& p, int phase, int64_t offset) {
  const int64_t slots = p.ringSlots();
  if (slots < 1) throw std::logic_error("internal error: a ring slot of a group without one");
  return (phase + offset - p.sharedLo) % slots;
}

ExprPtr rolledSlotBase(const StagedContext& c, const StagePlan& p, const ExprPtr& plane) {
  const int64_t slots = p.ringSlots();
  if (slots < 1 || !p.rolledRing || p.sharedPlanes() != 1)
    throw std::logic_error(
        "internal error: a rolled ring's slot of a group without one (a "
        "rolled ring holds the plane streamed in only)");
  if (slots == 1) return intLit(0);
  // Planes from the sweep's first (first + sweepLo + sharedLo, in slot 0): never negative.
  ExprPtr start = indexAddConst(var(c.names.first, ScalarType::Int), c.sweepLo + p.sharedLo);
  ExprPtr slot = binary(Op::Mod, indexSub(plane, start), intLit(slots));
  return indexMul(slot, intLit(p.tileElements()));
}

int sweepCopies(const StmtStaging& staging) {
  int64_t copies = 1;
  for (const StagePlan& p : staging.groups)
    if (p.kind == StageKind::Planes && p.ringSlots() > 0 && !p.rolledRing)
      copies = std::lcm(copies, p.ringSlots());
  return static_cast<int>(copies);
}

std::vector<StmtPtr> declarePoint(const StagedContext& c, int copy) {
  std::vector<StmtPtr> out;
  for (size_t gd = 0; gd < c.grid.iters.size(); ++gd) {
    int d = c.grid.iters[gd];
    out.push_back(
        localDecl(CType::Int64, c.g.iters[d],
                  indexAdd(var(c.names.t0[d], ScalarType::Int), pointInBlock(c.grid, gd, copy))));
  }
  return out;
}

ExprPtr regionGuard(const StagedContext& c) {
  ExprPtr ok;
  for (int it : c.grid.iters)
    ok = allOf(ok, binary(Op::Le, iterVar(c, it), var(c.hi[it], ScalarType::Int)));
  return ok ? ok : boolLit(true);
}

ExprPtr flatThreadId(const GridShape& grid) {
  ExprPtr acc;
  for (size_t gd = grid.iters.size(); gd-- > 0;) {
    ExprPtr l = intrinsic(Intrinsic::LocalId, static_cast<int>(gd));
    acc = acc ? indexAdd(indexMul(acc, intLit(grid.block[gd])), l) : l;
  }
  return acc;
}

}  // namespace tessel::gpu::staged
