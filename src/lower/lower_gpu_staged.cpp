// A statement's staged kernel (lower_gpu_staged.h): the staging plan and the kernel's names,
// the reads the staging replaces, the shared arrays and block shape the kernel declares, its
// description, and the shared family's body (the block's tile staged, then each thread's
// points).
#include "lower/lower_gpu_staged.h"

#include <fmt/format.h>

#include <algorithm>

#include "lower/lower_gpu_staged_parts.h"

namespace tessel::gpu {

using namespace lir;
using namespace staged;

namespace {

/// "m1", "0", "p2": a plane offset in a name.
std::string offsetTag(int64_t o) {
  return o < 0 ? fmt::format("m{}", -o) : o > 0 ? fmt::format("p{}", o) : "0";
}

/// The kernel's names, taken from `scope` in a fixed order.
StagedNames nameStaging(const StmtStaging& staging, const GlobalNames& g, const GridShape& grid,
                        int dims, Namer& scope) {
  StagedNames nm;
  nm.t0.assign(static_cast<size_t>(dims), "");
  for (int it : grid.iters) nm.t0[it] = scope.take("t0_" + g.iters[it]);
  nm.tid = scope.take("tid");
  nm.elem = scope.take("e");
  for (int d = 0; d < dims; ++d) nm.coord.push_back(scope.take("x_" + g.iters[d]));
  for (int d = 0; d < dims; ++d) nm.along.push_back(scope.take("y_" + g.iters[d]));
  for (size_t gd = 0; gd < grid.iters.size(); ++gd)
    nm.unroll.push_back(grid.unroll[gd] > 1 ? scope.take("u_" + g.iters[grid.iters[gd]]) : "");
  if (grid.stream >= 0) {
    nm.first = scope.take("first_" + g.iters[grid.stream]);
    nm.last = scope.take("last_" + g.iters[grid.stream]);
    nm.rounds = scope.take("rounds");
    nm.round = scope.take("round");
    nm.base = scope.take("base_" + g.iters[grid.stream]);
  }
  for (auto& p : staging.groups) {
    StagedNames::Group gn;
    if (p.kind == StageKind::Planes && p.rolledRing && p.ringSlots() > 0) {
      gn.slots.push_back(scope.take("s_" + p.group.name));  // one array, the slot per plane
      gn.slotBase = scope.take("slot_" + p.group.name);
    } else if (p.kind == StageKind::Planes) {
      for (int64_t q = 0; q < p.ringSlots(); ++q)
        gn.slots.push_back(scope.take(fmt::format("s_{}_{}", p.group.name, q)));
    } else if (p.sharedElements() > 0) {
      gn.shared = scope.take("s_" + p.group.name);
    }
    const int copies = grid.copies();
    for (int u = 0; u < copies && p.regLo <= p.regHi; ++u) {
      gn.regs.emplace_back();
      for (int64_t o = p.regLo; o <= p.regHi; ++o)
        gn.regs.back().push_back(
            scope.take(copies == 1 ? fmt::format("r_{}_{}", p.group.name, offsetTag(o))
                                   : fmt::format("r_{}_{}_u{}", p.group.name, offsetTag(o), u)));
    }
    nm.groups.push_back(gn);
  }
  return nm;
}

int blockThreads(const GridShape& grid) {
  int n = 1;
  for (size_t gd = 0; gd < grid.iters.size(); ++gd) n *= grid.block[gd];
  return n;
}

/// The shared family's body: the block's tile origin, its staged tiles loaded by the whole
/// block, a barrier, then each thread's unroll[gd] points along grid dimension gd (blocked:
/// consecutive; cyclic: a block apart), guarded against the region's upper bounds.
std::vector<StmtPtr> sharedBody(const StagedContext& c, const std::vector<StmtPtr>& compute) {
  const GridShape& grid = c.grid;
  const StagedNames& nm = c.names;
  std::vector<StmtPtr> b;
  b.push_back(comment("The block's tile starts at t0."));
  for (size_t gd = 0; gd < grid.iters.size(); ++gd) {
    int it = grid.iters[gd];
    ExprPtr group = intrinsic(Intrinsic::GroupId, static_cast<int>(gd));
    b.push_back(localDecl(
        CType::Int64, nm.t0[it],
        indexAdd(var(c.lo[it], ScalarType::Int), indexMul(group, intLit(grid.tile(gd))))));
  }
  if (needsFlatIndex(c)) b.push_back(localDecl(CType::Int64, nm.tid, flatThreadId(grid)));
  for (size_t gi = 0; gi < c.staging.groups.size(); ++gi) {
    if (c.staging.groups[gi].kind != StageKind::Tile) continue;
    b.push_back(comment(fmt::format("Stage '{}': tile and halo, loaded by the whole block.",
                                    c.staging.groups[gi].group.name)));
    for (auto& x : loadTile(c, gi, nullptr, nm.groups[gi].shared)) b.push_back(x);
  }
  std::vector<StmtPtr> inner;
  ExprPtr inTile;  // input and mixed perspectives: the thread's point is in the output tile
  for (size_t gd = 0; gd < grid.iters.size(); ++gd) {
    int it = grid.iters[gd], e = grid.unroll[gd], bl = grid.block[gd];
    ExprPtr l = intrinsic(Intrinsic::LocalId, static_cast<int>(gd));
    if (e > 1) {
      ExprPtr u = var(nm.unroll[gd], ScalarType::Int);
      l = grid.cyclic ? indexAdd(l, indexMul(u, intLit(bl))) : indexAdd(indexMul(l, intLit(e)), u);
    }
    if (grid.haloLo[gd] + grid.haloHi[gd] > 0) {
      // A thread per element of the input tile: the first haloLo ones (and the last haloHi)
      // only load.
      ExprPtr lid = intrinsic(Intrinsic::LocalId, static_cast<int>(gd));
      inTile = allOf(inTile, binary(Op::And, binary(Op::Ge, lid, intLit(grid.haloLo[gd])),
                                    binary(Op::Lt, lid, intLit(grid.haloLo[gd] + grid.tile(gd)))));
      l = indexAddConst(l, -grid.haloLo[gd]);
    }
    inner.push_back(
        localDecl(CType::Int64, c.g.iters[it], indexAdd(var(nm.t0[it], ScalarType::Int), l)));
  }
  if (inTile) b.push_back(comment("Input perspective: the threads of the halo only load (above)."));
  inner.push_back(ifThen(allOf(inTile, regionGuard(c)), compute));
  for (size_t gd = grid.iters.size(); gd-- > 0;)
    if (grid.unroll[gd] > 1)
      inner = {forLoop(nm.unroll[gd], intLit(0), intLit(grid.unroll[gd] - 1), LoopKind::Unrolled,
                       inner)};
  b.insert(b.end(), inner.begin(), inner.end());
  return b;
}

}  // namespace

StagedKernel::StagedKernel(const Program& prog, const CallInst& call, const StmtStaging& staging,
                           const GlobalNames& g, const GridShape& grid,
                           const std::vector<std::string>& lo, const std::vector<std::string>& hi,
                           Namer& scope, KernelSite& site)
    : c_{prog, call, g, grid, lo, hi, site, staging, {}, blockThreads(grid)} {
  c_.names = nameStaging(c_.staging, g, grid, prog.dims(), scope);
  // Prefetching: each leading shared plane's load marked for pass prefetch-planes.
  if (grid.prefetch && grid.family == ScheduleFamily::Stream)
    for (size_t gi = 0; gi < c_.staging.groups.size(); ++gi) {
      const StagePlan& p = c_.staging.groups[gi];
      if (p.kind == StageKind::Planes && p.sharedPlanes() > 0)
        c_.names.groups[gi].prefetch = scope.take("pf_" + p.group.name);
    }
}

ExprPtr StagedKernel::read(const Expr& ref) const {
  int gi = groupOf(c_.staging, ref);
  if (gi < 0) internal("a reference to '" + ref.name + "' outside the staging analysis");
  const StagePlan& p = c_.staging.groups[gi];
  if (p.kind == StageKind::Global) {
    if (!p.foldPartner) return nullptr;
    // A folded group read from global memory: both arrays' elements, combined.
    std::vector<ExprPtr> coords;
    for (const Subscript& s : ref.subs)
      coords.push_back(s.fixed() ? intLit(s.offset)
                                 : indexAddConst(staged::iterVar(c_, s.iter), s.offset));
    return staged::groupValue(c_, p, staged::globalIndex(c_, p, coords));
  }
  std::vector<int64_t> offs;
  for (auto& s : ref.subs) offs.push_back(s.fixed() ? 0 : s.offset);
  const StagedNames::Group& nm = c_.names.groups[gi];
  if (p.kind == StageKind::Tile) return load(nm.shared, tileIndex(c_, p, offs), ref.type);
  int64_t o = offs[p.streamPos];
  if (!p.planeInShared[o - p.group.lo[p.streamPos]])
    return var(nm.regs.at(copy_).at(o - p.regLo), ref.type);
  // The plane's slot: chosen per plane in a rolled ring, else in this copy of the sweep
  // (lower_gpu_staged_stream.cpp).
  if (p.rolledRing) {
    if (o != p.sharedHi || p.sharedPlanes() != 1)
      internal("a rolled ring of more than the plane streamed in");
    return load(nm.slots.at(0), indexAdd(var(nm.slotBase, ScalarType::Int), tileIndex(c_, p, offs)),
                ref.type);
  }
  return load(nm.slots.at(ringSlot(p, phase_, o)), tileIndex(c_, p, offs), ref.type);
}

void StagedKernel::declare(Function& f) const {
  for (size_t i = 0; i < c_.staging.groups.size(); ++i) {
    const StagePlan& p = c_.staging.groups[i];
    if (p.kind == StageKind::Planes) {
      for (const std::string& slot : c_.names.groups[i].slots)
        f.shared.push_back(sharedArray(ctypeOf(p.group.type), slot,
                                       p.rolledRing ? p.sharedElements() : p.tileElements()));
    } else if (p.sharedElements() > 0) {
      f.shared.push_back(
          sharedArray(ctypeOf(p.group.type), c_.names.groups[i].shared, p.sharedElements()));
    }
  }
  f.requiredBlock = {1, 1, 1};
  for (size_t gd = 0; gd < c_.grid.iters.size(); ++gd) f.requiredBlock[gd] = c_.grid.block[gd];
  // At least half of a multiprocessor's 2048 threads resident: on CUDA, registers are capped
  // at 64 per thread for 256-thread blocks, as without launch bounds (a block size alone
  // lets ptxas pick a tighter cap, and spill). At most 16 blocks: every GPU since Kepler
  // holds that many per multiprocessor (ptxas ignores a larger value, with a warning).
  f.minBlocksPerSm = std::clamp(1024 / c_.threads, 1, 16);
}

int StagedKernel::sweepCopies() const {
  return c_.grid.family == ScheduleFamily::Stream ? staged::sweepCopies(c_.staging) : 1;
}

std::string StagedKernel::describe() const {
  std::string out;
  const std::string& it = c_.grid.stream >= 0 ? c_.g.iters[c_.grid.stream] : std::string();
  for (auto& p : c_.staging.groups)
    out += (out.empty() ? "" : "\n") + p.group.name + ": " + describePlan(p, it);
  return out;
}

std::vector<StmtPtr> StagedKernel::body(
    const std::function<std::vector<StmtPtr>(int phase, int copy)>& computeAt) {
  auto at = [&](int phase, int copy) {
    phase_ = phase;
    copy_ = copy;
    std::vector<StmtPtr> b = computeAt(phase, copy);
    phase_ = copy_ = 0;
    return b;
  };
  if (c_.grid.family == ScheduleFamily::Stream) return streamBody(c_, at);
  return sharedBody(c_, at(0, 0));
}

}  // namespace tessel::gpu
