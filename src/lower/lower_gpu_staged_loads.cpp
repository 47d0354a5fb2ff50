// A staged kernel's loads: a group's tile (or one plane of its ring) loaded cooperatively by
// the whole block (a loop per dimension from each thread's own index, or one flat loop), and
// one plane of a group at the thread's own point into a register.
#include "lower/lower_gpu_staged_parts.h"

namespace tessel::gpu::staged {

using namespace lir;

namespace {

/// The tile's row-major strides per subscript (the last fastest) and the outermost subscript
/// the block's threads spread over (which needs no modulo), or -1.
int tileStrides(const StagePlan& p, std::vector<int64_t>& stride) {
  const StageGroup& grp = p.group;
  size_t n = grp.iters.size();
  stride.assign(n, 1);
  int64_t acc = 1;
  int outer = -1;
  for (size_t s = n; s-- > 0;) {
    stride[s] = acc;
    acc *= p.extent[s];
    if (grp.iters[s] >= 0 && static_cast<int>(s) != p.streamPos && p.extent[s] > 1)
      outer = static_cast<int>(s);
  }
  return outer;
}

/// Outside the block's own points (those of the thread registers), along the tile's
/// subscripts.
ExprPtr inHalo(const StagedContext& c, const StagePlan& p, const std::vector<ExprPtr>& coords) {
  const StageGroup& grp = p.group;
  ExprPtr halo;
  for (size_t s = 0; s < grp.iters.size(); ++s) {
    int d = grp.iters[s];
    if (d < 0 || static_cast<int>(s) == p.streamPos) continue;
    int64_t bl = 1;  // the block's points along d: its threads' unrolled points
    for (size_t gd = 0; gd < c.grid.iters.size(); ++gd)
      if (c.grid.iters[gd] == d) bl = c.grid.tile(gd);
    ExprPtr t0 = var(c.names.t0[d], ScalarType::Int);
    ExprPtr outside = binary(Op::Or, binary(Op::Lt, coords[s], t0),
                             binary(Op::Gt, coords[s], indexAddConst(t0, bl - 1)));
    halo = halo ? binary(Op::Or, halo, outside) : outside;
  }
  return halo;
}

/// Per subscript of the tile, the grid dimension whose threads a per-dimension load loop
/// spreads along it (-1: a loop over the whole extent, no threads spread along it; -2: no loop,
/// as the subscript is fixed, the streamed plane or of extent 1); empty: the flat loop (some
/// grid dimension of more than one thread spreads along no subscript, or two subscripts run
/// along one iterator).
std::vector<int> loopDims(const StagedContext& c, const StagePlan& p) {
  const StageGroup& grp = p.group;
  std::vector<int> out(grp.iters.size(), -2);
  std::vector<bool> used(c.grid.iters.size(), false), iterUsed(c.g.iters.size(), false);
  for (size_t s = 0; s < grp.iters.size(); ++s) {
    int d = grp.iters[s];
    if (d < 0 || static_cast<int>(s) == p.streamPos || p.extent[s] == 1) continue;
    if (iterUsed[static_cast<size_t>(d)]) return {};
    iterUsed[static_cast<size_t>(d)] = true;
    out[s] = -1;
    for (size_t gd = 0; gd < c.grid.iters.size(); ++gd)
      if (c.grid.iters[gd] == d) {
        out[s] = static_cast<int>(gd);
        used[gd] = true;
      }
  }
  for (size_t gd = 0; gd < c.grid.iters.size(); ++gd)
    if (c.grid.block[gd] > 1 && !used[gd]) return {};
  return out;
}

}  // namespace

bool needsFlatIndex(const StagedContext& c) {
  for (const StagePlan& p : c.staging.groups)
    if ((p.kind == StageKind::Tile || (p.kind == StageKind::Planes && p.sharedPlanes() > 0)) &&
        p.sharedElements() > 0 && loopDims(c, p).empty())
      return true;
  return false;
}

namespace {

/// `index` in a shared array from `base` (a rolled ring's slot; null: from 0).
ExprPtr fromBase(const ExprPtr& base, const ExprPtr& index) {
  return base ? indexAdd(base, index) : index;
}

/// A tile element as the load loops reach it: the statements declaring its coordinates (from the
/// loops' variables: nm.elem in the flat loop, nm.along per dimension), its coordinates per
/// subscript, its index in the tile, and whether it lies in the array.
struct TileElement {
  std::vector<StmtPtr> decls;
  std::vector<ExprPtr> coords;
  ExprPtr elem, inArray;
  std::vector<int> loops;  // loopDims: empty for the flat loop
};

TileElement tileElement(const StagedContext& c, size_t gi, const ExprPtr& plane) {
  const StagePlan& p = c.staging.groups[gi];
  const StageGroup& grp = p.group;
  const StagedNames& nm = c.names;
  size_t n = grp.iters.size();
  // Row-major over the tile's subscripts (the last fastest); the outermost needs no modulo.
  std::vector<int64_t> stride;
  int outer = tileStrides(p, stride);
  // Per dimension: a loop per subscript from the thread's own index in steps of the block's
  // threads along it, the element's index the sum of its offsets times the strides (no
  // division); else one flat loop over the elements.
  TileElement t;
  t.loops = loopDims(c, p);
  t.elem = t.loops.empty() ? var(nm.elem, ScalarType::Int) : nullptr;
  t.coords.resize(n);
  for (size_t s = 0; s < n; ++s) {
    int d = grp.iters[s];
    if (d < 0) {
      t.coords[s] = intLit(grp.fixed[s]);
    } else if (static_cast<int>(s) == p.streamPos) {
      t.coords[s] = plane;
    } else if (!t.loops.empty()) {
      ExprPtr y = t.loops[s] == -2 ? intLit(0) : var(nm.along[d], ScalarType::Int);
      t.decls.push_back(
          localDecl(CType::Int64, nm.coord[d],
                    indexAdd(indexAddConst(var(nm.t0[d], ScalarType::Int), p.first[s]), y)));
      t.coords[s] = var(nm.coord[d], ScalarType::Int);
      if (t.loops[s] != -2) {
        ExprPtr term = stride[s] == 1 ? y : indexMul(y, intLit(stride[s]));
        t.elem = t.elem ? indexAdd(t.elem, term) : term;
      }
    } else {
      ExprPtr e = var(nm.elem, ScalarType::Int);
      if (p.extent[s] == 1) {
        e = intLit(0);
      } else {
        if (stride[s] > 1) e = binary(Op::Div, e, intLit(stride[s]));
        if (static_cast<int>(s) != outer) e = binary(Op::Mod, e, intLit(p.extent[s]));
      }
      ExprPtr x = indexAdd(indexAddConst(var(nm.t0[d], ScalarType::Int), p.first[s]), e);
      t.decls.push_back(localDecl(CType::Int64, nm.coord[d], x));
      t.coords[s] = var(nm.coord[d], ScalarType::Int);
    }
  }
  if (!t.elem) t.elem = intLit(0);
  t.inArray = inArray(c, p, t.coords);
  return t;
}

/// Along subscript s of a per-dimension load: the first index, the step and the iterations a
/// thread makes at most.
struct LoopShape {
  ExprPtr from;
  int64_t step = 1, trips = 1;
};
LoopShape loopShape(const StagedContext& c, const StagePlan& p, int gd, size_t s) {
  LoopShape l;
  l.from = gd >= 0 ? intrinsic(Intrinsic::LocalId, gd) : intLit(0);
  l.step = gd >= 0 ? c.grid.block[static_cast<size_t>(gd)] : 1;
  l.trips = (p.extent[s] + l.step - 1) / l.step;
  return l;
}

}  // namespace

std::vector<StmtPtr> loadTile(const StagedContext& c, size_t gi, const ExprPtr& plane,
                              const std::string& shared, const std::vector<StmtPtr>& ownStores,
                              const ExprPtr& base) {
  const StagePlan& p = c.staging.groups[gi];
  const StageGroup& grp = p.group;
  const StagedNames& nm = c.names;
  TileElement t = tileElement(c, gi, plane);
  std::vector<StmtPtr> body = t.decls;
  std::vector<StmtPtr> out;
  ExprPtr cond = t.inArray;
  if (!ownStores.empty()) {
    // The block's own points come from the registers; the loop loads the halo around them.
    out.insert(out.end(), ownStores.begin(), ownStores.end());
    if (ExprPtr halo = inHalo(c, p, t.coords)) cond = binary(Op::And, cond, halo);
  }
  body.push_back(ifThen(cond, {store(shared, fromBase(base, t.elem),
                                     groupValue(c, p, globalIndex(c, p, t.coords)))}));
  if (t.loops.empty()) {
    out.push_back(cooperativeLoop(nm.elem, var(nm.tid, ScalarType::Int),
                                  intLit(p.tileElements() - 1), intLit(c.threads), body));
    return out;
  }
  for (size_t s = t.loops.size(); s-- > 0;) {
    if (t.loops[s] == -2) continue;
    LoopShape l = loopShape(c, p, t.loops[s], s);
    body = {cooperativeLoop(nm.along[grp.iters[s]], l.from, intLit(p.extent[s] - 1), intLit(l.step),
                            body)};
  }
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

StmtPtr ownStore(const StagedContext& c, size_t gi, const std::string& shared,
                 const std::string& reg, const ExprPtr& base) {
  const StagePlan& p = c.staging.groups[gi];
  return store(shared,
               fromBase(base, tileIndex(c, p, std::vector<int64_t>(p.group.iters.size(), 0))),
               var(reg, p.group.type));
}

ExprPtr groupValue(const StagedContext& c, const StagePlan& p, const ExprPtr& index) {
  ExprPtr v = load(c.site.readBuffer(p.group.array), index, p.group.type);
  if (!p.foldPartner) return v;
  return binary(p.foldOp, v, load(c.site.readBuffer(*p.foldPartner), index, p.group.type));
}

StmtPtr loadRegister(const StagedContext& c, size_t gi, const ExprPtr& plane,
                     const std::string& reg) {
  const StagePlan& p = c.staging.groups[gi];
  const StageGroup& grp = p.group;
  std::vector<ExprPtr> coords;
  for (size_t s = 0; s < grp.iters.size(); ++s)
    coords.push_back(grp.iters[s] < 0                     ? intLit(grp.fixed[s])
                     : static_cast<int>(s) == p.streamPos ? plane
                                                          : iterVar(c, grp.iters[s]));
  return ifThen(inArray(c, p, coords), {assign(reg, groupValue(c, p, globalIndex(c, p, coords)))});
}

}  // namespace tessel::gpu::staged
