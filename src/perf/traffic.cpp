// Traffic per point-update of each kernel (traffic.h).
#include "perf/traffic.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "analysis/accesses.h"
#include "analysis/counts.h"
#include "analysis/retiming.h"

namespace tessel {

namespace {

/// Points of the block's output tile (per plane when it sweeps): block x unroll.
int64_t blockPoints(const GpuKernelInfo& k) {
  int64_t n = 1;
  for (size_t gd = 0; gd < k.gridIters.size(); ++gd) n *= k.tileAlong(gd);
  return n;
}

/// Whether `g`'s references vary along every iterator of the program (no fixed plane, no
/// missing dimension): such an array's elements are read once per point from DRAM.
bool fullRank(const StageGroup& g, int dims) {
  std::set<int> iters;
  for (int it : g.iters)
    if (it >= 0) iters.insert(it);
  return static_cast<int>(iters.size()) == dims;
}

/// FLOPs per point of statement `st` retimed as `r` (analysis/retiming.h): its parts, each
/// product distributed over its sum, and one addition per part into its accumulator; the
/// statement's own where it cannot be retimed.
double retimedFlops(const Stmt& st, const Retiming& r) {
  if (!r.ok) return stmtFlops(st);
  Stmt parts = st;
  parts.rhs = planeReads(r);
  double flops = stmtFlops(parts) + static_cast<double>(r.parts.size());
  if (r.atOutput) {  // the terms evaluated at the output, and their addition to it
    Stmt own = st;
    own.op = AssignOp::Set;
    own.rhs = r.atOutput;
    flops += stmtFlops(own) + 1;
  }
  return flops;
}

}  // namespace

double groupLoads(const StagePlan& p, int64_t points, bool streamed, double planes) {
  const double n = static_cast<double>(points);
  switch (p.kind) {
    case StageKind::Global:
      return n * static_cast<double>(p.group.refs.size());
    case StageKind::Tile: {
      const double tile = static_cast<double>(p.tileElements());
      return !streamed ? tile : planes > 0 ? tile / planes : 0.0;
    }
    case StageKind::Planes: {
      // The leading shared plane (its halo only, when the registers bring the block's own
      // points) and the leading register plane per plane; a chunk's first planes spread over it.
      const double shared = p.sharedPlanes() > 0 ? static_cast<double>(p.tileElements()) : 0.0;
      const double regs = p.registerPlanes() > 0 ? n : 0.0;
      double loads = regs + shared - (p.ownFromRegisters ? n : 0.0);
      if (planes > 0)
        loads += (shared * static_cast<double>(p.sharedPlanes() - 1) +
                  regs * static_cast<double>(p.registerPlanes() - 1)) /
                 planes;
      return loads;
    }
  }
  return 0;
}

Traffic statementTraffic(const Program& prog, const GpuKernelInfo& k, const StmtStaging& staging) {
  const CallInst& call = prog.calls.at(static_cast<size_t>(k.call));
  const Stmt& st = call.stmts.at(static_cast<size_t>(k.stmt));
  const int64_t points = blockPoints(k);
  const double n = static_cast<double>(points);
  const bool streamed = k.streamIter >= 0;
  const double planes = streamed && k.chunk > 0 ? k.chunk : 0;
  Traffic t;
  const std::optional<Retiming> rt =
      k.retimed ? std::optional<Retiming>(retime(prog, call, st, k.streamIter)) : std::nullopt;
  t.flops = t.usefulFlops = rt ? retimedFlops(st, *rt) : stmtFlops(st);
  t.fp64 = st.lhs->type == ScalarType::Double;
  std::set<ArrayId> inDram;                     // arrays whose compulsory read is counted
  double l1 = 0, l2 = 0, shared = 0, dram = 0;  // bytes per block (and plane)
  if (rt && rt->ok && rt->atOutput) {
    // The terms that read the array the statement writes, evaluated at the output from global
    // memory: each distinct access once per point.
    std::set<std::string> seen;
    const std::vector<std::string> names = prog.iteratorNames();
    visitExpr(rt->atOutput, [&](const ExprPtr& x) {
      if (x->kind != ExprKind::ArrayRef || !seen.insert(toString(x, names)).second) return;
      const double w = typeBytes(x->type);
      l1 += n * w, l2 += n * w;
      if (inDram.insert(x->array).second) dram += n * w;
    });
  }
  for (const StagePlan& p : staging.groups) {
    const double w = typeBytes(p.group.type);
    // A folded group (analysis/folding.h) loads its partner's elements with its own.
    const double arrays = p.foldPartner ? 2 : 1;
    const double loads = groupLoads(p, points, streamed, planes);
    l1 += loads * w * arrays;
    // Read from global memory, a group's distinct elements reach the SM once per block.
    l2 +=
        (p.kind == StageKind::Global ? static_cast<double>(p.tileElements()) : loads) * w * arrays;
    double refsInShared = 0;
    for (const Reference& r : p.group.refs)
      if (p.kind == StageKind::Tile ||
          (p.kind == StageKind::Planes &&
           p.planeInShared[static_cast<size_t>(r.offset(static_cast<size_t>(p.streamPos)) -
                                               p.group.lo[static_cast<size_t>(p.streamPos)])]))
        ++refsInShared;
    t.sharedLoads += refsInShared;
    if (p.kind == StageKind::Tile) shared += (loads + n * refsInShared) * w;
    if (p.kind == StageKind::Planes)
      shared += ((p.sharedPlanes() > 0 ? static_cast<double>(p.tileElements()) : 0.0) +
                 n * refsInShared) *
                w;
    if (fullRank(p.group, prog.dims()) && inDram.insert(p.group.array).second) dram += n * w;
    if (p.foldPartner && fullRank(p.group, prog.dims()) && inDram.insert(*p.foldPartner).second)
      dram += n * w;
  }
  // Per-point local scalars live in device buffers: one element per point each way.
  std::set<int> scalars;
  const StmtAccesses acc = stmtAccesses(st);
  for (const Reference& r : acc.reads)
    if (r.scalar && scalars.insert(r.index).second) {
      const double w = typeBytes(call.localScalars.at(static_cast<size_t>(r.index)).type);
      l1 += n * w, l2 += n * w, dram += n * w;
    }
  const double lw = typeBytes(st.lhs->type);
  if (st.op != AssignOp::Set && !acc.write.scalar) {
    l1 += n * lw, l2 += n * lw;  // the compound assignment's read of its own point
    if (inDram.insert(acc.write.array).second) dram += n * lw;
  }
  t.storeBytes = lw;
  t.dramBytes = dram / n + lw;
  t.l1Bytes = l1 / n;
  t.l2Bytes = l2 / n;
  t.sharedBytes = shared / n;
  return t;
}

Traffic fusedStatementTraffic(const Program& prog, const GpuKernelInfo& k,
                              const std::vector<const StmtStaging*>& stagings,
                              const std::vector<bool>& inRegister) {
  const CallInst& call = prog.calls.at(static_cast<size_t>(k.call));
  const double n = static_cast<double>(blockPoints(k));
  Traffic t;
  std::map<ArrayId, double> l2;       // bytes per block reaching the SM, per array
  std::set<ArrayId> inDram, written;  // arrays read from DRAM, and written, so far
  std::set<ArrayId> storedArrays;
  std::set<int> scalarsRead, storedScalars;  // buffered local scalars read, stored
  double l1 = 0, dram = 0, l2Scalars = 0;
  auto dramRead = [&](ArrayId a, double w) {
    if (!written.count(a) && inDram.insert(a).second) dram += n * w;
  };
  for (size_t i = 0; i < k.fusedStmts.size(); ++i) {
    const Stmt& st = call.stmts.at(k.fusedStmts[i]);
    t.flops += stmtFlops(st);
    t.fp64 = t.fp64 || st.lhs->type == ScalarType::Double;
    for (const StagePlan& p : stagings.at(i)->groups) {
      const double w = typeBytes(p.group.type);
      const double arrays = p.foldPartner ? 2 : 1;
      const double loads = groupLoads(p, static_cast<int64_t>(n), false, 0);
      l1 += loads * w * arrays;
      double& a = l2[p.group.array];
      a = std::max(
          a, (p.kind == StageKind::Global ? static_cast<double>(p.tileElements()) : loads) * w *
                 arrays);
      if (fullRank(p.group, prog.dims())) {
        dramRead(p.group.array, w);
        if (p.foldPartner) dramRead(*p.foldPartner, w);
      }
    }
    const StmtAccesses acc = stmtAccesses(st);
    for (const Reference& r : acc.reads)
      if (r.scalar && !inRegister.at(static_cast<size_t>(r.index)) &&
          scalarsRead.insert(r.index).second) {
        const double w = typeBytes(call.localScalars.at(static_cast<size_t>(r.index)).type);
        l1 += n * w, l2Scalars += n * w, dram += n * w;
      }
    const double lw = typeBytes(st.lhs->type);
    if (acc.write.scalar) {
      if (!inRegister.at(static_cast<size_t>(acc.write.index)) &&
          storedScalars.insert(acc.write.index).second)
        t.storeBytes += lw;
      continue;
    }
    if (st.op != AssignOp::Set) {
      l1 += n * lw;
      double& a = l2[acc.write.array];
      a = std::max(a, n * lw);
      dramRead(acc.write.array, lw);
    }
    written.insert(acc.write.array);
    if (storedArrays.insert(acc.write.array).second) t.storeBytes += lw;
  }
  t.usefulFlops = t.flops;
  double l2Sum = l2Scalars;
  for (const auto& [a, bytes] : l2) l2Sum += bytes;
  t.dramBytes = dram / n + t.storeBytes;
  t.l1Bytes = l1 / n;
  t.l2Bytes = l2Sum / n;
  return t;
}

std::vector<FusedLoad> fusedLoads(const Program& prog, const GpuKernelInfo& k,
                                  const TileAnalysis& a) {
  std::vector<FusedLoad> out;
  std::set<int> loaded;
  if (k.streamIter < 0)
    for (const TileHull& h : a.hulls) {
      int src =
          h.value.kind == TileValue::Kind::Global ? h.value.index
          : h.value.kind == TileValue::Kind::LocalArray
              ? prog.calls
                    .at(static_cast<size_t>(k.fusedCalls.at(static_cast<size_t>(h.value.step))))
                    .localArrays.at(static_cast<size_t>(h.value.index))
                    .scratchOf
              : -1;
      // Interior loads: the hull minus what the value's first writer overwrites unread.
      if (src >= 0 && loaded.insert(src).second && h.loads > 0)
        out.push_back({src, h.box, h.loads});
    }
  // Streamed: the input rings, per plane.
  for (const TileInput& in : a.inputs)
    if (loaded.insert(in.array).second) out.push_back({in.array, in.footprint, in.points});
  return out;
}

Traffic fusedTraffic(const Program& prog, const GpuKernelInfo& k, const TileAnalysis& a) {
  Traffic t;
  t.steps = static_cast<int>(k.fusedCalls.size());
  const double updates = static_cast<double>(a.totals.tilePoints) * t.steps;
  if (updates <= 0) return t;
  const int dims = prog.dims();
  auto width = [&](int array) {
    return static_cast<double>(typeBytes(prog.arrays.at(static_cast<size_t>(array)).type));
  };
  auto full = [&](int array) {
    return static_cast<int>(prog.arrays.at(static_cast<size_t>(array)).extents.size()) == dims;
  };
  const double tile = static_cast<double>(a.totals.tilePoints);
  double loads = 0, dram = 0;
  for (const FusedLoad& l : fusedLoads(prog, k, a)) {
    loads += static_cast<double>(l.points) * width(l.array);
    if (full(l.array)) dram += tile * width(l.array);
  }
  double stores = 0;
  for (int r : a.results) stores += tile * width(r);
  // Every value the stages read from on-chip buffers: in shared memory unless the analysis
  // keeps it in registers (read only at the centre, streamed kernels); the loaded elements and
  // each stage's results are stored there once.
  double shared = loads;
  for (const TileStage& s : a.stages) {
    if (s.region.empty) continue;
    const Stmt& st =
        prog.calls.at(static_cast<size_t>(s.call)).stmts.at(static_cast<size_t>(s.stmt));
    const double points = static_cast<double>(s.points);
    const double w = typeBytes(st.lhs->type);
    const double flops = s.retimed ? retimedFlops(st, s.retimed->retiming) : stmtFlops(st);
    t.flops += flops * points;
    t.fp64 = t.fp64 || st.lhs->type == ScalarType::Double;
    t.usefulFlops += flops * tile;
    auto inShared = [&](const TileValue& v) {
      if (k.streamIter < 0)  // tiled: every value has its hull in shared memory, or registers
        return std::none_of(a.hulls.begin(), a.hulls.end(),
                            [&](const TileHull& h) { return h.value == v && h.inRegisters; });
      for (const TileBuffer& b : a.buffers)
        if (b.value == v) return b.shared;
      return false;
    };
    if (inShared(s.writes)) shared += points * w;
    // A retimed stage reads each point of the newest plane once for all its parts (its
    // accesses all read that plane: the same element counts once).
    std::vector<Reference> seen;
    for (const Reference& r : s.accesses.reads) {
      if (r.lhs || !inShared(valueOf(r, s.step))) continue;
      if (s.retimed && std::find(seen.begin(), seen.end(), r) != seen.end()) continue;
      seen.push_back(r);
      shared += points * w;
      t.sharedLoads += points;
    }
  }
  t.flops /= updates;
  t.usefulFlops /= updates;
  t.l1Bytes = t.l2Bytes = loads / updates;
  t.dramBytes = (dram + stores) / updates;
  t.storeBytes = stores / updates;
  t.sharedBytes = shared / updates;
  t.sharedLoads /= updates;
  return t;
}

}  // namespace tessel
