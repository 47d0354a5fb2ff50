// Staging analysis: the groups of a statement's references and where each lives (see staging.h).
#include "analysis/staging.h"

#include <algorithm>
#include <stdexcept>

#include "support/saturating.h"

namespace tessel {

bool StageGroup::offCentre() const {
  return std::any_of(refs.begin(), refs.end(), [](const Reference& r) { return r.offCentre(); });
}

int StageGroup::position(int iter) const {
  for (size_t p = 0; p < iters.size(); ++p)
    if (iters[p] == iter) return static_cast<int>(p);
  return -1;
}

std::vector<StageGroup> stageGroups(const Program& prog, const CallInst& call, const Stmt& st) {
  std::vector<StageGroup> out;
  for (const Reference& r : stmtAccesses(st).reads) {
    if (r.scalar || r.lhs) continue;
    std::vector<int> iters;
    std::vector<int64_t> fixed;
    for (auto& s : r.subs) {
      iters.push_back(s.iter);
      fixed.push_back(s.fixed() ? s.offset : 0);
    }
    auto g = std::find_if(out.begin(), out.end(), [&](const StageGroup& x) {
      return x.array == r.array && x.iters == iters && x.fixed == fixed;
    });
    if (g == out.end()) {
      StageGroup n;
      n.array = r.array;
      n.name = prog.arrayName(call, r.array);
      n.type = prog.elementType(call, r.array);
      n.iters = iters;
      n.fixed = fixed;
      for (size_t p = 0; p < r.subs.size(); ++p) n.lo.push_back(r.offset(p));
      n.hi = n.lo;
      out.push_back(n);
      g = out.end() - 1;
    }
    if (std::find(g->refs.begin(), g->refs.end(), r) == g->refs.end()) g->refs.push_back(r);
    for (size_t p = 0; p < r.subs.size(); ++p) {
      g->lo[p] = std::min(g->lo[p], r.offset(p));
      g->hi[p] = std::max(g->hi[p], r.offset(p));
    }
  }
  return out;
}

int64_t StagePlan::tileElements() const {
  int64_t n = 1;
  for (int64_t e : extent) n = satMul(n, e);
  return n;
}

int64_t StagePlan::sharedElements() const {
  switch (kind) {
    case StageKind::Global:
      return 0;
    case StageKind::Tile:
      return tileElements();
    case StageKind::Planes:
      return satMul(tileElements(), ringSlots());
  }
  return 0;
}

namespace {

/// The tile of group g over the block's tile: per subscript, the block's extent widened by the
/// offsets of the references `use` selects (all of them when empty); streamed and constant
/// subscripts have extent 1.
void tileOf(StagePlan& p, const std::vector<int64_t>& tile, int streamPos,
            const std::vector<Reference>& use) {
  const StageGroup& g = p.group;
  size_t n = g.iters.size();
  p.extent.assign(n, 1);
  p.first.assign(n, 0);
  for (size_t s = 0; s < n; ++s) {
    if (g.iters[s] < 0 || static_cast<int>(s) == streamPos) continue;
    int64_t lo = use.front().offset(s), hi = lo;
    for (auto& r : use) lo = std::min(lo, r.offset(s)), hi = std::max(hi, r.offset(s));
    p.first[s] = lo;
    p.extent[s] = tile.at(g.iters[s]) + hi - lo;
  }
}

}  // namespace

StmtStaging planStaging(const Program& prog, const CallInst& call, const Stmt& st,
                        const std::vector<int64_t>& tile, int streamIter, bool onChip) {
  if (static_cast<int>(tile.size()) != prog.dims())
    throw std::invalid_argument("planStaging: one tile extent per iterator");
  StmtStaging out;
  for (StageGroup& g : stageGroups(prog, call, st)) {
    StagePlan p;
    p.group = std::move(g);
    const StageGroup& grp = p.group;
    int sp = streamIter >= 0 ? grp.position(streamIter) : -1;
    // A window of more planes than any machine's shared memory could hold as a ring (a read
    // 2^16 planes from another) is read from global memory: its bookkeeping alone, a flag per
    // plane, would take time and memory in proportion to the offset.
    constexpr int64_t kMostPlanes = int64_t{1} << 16;
    const bool hugeWindow = sp >= 0 && grp.hi[sp] - grp.lo[sp] >= kMostPlanes;
    if (!onChip || !grp.offCentre() || hugeWindow) {
      // From global memory: each thread reads its own element once, or (not on chip) every
      // element its references name.
      tileOf(p, tile, sp, grp.refs);
    } else if (sp < 0) {
      // The same for every plane (or no streaming): one tile.
      p.kind = StageKind::Tile;
      tileOf(p, tile, -1, grp.refs);
    } else {
      p.kind = StageKind::Planes;
      p.streamPos = sp;
      int64_t lo = grp.lo[sp], hi = grp.hi[sp];
      p.planeInShared.assign(static_cast<size_t>(hi - lo + 1), false);
      std::vector<bool> read(p.planeInShared.size(), false);
      std::vector<Reference> sharedRefs;
      for (auto& r : grp.refs) {
        size_t k = static_cast<size_t>(r.offset(sp) - lo);
        read[k] = true;
        if (r.offCentre(streamIter)) p.planeInShared[k] = true;
      }
      // Every reference to a shared plane reads it there: the tile covers them all.
      for (auto& r : grp.refs)
        if (p.planeInShared[static_cast<size_t>(r.offset(sp) - lo)]) sharedRefs.push_back(r);
      for (int64_t o = lo; o <= hi; ++o) {
        size_t k = static_cast<size_t>(o - lo);
        if (!read[k]) continue;
        if (p.planeInShared[k]) {
          if (p.sharedHi < p.sharedLo) p.sharedLo = o;
          p.sharedHi = o;
        } else {
          if (p.regHi < p.regLo) p.regLo = o;
          p.regHi = o;
        }
      }
      p.ownFromRegisters = p.sharedPlanes() > 0 && p.regLo <= p.sharedHi && p.sharedHi <= p.regHi;
      // The plane's tile: the hull of the references that read shared planes, and the centre
      // when the threads store their own points into it (or when no reference reads shared).
      if (sharedRefs.empty() || p.ownFromRegisters) {
        Reference centre = grp.refs.front();
        for (Subscript& s : centre.subs) s.offset = s.fixed() ? s.offset : 0;
        sharedRefs.push_back(centre);
      }
      tileOf(p, tile, sp, sharedRefs);
      out.registerPlanes += p.registerPlanes();
    }
    out.sharedBytes = satAdd(out.sharedBytes, satMul(p.sharedElements(), typeBytes(grp.type)));
    out.groups.push_back(std::move(p));
  }
  return out;
}

}  // namespace tessel
