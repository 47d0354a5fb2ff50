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

std::vector<StmtPtr> loadTile(const StagedContext& c, size_t gi, const ExprPtr& plane,
                              const std::string& shared, const std::vector<StmtPtr>& ownStores) {
  const StagePlan& p = c.staging.groups[gi];
  const StageGroup& grp = p.group;
  const StagedNames& nm = c.names;
  size_t n = grp.iters.size();
  // Row-major over the tile's subscripts (the last fastest); the outermost needs no modulo.
  std::vector<int64_t> stride;
  int outer = tileStrides(p, stride);
  int64_t total = p.tileElements();
  // Per dimension: a loop per subscript from the thread's own index in steps of the block's
  // threads along it, the element's index the sum of its offsets times the strides (no
  // division); else one flat loop over the elements.
  const std::vector<int> loops = loopDims(c, p);
  ExprPtr elem = loops.empty() ? var(nm.elem, ScalarType::Int) : nullptr;
  std::vector<StmtPtr> body;
  std::vector<ExprPtr> coords(n);
  for (size_t s = 0; s < n; ++s) {
    int d = grp.iters[s];
    if (d < 0) {
      coords[s] = intLit(grp.fixed[s]);
    } else if (static_cast<int>(s) == p.streamPos) {
      coords[s] = plane;
    } else if (!loops.empty()) {
      ExprPtr y = loops[s] == -2 ? intLit(0) : var(nm.along[d], ScalarType::Int);
      body.push_back(
          localDecl(CType::Int64, nm.coord[d],
                    indexAdd(indexAddConst(var(nm.t0[d], ScalarType::Int), p.first[s]), y)));
      coords[s] = var(nm.coord[d], ScalarType::Int);
      if (loops[s] != -2) {
        ExprPtr term = stride[s] == 1 ? y : indexMul(y, intLit(stride[s]));
        elem = elem ? indexAdd(elem, term) : term;
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
      body.push_back(localDecl(CType::Int64, nm.coord[d], x));
      coords[s] = var(nm.coord[d], ScalarType::Int);
    }
  }
  std::vector<StmtPtr> out;
  ExprPtr cond = inArray(c, p, coords);
  if (!ownStores.empty()) {
    // The block's own points come from the registers; the loop loads the halo around them.
    out.insert(out.end(), ownStores.begin(), ownStores.end());
    if (ExprPtr halo = inHalo(c, p, coords)) cond = binary(Op::And, cond, halo);
  }
  std::string buf = c.site.readBuffer(grp.array);
  body.push_back(ifThen(cond, {store(shared, elem ? elem : intLit(0),
                                     load(buf, globalIndex(c, p, coords), grp.type))}));
  if (loops.empty()) {
    out.push_back(cooperativeLoop(nm.elem, var(nm.tid, ScalarType::Int), intLit(total - 1),
                                  intLit(c.threads), body));
    return out;
  }
  for (size_t s = n; s-- > 0;) {
    if (loops[s] == -2) continue;
    const int gd = loops[s];
    ExprPtr from = gd >= 0 ? intrinsic(Intrinsic::LocalId, gd) : intLit(0);
    ExprPtr step = intLit(gd >= 0 ? c.grid.block[static_cast<size_t>(gd)] : 1);
    body = {cooperativeLoop(nm.along[grp.iters[s]], from, intLit(p.extent[s] - 1), step, body)};
  }
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

StmtPtr ownStore(const StagedContext& c, size_t gi, const std::string& shared,
                 const std::string& reg) {
  const StagePlan& p = c.staging.groups[gi];
  return store(shared, tileIndex(c, p, std::vector<int64_t>(p.group.iters.size(), 0)),
               var(reg, p.group.type));
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
  std::string buf = c.site.readBuffer(grp.array);
  return ifThen(inArray(c, p, coords),
                {assign(reg, load(buf, globalIndex(c, p, coords), grp.type))});
}

}  // namespace tessel::gpu::staged
