// Each kernel's figures from the resolved schedule's analyses (kernel_figures.h); fused
// variants: kernel_figures_fused.cpp.
#include "perf/kernel_figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "analysis/counts.h"
#include "analysis/staging.h"
#include "analysis/stmt_fusion.h"
#include "perf/traffic.h"
#include "support/saturating.h"

namespace tessel {

namespace {

std::string stmtText(const Program& prog, int callIndex, int stmt) {
  const CallInst& c = prog.calls.at(callIndex);
  const Stmt& st = c.stmts.at(stmt);
  return fmt::format("call {} ({}), statement {}: {}", callIndex, c.name, stmt + 1,
                     statementText(prog, c, st));
}

/// A per-statement kernel, from the statement's staging as resolved (ResolvedSchedule::staging).
/// A group staged on chip (shared, stream) is loaded once per block (per plane when streamed:
/// the leading plane, and for a chunk its first planes; a shared plane the register chain holds
/// loads only its halo); a group read from global memory is loaded by each point, once per
/// reference (global, global-stream: at all its offsets; staged families: at its centre).
KernelReport statementReport(const Program& prog, const GpuKernelInfo& k,
                             const ResolvedSchedule& resolved) {
  KernelReport r;
  r.info = k;
  r.computes = stmtText(prog, k.call, k.stmt);
  r.sharedBytes = k.sharedBytes;
  r.storesPerPoint = 1;
  int n = prog.dims();
  std::vector<int64_t> tile(n, 1);
  int64_t points = 1;  // output points per block (per plane when streamed)
  for (size_t gd = 0; gd < k.gridIters.size(); ++gd) {
    tile[k.gridIters[gd]] = k.tileAlong(gd);
    points = satMul(points, tile[k.gridIters[gd]]);
  }
  std::string swept = k.chunk == 0 ? std::string("all") : std::to_string(k.chunk);
  for (int d = 0; d < n; ++d) r.tile.push_back(d == k.streamIter ? swept : std::to_string(tile[d]));
  const CallInst& call = prog.calls.at(k.call);
  const Stmt& st = call.stmts.at(k.stmt);
  const StmtStaging& staging = resolved.stagingOf(k.call, k.stmt);
  // Planes swept per block, over which a chunk's first planes and once-loaded tiles spread (a
  // serial sweep's are left out: its extent is not known here).
  double planes = k.streamIter >= 0 && k.chunk > 0 ? k.chunk : 0;
  double loads = 0;  // per block and plane
  for (const StagePlan& p : staging.groups) {
    ArrayFootprint f;
    f.array = p.group.name;
    const StageGroup& g = p.group;
    for (size_t q = 0; q < g.iters.size(); ++q) {
      if (g.iters[q] < 0) {
        f.extents.push_back("1");
      } else if (g.iters[q] == k.streamIter) {
        int64_t halo = g.hi[q] - g.lo[q];
        f.extents.push_back(halo ? fmt::format("{}+{}", swept, halo) : swept);
      } else {
        f.extents.push_back(std::to_string(p.extent[q]));
      }
    }
    f.points = p.kind == StageKind::Planes && p.sharedPlanes() == 0 ? points : p.tileElements();
    // A folded group (analysis/folding.h) loads its partner's elements with its own.
    loads += groupLoads(p, points, k.streamIter >= 0, planes) * (p.foldPartner ? 2 : 1);
    r.footprints.push_back(f);
    if (p.foldPartner) {
      f.array = prog.arrayName(call, *p.foldPartner);
      r.footprints.push_back(f);
    }
  }
  // Per-point local scalars and a compound assignment's left side: one element per point.
  std::set<int> scalars;
  for (const Reference& a : stmtAccesses(st).reads) {
    if (!a.scalar || a.lhs || !scalars.insert(a.index).second) continue;
    r.footprints.push_back({call.localScalars.at(a.index).name, r.tile, points});
    loads += static_cast<double>(points);
  }
  if (st.op != AssignOp::Set) {
    // A compound assignment reads the point it writes (not a staged group's): listed unless a
    // group of the same array and subscripts already covers it.
    loads += static_cast<double>(points);
    const Reference lhs = stmtAccesses(st).write;
    std::vector<int> iters;
    for (const Subscript& x : lhs.subs) iters.push_back(x.iter);
    bool covered =
        lhs.scalar
            ? scalars.count(lhs.index) > 0
            : std::any_of(staging.groups.begin(), staging.groups.end(), [&](const StagePlan& p) {
                return p.group.array == lhs.array && p.group.iters == iters;
              });
    if (lhs.scalar && !covered) {
      r.footprints.push_back({call.localScalars.at(lhs.index).name, r.tile, points});
    } else if (!covered) {
      ArrayFootprint f{prog.arrayName(call, lhs.array), {}, 1};
      for (const Subscript& x : lhs.subs) {
        f.extents.push_back(x.fixed() ? std::string("1") : r.tile[x.iter]);
        if (!x.fixed() && x.iter != k.streamIter) f.points = satMul(f.points, tile[x.iter]);
      }
      r.footprints.push_back(f);
    }
  }
  r.loadsPerPoint = loads / static_cast<double>(points);
  return r;
}

/// A kernel of fused statements (GpuKernelInfo::fusedStmts, `global` with fuse_statements): the
/// sum of its statements' reports, per point of the kernel. An upper bound on its traffic: an
/// array several statements read is counted per statement, and the local scalars it keeps in
/// registers still count their loads and stores (docs/fusion.md).
KernelReport fusedStatementsReport(const Program& prog, const GpuKernelInfo& k,
                                   const ResolvedSchedule& resolved) {
  KernelReport r;
  std::vector<std::string> nums;
  std::vector<const StmtStaging*> stagings;
  for (size_t s : k.fusedStmts) {
    GpuKernelInfo one = k;
    one.stmt = static_cast<int>(s);
    one.fusedStmts.clear();
    KernelReport part = statementReport(prog, one, resolved);
    if (nums.empty()) {
      r = part;
    } else {
      for (auto& f : part.footprints) r.footprints.push_back(f);
      r.loadsPerPoint += part.loadsPerPoint;
      r.storesPerPoint += part.storesPerPoint;
    }
    stagings.push_back(&resolved.stagingOf(k.call, one.stmt));
    nums.push_back(std::to_string(s + 1));
  }
  const CallInst& c = prog.calls.at(static_cast<size_t>(k.call));
  // The local scalars this kernel keeps in registers: those whose every use is in its group.
  const StatementGroups groups = fuseStatements(prog, c);
  std::vector<bool> inRegister(c.localScalars.size(), false);
  for (size_t g = 0; g < groups.groups.size(); ++g)
    if (std::count(groups.groups[g].begin(), groups.groups[g].end(), k.fusedStmts.front()))
      for (size_t v = 0; v < inRegister.size(); ++v)
        inRegister[v] = groups.scalarGroup[v] == static_cast<int>(g);
  r.traffic = fusedStatementTraffic(prog, k, stagings, inRegister);
  r.info = k;
  r.computes =
      fmt::format("call {} ({}), statements {} fused", k.call, c.name, fmt::join(nums, ", "));
  return r;
}

/// Adds the barriers of `body` to r: those inside a loop (a sweep) per plane, the others once.
void countBarriers(const std::vector<lir::StmtPtr>& body, bool inLoop, KernelReport& r) {
  for (const lir::StmtPtr& s : body) {
    if (s->kind == lir::StmtKind::Barrier) ++(inLoop ? r.barriersPerPlane : r.barriersOnce);
    countBarriers(s->body, inLoop || s->kind == lir::StmtKind::For, r);
    countBarriers(s->orElse, inLoop, r);
  }
}

}  // namespace

std::string familyText(const GpuKernelInfo& k) {
  if (!k.fusedCalls.empty() && k.streamIter >= 0) return "stream + time_tile";
  return familyName(k.family);
}

std::vector<KernelReport> kernelReports(const Program& prog, const GpuProgram& gpu,
                                        const ResolvedSchedule& resolved) {
  std::vector<KernelReport> out;
  for (auto& k : gpu.kernels) {
    if (!k.fusedCalls.empty()) {
      out.push_back(fusedKernelReport(prog, k, resolved));
      out.back().traffic = fusedTraffic(prog, k, resolved.variantOf(k.fusedCalls, k.tile).analysis);
    } else if (k.fusedStmts.size() > 1) {
      out.push_back(fusedStatementsReport(prog, k, resolved));
    } else {
      out.push_back(statementReport(prog, k, resolved));
      out.back().traffic = statementTraffic(prog, k, resolved.stagingOf(k.call, k.stmt));
    }
    for (const lir::Function& f : gpu.device.functions)
      if (f.name == k.name && f.body) countBarriers(f.body->body, false, out.back());
    // An unrolled sweep: a round of the loop is sweepCopies planes, and the copies after the
    // loop (a chunk's last planes, fewer than a round) run per plane too, not once.
    if (KernelReport& r = out.back(); k.sweepCopies > 1) {
      r.barriersPerPlane /= k.sweepCopies;
      r.barriersOnce = std::max(0, r.barriersOnce - (k.sweepCopies - 1) * r.barriersPerPlane);
    }
  }
  return out;
}

}  // namespace tessel
