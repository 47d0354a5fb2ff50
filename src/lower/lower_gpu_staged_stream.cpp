// The stream family's kernel body (STENCILGEN's Algorithm 1): the block's tile of a plane and
// its chunk of planes, then a sweep plane by plane in which every staged group's window moves
// one plane ahead: its leading plane loaded into a register or the ring of shared planes, the
// statement computed, the register planes rotated.
#include <fmt/format.h>

#include "ir/loop_ir_walk.h"
#include "lower/lower_gpu_staged_parts.h"

namespace tessel::gpu::staged {

using namespace lir;

namespace {

/// Builds the sweep: what runs before it, the loads of each plane's leading planes and the
/// rotation of the registers, group by group. A group with shared planes keeps them in a ring
/// of one slot more than its window (StagePlan::ringSlots), each slot an array of its own, so
/// that a plane's leading load goes to the slot no thread reads any more: one barrier per
/// plane (insert-barriers sees that the load and the previous plane's reads touch different
/// arrays). The sweep is unrolled by the slots (the least common multiple over the groups), so
/// that every copy names its slots as constants: whole rounds of copies in a loop, then the
/// chunk's last planes, each copy guarded by the one before.
class StreamSweep {
 public:
  StreamSweep(const StagedContext& c,
              const std::function<std::vector<StmtPtr>(int, int)>& computeAt)
      : c_(c), computeAt_(computeAt), copies_(c.grid.copies()) {}

  std::vector<StmtPtr> body();

 private:
  const StagedContext& c_;
  const std::function<std::vector<StmtPtr>(int, int)>& computeAt_;
  std::vector<StmtPtr> before_;  // before the sweep: the block's origin, the window's first planes
  int64_t unroll_ = 1;           // copies per round: the rings' slots' least common multiple
  int copies_ = 1;               // points per thread and plane (GridShape::copies)

