// The stream family's kernel body (STENCILGEN's Algorithm 1): the block's tile of a plane and
// its chunk of planes, then a sweep plane by plane in which every staged group's window moves
// one plane ahead: its leading plane loaded into a register or the ring of shared planes, the
// statement computed, the register planes rotated.
#include <fmt/format.h>

#include "lower/lower_gpu_staged_parts.h"

namespace tessel::gpu::staged {

using namespace lir;

namespace {

/// Builds the sweep: what runs before it, the loads of each plane's leading planes and the
/// rotation of the registers, group by group.
class StreamSweep {
 public:
  explicit StreamSweep(const StagedContext& c) : c_(c) {}

  std::vector<StmtPtr> body(const std::vector<StmtPtr>& compute);

 private:
  const StagedContext& c_;
  std::vector<StmtPtr> before_;  // before the sweep: the block's origin, the window's first planes
  std::vector<StmtPtr> lead_;    // each plane: the leading plane of every window
  std::vector<StmtPtr> shift_;   // each plane, after the statement: the register rotation

  /// The block's origin, the thread's point and the block's first and last plane.
  void blockStart();
  /// Group gi's window of planes in registers.
  void registers(size_t gi);
  /// Group gi's window of planes in shared memory.
  void ring(size_t gi);
  /// The loop over the block's planes around `compute`.
  StmtPtr sweep(const std::vector<StmtPtr>& compute) const;
};

void StreamSweep::blockStart() {
  const GridShape& grid = c_.grid;
  const StagedNames& nm = c_.names;
  int s = grid.stream;
  before_.push_back(
      comment("The block's tile of a plane starts at t0; each thread owns one point."));
  for (size_t gd = 0; gd < grid.iters.size(); ++gd) {
    int d = grid.iters[gd];
    ExprPtr group = intrinsic(Intrinsic::GroupId, static_cast<int>(gd));
    before_.push_back(localDecl(
        CType::Int64, nm.t0[d],
        indexAdd(var(c_.lo[d], ScalarType::Int), indexMul(group, intLit(grid.block[gd])))));
  }
  for (size_t gd = 0; gd < grid.iters.size(); ++gd) {
    int d = grid.iters[gd];
    before_.push_back(localDecl(CType::Int64, c_.g.iters[d],
                                indexAdd(var(nm.t0[d], ScalarType::Int),
                                         intrinsic(Intrinsic::LocalId, static_cast<int>(gd)))));
  }
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
  if (c_.staging.sharedBytes > 0)
    before_.push_back(localDecl(CType::Int64, nm.tid, flatThreadId(grid)));
}

void StreamSweep::registers(size_t gi) {
  const StagePlan& p = c_.staging.groups[gi];
  const StagedNames::Group& nm = c_.names.groups[gi];
  const std::string& it = c_.g.iters[c_.grid.stream];
  ExprPtr first = var(c_.names.first, ScalarType::Int), cur = iterVar(c_, c_.grid.stream);
  before_.push_back(
      comment(fmt::format("'{}': planes {}..{} of the own point in registers.", p.group.name,
                          planeText(it, p.regLo), planeText(it, p.regHi))));
  for (size_t r = 0; r < nm.regs.size(); ++r)
    before_.push_back(localDecl(valueType(p.group.type), nm.regs[r], zeroOf(p.group.type), false));
  for (size_t r = 0; r + 1 < nm.regs.size(); ++r)
    before_.push_back(
        loadRegister(c_, gi, indexAddConst(first, p.regLo + static_cast<int64_t>(r)), nm.regs[r]));
  lead_.push_back(loadRegister(c_, gi, indexAddConst(cur, p.regHi), nm.regs.back()));
  for (size_t r = 0; r + 1 < nm.regs.size(); ++r)
    shift_.push_back(assign(nm.regs[r], var(nm.regs[r + 1], p.group.type)));
}

void StreamSweep::ring(size_t gi) {
  const StagePlan& p = c_.staging.groups[gi];
  const StagedNames::Group& nm = c_.names.groups[gi];
  const std::string& it = c_.g.iters[c_.grid.stream];
  const std::string& name = p.group.name;
  ExprPtr first = var(c_.names.first, ScalarType::Int), cur = iterVar(c_, c_.grid.stream);
  if (p.sharedPlanes() == 1) {
    before_.push_back(comment(fmt::format("'{}': plane {} in shared memory, loaded at each step.",
                                          name, planeText(it, p.sharedHi))));
  } else if (p.sharedPlanes() > 1) {
    before_.push_back(comment(fmt::format(
        "'{}': planes {}..{} in a ring of shared planes (slot: plane mod {}); the first {} "
        "loaded before the sweep.",
        name, planeText(it, p.sharedLo), planeText(it, p.sharedHi), p.sharedPlanes(),
        p.sharedPlanes() - 1)));
  }
  if (p.sharedPlanes() == 0) return;
  // The window's first planes, each to its own slot of the ring: one phase.
  std::vector<StmtPtr> window;
  for (int64_t q = 0; q + 1 < p.sharedPlanes(); ++q) {
    ExprPtr plane = indexAddConst(first, p.sharedLo + q);
    for (auto& x : loadTile(c_, gi, plane, slotOf(p, plane))) window.push_back(x);
  }
  if (!window.empty()) before_.push_back(phaseBlock(std::move(window)));
  // The leading shared plane: where the shift register holds it (its register was loaded just
  // before), each thread stores its own point and the loop loads only the halo.
  ExprPtr plane = indexAddConst(cur, p.sharedHi);
  std::string own =
      p.ownFromRegisters ? nm.regs.at(static_cast<size_t>(p.sharedHi - p.regLo)) : std::string();
  // The own points and the halo are disjoint: one phase.
  lead_.push_back(phaseBlock(loadTile(c_, gi, plane, slotOf(p, plane), own)));
}

StmtPtr StreamSweep::sweep(const std::vector<StmtPtr>& compute) const {
  // Barriers: pass insert-barriers (before the leading plane's loads, which overwrite a slot
  // the previous plane's threads read, and before the compute, which reads them).
  std::vector<StmtPtr> loop = lead_;
  loop.push_back(ifThen(regionGuard(c_), compute));
  if (!shift_.empty()) {
    loop.push_back(comment("Rotate the register planes."));
    loop.insert(loop.end(), shift_.begin(), shift_.end());
  }
  return forLoop(c_.g.iters[c_.grid.stream], var(c_.names.first, ScalarType::Int),
                 var(c_.names.last, ScalarType::Int), LoopKind::Serial, loop);
}

std::vector<StmtPtr> StreamSweep::body(const std::vector<StmtPtr>& compute) {
  blockStart();
  for (size_t gi = 0; gi < c_.staging.groups.size(); ++gi) {
    const StagePlan& p = c_.staging.groups[gi];
    if (p.kind == StageKind::Tile) {
      before_.push_back(comment(
          fmt::format("Stage '{}' (the same for every plane): tile and halo.", p.group.name)));
      for (auto& x : loadTile(c_, gi, nullptr, nullptr)) before_.push_back(x);
      continue;
    }
    if (p.kind != StageKind::Planes) continue;
    if (!c_.names.groups[gi].regs.empty()) registers(gi);
    ring(gi);
  }
  std::vector<StmtPtr> b = std::move(before_);
  b.push_back(sweep(compute));
  return b;
}

}  // namespace

std::vector<StmtPtr> streamBody(const StagedContext& c, const std::vector<StmtPtr>& compute) {
  return StreamSweep(c).body(compute);
}

}  // namespace tessel::gpu::staged