  /// `body` for each of the thread's points: as it is for one point (whose iterator variables
  /// the block's start declares); else one block per point declaring its iterator variables.
  std::vector<StmtPtr> perPoint(const std::function<std::vector<StmtPtr>(int copy)>& body) const;
  /// The block's origin, the thread's point and the block's first and last plane.
  void blockStart();
  /// Group gi's window of planes in registers: the planes before the first.
  void registers(size_t gi);
  /// Group gi's ring of shared planes: the window's first planes, each to its slot.
  void ring(size_t gi);
  /// Copy `phase` of the sweep's body, for the plane `k` the iterator variable names: each
  /// window's leading plane loaded, the statement computed, the registers rotated.
  std::vector<StmtPtr> plane(int phase) const;
  /// The loop over the block's planes.
  std::vector<StmtPtr> sweep() const;
};

void StreamSweep::blockStart() {
  const GridShape& grid = c_.grid;
  const StagedNames& nm = c_.names;
  int s = grid.stream;
  before_.push_back(comment(
      copies_ == 1
          ? std::string("The block's tile of a plane starts at t0; each thread owns one "
                        "point.")
          : fmt::format("The block's tile of a plane starts at t0; each thread owns {} "
                        "points of it ({}), each with registers of its own.",
                        copies_, grid.cyclic ? "cyclic: a block apart" : "blocked: consecutive")));
  for (size_t gd = 0; gd < grid.iters.size(); ++gd) {
    int d = grid.iters[gd];
    ExprPtr group = intrinsic(Intrinsic::GroupId, static_cast<int>(gd));
    before_.push_back(localDecl(
        CType::Int64, nm.t0[d],
        indexAdd(var(c_.lo[d], ScalarType::Int), indexMul(group, intLit(grid.tile(gd))))));
  }
  if (copies_ == 1)
    for (auto& x : declarePoint(c_, 0)) before_.push_back(x);
  ExprPtr lo = var(c_.lo[s], ScalarType::Int), hi = var(c_.hi[s], ScalarType::Int);
  if (grid.chunk == 0) {
    before_.push_back(comment(
        fmt::format("Serial streaming: the block sweeps every plane of {}.", c_.g.iters[s])));
    before_.push_back(localDecl(CType::Int64, nm.first, lo));
    before_.push_back(localDecl(CType::Int64, nm.last, hi));
  } else {
    before_.push_back(comment(
        fmt::format("Concurrent streaming: the block sweeps a chunk of {} planes.", grid.chunk)));
    ExprPtr chunk = intrinsic(Intrinsic::GroupId, static_cast<int>(grid.iters.size()));
    before_.push_back(
        localDecl(CType::Int64, nm.first, indexAdd(lo, indexMul(chunk, intLit(grid.chunk)))));
    before_.push_back(
        localDecl(CType::Int64, nm.last,
                  indexMin(indexAddConst(var(nm.first, ScalarType::Int), grid.chunk - 1), hi)));
  }
  if (needsFlatIndex(c_)) before_.push_back(localDecl(CType::Int64, nm.tid, flatThreadId(grid)));
}

std::vector<StmtPtr> StreamSweep::perPoint(
    const std::function<std::vector<StmtPtr>(int copy)>& body) const {
  if (copies_ == 1) return body(0);
  std::vector<StmtPtr> out;
  for (int u = 0; u < copies_; ++u) {
    std::vector<StmtPtr> b = body(u);
    if (b.empty()) continue;
    // The copy's point, only the iterators its statements use (a 1-D array along the streamed
    // iterator, strz[k], reads none: unused declarations would draw compiler warnings).
    const std::set<std::string> used = namesUsed(b);
    std::vector<StmtPtr> point;
    for (const StmtPtr& d : declarePoint(c_, u))
      if (used.count(d->name)) point.push_back(d);
    point.insert(point.end(), b.begin(), b.end());
    out.push_back(block(std::move(point)));
  }
  return out;
}

void StreamSweep::registers(size_t gi) {
  const StagePlan& p = c_.staging.groups[gi];
  const StagedNames::Group& nm = c_.names.groups[gi];
  const std::string& it = c_.g.iters[c_.grid.stream];
  ExprPtr first = indexAddConst(var(c_.names.first, ScalarType::Int), c_.sweepLo);
  before_.push_back(
      comment(fmt::format("'{}': planes {}..{} of the own point in registers.", p.group.name,
                          planeText(it, p.regLo), planeText(it, p.regHi))));
  for (const std::vector<std::string>& regs : nm.regs)
    for (const std::string& r : regs)
      before_.push_back(localDecl(valueType(p.group.type), r, zeroOf(p.group.type), false));
  for (auto& x : perPoint([&](int u) {
         std::vector<StmtPtr> b;
         const std::vector<std::string>& regs = nm.regs[static_cast<size_t>(u)];
         for (size_t r = 0; r + 1 < regs.size(); ++r)
           b.push_back(loadRegister(c_, gi, indexAddConst(first, p.regLo + static_cast<int64_t>(r)),
                                    regs[r]));
         return b;
       }))
    before_.push_back(x);
}

void StreamSweep::ring(size_t gi) {
  const StagePlan& p = c_.staging.groups[gi];
  const StagedNames::Group& nm = c_.names.groups[gi];
  const std::string& it = c_.g.iters[c_.grid.stream];
  const std::string& name = p.group.name;
  ExprPtr first = indexAddConst(var(c_.names.first, ScalarType::Int), c_.sweepLo);
  before_.push_back(comment(fmt::format(
      "'{}': plane{} {}{} in shared memory, {}{}.", name, p.sharedPlanes() == 1 ? "" : "s",
      planeText(it, p.sharedLo), p.sharedPlanes() == 1 ? "" : ".." + planeText(it, p.sharedHi),
      p.spareSlots > 0 && p.rolledRing
          ? fmt::format("a ring of {} slots in one array (one more than the planes: a plane "
                        "loads into the slot no thread reads any more; the sweep kept rolled, "
                        "the slot chosen per plane)",
                        p.ringSlots())
      : p.spareSlots > 0 ? fmt::format("a ring of {} slots (one more than the planes: a plane "
                                       "loads into the slot no thread reads any more)",
                                       p.ringSlots())
                         : fmt::format("{} slot{} (the sweep kept rolled: a barrier before each "
                                       "plane's load)",
                                       p.ringSlots(), p.ringSlots() == 1 ? "" : "s"),
      p.sharedPlanes() > 1
          ? fmt::format("; the first {} loaded before the sweep", p.sharedPlanes() - 1)
          : "")));
  // The window's first planes, each to its own slot of the ring: one phase.
  std::vector<StmtPtr> window;
  for (int64_t q = 0; q + 1 < p.sharedPlanes(); ++q) {
    ExprPtr plane = indexAddConst(first, p.sharedLo + q);
    // (A rolled ring holds only the plane streamed in: no window before the sweep.)
    for (auto& x : loadTile(c_, gi, plane, nm.slots.at(ringSlot(p, 0, p.sharedLo + q))))
      window.push_back(x);
  }
  if (!window.empty()) before_.push_back(phaseBlock(std::move(window)));
  // Prefetching (pass prefetch-planes): the registers start here, with the sweep's first plane.
  if (!nm.prefetch.empty())
    before_.push_back(planeStart({"'" + name + "'", nm.prefetch, "", nullptr, first}));
}

std::vector<StmtPtr> StreamSweep::plane(int phase) const {
  ExprPtr cur = iterVar(c_, c_.grid.stream);
  std::vector<StmtPtr> shift, slotDecls;
  // Each point's leading register planes (every group's), before the shared planes that may
  // take the thread's own points from them.
  std::vector<StmtPtr> lead = perPoint([&](int u) {
    std::vector<StmtPtr> b;
    for (size_t gi = 0; gi < c_.staging.groups.size(); ++gi) {
      const StagePlan& p = c_.staging.groups[gi];
      const StagedNames::Group& nm = c_.names.groups[gi];
      if (p.kind == StageKind::Planes && !nm.regs.empty())
        b.push_back(loadRegister(c_, gi, indexAddConst(cur, p.regHi),
                                 nm.regs[static_cast<size_t>(u)].back()));
    }
    return b;
  });
  for (size_t gi = 0; gi < c_.staging.groups.size(); ++gi) {
    const StagePlan& p = c_.staging.groups[gi];
    const StagedNames::Group& nm = c_.names.groups[gi];
    if (p.kind != StageKind::Planes) continue;
    for (const std::vector<std::string>& regs : nm.regs)
      for (size_t r = 0; r + 1 < regs.size(); ++r)
        shift.push_back(assign(regs[r], var(regs[r + 1], p.group.type)));
    if (p.sharedPlanes() == 0) continue;
    // The leading shared plane: where the shift registers hold it (they were loaded just
    // before), each thread stores its own points and the loop loads only the halo. The own
    // points and the halo are disjoint: one phase.
    // A rolled ring's slot is chosen per plane (its base in the one array); with a spare slot
    // the load is fresh: it writes the slot no thread reads any more, so no barrier before it.
    const ExprPtr leading = indexAddConst(cur, p.sharedHi);
    const std::string& slot =
        p.rolledRing ? nm.slots.at(0) : nm.slots.at(ringSlot(p, phase, p.sharedHi));
    ExprPtr base;
    if (p.rolledRing) {
      slotDecls.push_back(localDecl(CType::Int64, nm.slotBase, rolledSlotBase(c_, p, leading)));
      base = var(nm.slotBase, ScalarType::Int);
    }
    auto loads = [&](std::vector<StmtPtr> b) {
      return p.rolledRing && p.spareSlots > 0 ? freshBlock(std::move(b)) : phaseBlock(std::move(b));
    };
    std::vector<StmtPtr> own;
    if (p.ownFromRegisters)
      own = perPoint([&](int u) {
        return std::vector<StmtPtr>{ownStore(
            c_, gi, slot,
            nm.regs[static_cast<size_t>(u)].at(static_cast<size_t>(p.sharedHi - p.regLo)), base)};
      });
    StmtPtr load = loads(loadTile(c_, gi, leading, slot, own, base));
    // With prefetch, pass prefetch-planes loads it a plane ahead (into registers, while the
    // plane before is computed), where the sweep has a next plane.
    if (!nm.prefetch.empty()) {
      ExprPtr last = indexAddConst(var(c_.names.last, ScalarType::Int), c_.sweepHi);
      load = planeLoad(load, {"'" + p.group.name + "'", nm.prefetch, cur->name,
                              binary(Op::Lt, cur, last), nullptr});
    }
    lead.push_back(load);
  }
  // Barriers: pass insert-barriers (between the leading plane's loads and the compute, which
  // reads them).
  std::vector<StmtPtr> b;
  if (!slotDecls.empty())
    b.push_back(comment("The slot of the rolled ring the plane streamed in goes to."));
  b.insert(b.end(), slotDecls.begin(), slotDecls.end());
  b.insert(b.end(), lead.begin(), lead.end());
  for (auto& x : perPoint([&](int u) {
         return std::vector<StmtPtr>{ifThen(regionGuard(c_), computeAt_(phase, u))};
       }))
    b.push_back(x);
  if (!shift.empty()) {
    b.push_back(comment("Rotate the register planes."));
    b.insert(b.end(), shift.begin(), shift.end());
  }
  return b;
}

std::vector<StmtPtr> StreamSweep::sweep() const {
  const StagedNames& nm = c_.names;
  const std::string& k = c_.g.iters[c_.grid.stream];
  ExprPtr first = indexAddConst(var(nm.first, ScalarType::Int), c_.sweepLo),
          last = indexAddConst(var(nm.last, ScalarType::Int), c_.sweepHi);
  if (unroll_ == 1) return {forLoop(k, first, last, LoopKind::Serial, plane(0))};
  // Copy `phase` of the body: the plane base + phase. The plane and the round's first plane are
  // declared once (pass work-item-loops keeps a value that lives across a barrier per thread,
  // by its one name) and assigned in each copy.
  ExprPtr base = var(nm.base, ScalarType::Int);
  auto copy = [&](int phase) {
    std::vector<StmtPtr> b = {assign(k, indexAddConst(base, phase))};
    for (auto& s : plane(phase)) b.push_back(s);
    return b;
  };
  std::vector<StmtPtr> out;
  out.push_back(comment(fmt::format(
      "Whole rounds of {} planes, one copy of the body per plane: each names its ring slots.",
      unroll_)));
  out.push_back(
      localDecl(CType::Int64, nm.rounds,
                binary(Op::Div, indexAddConst(indexSub(last, first), 1), intLit(unroll_))));
  out.push_back(localDecl(CType::Int64, nm.base, first, false));
  out.push_back(localDecl(CType::Int64, k, first, false));
  std::vector<StmtPtr> round = {
      assign(nm.base, indexAdd(first, indexMul(var(nm.round, ScalarType::Int), intLit(unroll_))))};
  for (int phase = 0; phase < unroll_; ++phase) round.push_back(block(copy(phase)));
  out.push_back(forLoop(nm.round, intLit(0), indexAddConst(var(nm.rounds, ScalarType::Int), -1),
                        LoopKind::Serial, round));
  // The chunk's last planes (fewer than a round): copy p runs where plane base + p exists,
  // inside copy p - 1's condition, so that a barrier's state flows from the copy before.
  std::vector<StmtPtr> tail;
  for (int phase = static_cast<int>(unroll_) - 2; phase >= 0; --phase) {
    std::vector<StmtPtr> b = copy(phase);
    if (!tail.empty()) b.push_back(tail.front());
    tail = {ifThen(binary(Op::Le, indexAddConst(base, phase), last), b)};
  }
  out.push_back(comment("The last planes, fewer than a round."));
  out.push_back(
      assign(nm.base, indexAdd(first, indexMul(var(nm.rounds, ScalarType::Int), intLit(unroll_)))));
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

std::vector<StmtPtr> StreamSweep::body() {
  blockStart();
  for (size_t gi = 0; gi < c_.staging.groups.size(); ++gi) {
    const StagePlan& p = c_.staging.groups[gi];
    if (p.kind == StageKind::Tile) {
      before_.push_back(comment(
          fmt::format("Stage '{}' (the same for every plane): tile and halo.", p.group.name)));
      for (auto& x : loadTile(c_, gi, nullptr, c_.names.groups[gi].shared)) before_.push_back(x);
      continue;
    }
    if (p.kind != StageKind::Planes) continue;
    if (!c_.names.groups[gi].regs.empty()) registers(gi);
    if (p.sharedPlanes() > 0) ring(gi);
  }
  unroll_ = sweepCopies(c_.staging);
  std::vector<StmtPtr> b = std::move(before_);
  for (auto& s : sweep()) b.push_back(s);
  return b;
}

}  // namespace

std::vector<StmtPtr> streamBody(const StagedContext& c,
                                const std::function<std::vector<StmtPtr>(int, int)>& computeAt) {
  return StreamSweep(c, computeAt).body();
}

}  // namespace tessel::gpu::staged
