#include "driver/kernel_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/staging.h"
#include "driver/resources.h"
#include "lower/lower.h"
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
    tile[k.gridIters[gd]] = static_cast<int64_t>(k.block[gd]) * k.unroll[gd];
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
    switch (p.kind) {
      case StageKind::Global:
        f.points = p.tileElements();
        loads += static_cast<double>(points) * static_cast<double>(g.refs.size());
        break;
      case StageKind::Tile:
        f.points = p.tileElements();
        loads += k.streamIter < 0 ? static_cast<double>(f.points)
                 : planes > 0     ? static_cast<double>(f.points) / planes
                                  : 0.0;
        break;
      case StageKind::Planes: {
        bool own = p.ownFromRegisters;
        double shared = p.sharedPlanes() > 0 ? static_cast<double>(p.tileElements()) : 0.0;
        double regs = p.registerPlanes() > 0 ? static_cast<double>(points) : 0.0;
        f.points = p.sharedPlanes() > 0 ? p.tileElements() : points;
        loads += regs + shared - (own ? static_cast<double>(points) : 0.0);
        if (planes > 0)
          loads += (shared * static_cast<double>(p.sharedPlanes() - 1) +
                    regs * static_cast<double>(p.registerPlanes() - 1)) /
                   planes;
        break;
      }
    }
    r.footprints.push_back(f);
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

/// The family as applied; a fused kernel that streams is "stream + time_tile".
std::string familyText(const GpuKernelInfo& k) {
  if (!k.fusedCalls.empty() && k.streamIter >= 0) return "stream + time_tile";
  return familyName(k.family);
}

/// Adds the barriers of `body` to r: those inside a loop (a sweep) per plane, the others once.
void countBarriers(const std::vector<lir::StmtPtr>& body, bool inLoop, KernelReport& r) {
  for (const lir::StmtPtr& s : body) {
    if (s->kind == lir::StmtKind::Barrier) ++(inLoop ? r.barriersPerPlane : r.barriersOnce);
    countBarriers(s->body, inLoop || s->kind == lir::StmtKind::For, r);
    countBarriers(s->orElse, inLoop, r);
  }
}

/// "1", "2 per plane", "2 per plane and 1 once", "none".
std::string barrierText(const KernelReport& r) {
  if (r.barriersPerPlane == 0) return r.barriersOnce ? std::to_string(r.barriersOnce) : "none";
  std::string t = fmt::format("{} per plane", r.barriersPerPlane);
  return r.barriersOnce ? fmt::format("{} and {} once", t, r.barriersOnce) : t;
}

}  // namespace

std::vector<KernelReport> kernelReports(const Program& prog, const GpuProgram& gpu,
                                        const ResolvedSchedule& resolved) {
  std::vector<KernelReport> out;
  for (auto& k : gpu.kernels) {
    out.push_back(!k.fusedCalls.empty() ? fusedKernelReport(prog, k, resolved)
                                        : statementReport(prog, k, resolved));
    for (const lir::Function& f : gpu.device.functions)
      if (f.name == k.name && f.body) countBarriers(f.body->body, false, out.back());
  }
  return out;
}

namespace {

/// The architecture nvcc compiles for to report on `m`: its own from sm_75 (CUDA 13 supports
/// nothing older), else sm_90.
std::string ptxasArch(const MachineDesc& m) {
  int cc = m.compute.ccMajor * 10 + m.compute.ccMinor;
  return cc >= 75 ? fmt::format("sm_{}", cc) : std::string("sm_90");
}

/// Each report's occupancy on `m`: threads and shared memory from the kernel, registers from
/// ptxas where known (else left out: an upper bound).
void addOccupancy(std::vector<KernelReport>& reports, const MachineDesc& m) {
  if (!occupancyRules(m.compute.ccMajor, m.compute.ccMinor)) return;
  for (KernelReport& r : reports) {
    OccupancyQuery q;
    q.threads = static_cast<int64_t>(r.info.block[0]) * r.info.block[1] * r.info.block[2];
    q.staticShared = r.ptxas ? r.ptxas->sharedBytes : r.sharedBytes;
    q.registers = r.ptxas ? r.ptxas->registers : 0;
    r.occupancyBound = !r.ptxas;
    try {
      r.occupancy = occupancy(m, q);
    } catch (const std::invalid_argument&) {
      r.occupancy.reset();  // a carve-out the machine file's figures do not allow
    }
  }
}

}  // namespace

KernelReportSet reportKernels(const Program& prog, const ResolvedSchedule& resolved,
                              const MachineDesc& machine, bool ptxas, PassLog* log) {
  KernelReportSet out;
  PassLog silent;
  GpuProgram gpu = lower(prog, resolved, GpuApi::OpenCL, log ? *log : silent);
  out.reports = kernelReports(prog, gpu, resolved);
  out.notes = gpu.notes;
  if (ptxas && findNvcc().empty()) {
    out.ptxasNote = "nvcc not found (install the CUDA toolkit or set NVCC to see them)";
  } else if (ptxas) {
    const std::string arch = ptxasArch(machine);
    ResourcesResult r = programResources(prog, resolved, arch);
    addPtxas(out.reports, r.report);
    out.ptxasNote = "ptxas for " + arch;
    if (arch != fmt::format("sm_{}{}", machine.compute.ccMajor, machine.compute.ccMinor))
      out.ptxasNote += fmt::format(" (nvcc cannot compile for compute capability {})",
                                   machine.computeCapability());
  }
  addOccupancy(out.reports, machine);
  return out;
}

void addPtxas(std::vector<KernelReport>& reports, const CudaResourceReport& rep) {
  for (auto& r : reports)
    if (const KernelResources* k = rep.find(r.info.name)) r.ptxas = *k;
}

nlohmann::json kernelReportsJson(const std::vector<KernelReport>& reports) {
  nlohmann::json out = nlohmann::json::array();
  for (auto& r : reports) {
    nlohmann::json j = {{"name", r.info.name},
                        {"family", familyText(r.info)},
                        {"block", r.info.block},
                        {"computes", r.computes},
                        {"tile", r.tile},
                        {"shared_bytes", r.sharedBytes},
                        {"redundancy_percent", r.redundancyPercent},
                        {"loads_per_point", r.loadsPerPoint},
                        {"stores_per_point", r.storesPerPoint},
                        {"barriers_once", r.barriersOnce},
                        {"barriers_per_plane", r.barriersPerPlane}};
    j["footprints"] = nlohmann::json::array();
    for (auto& f : r.footprints)
      j["footprints"].push_back({{"array", f.array}, {"extents", f.extents}, {"points", f.points}});
    if (r.occupancy) {
      j["occupancy"] = {{"blocks_per_sm", r.occupancy->blocksPerSm},
                        {"warps_per_sm", r.occupancy->activeWarps},
                        {"fraction", r.occupancy->fraction},
                        {"limited_by", r.occupancy->limitText()},
                        {"upper_bound", r.occupancyBound}};
    }
    if (r.ptxas) {
      j["registers"] = r.ptxas->registers;
      j["ptxas_shared_bytes"] = r.ptxas->sharedBytes;
      j["spill_bytes"] = r.ptxas->spillStores + r.ptxas->spillLoads;
    }
    out.push_back(j);
  }
  return out;
}

std::string kernelReportsText(const std::vector<KernelReport>& reports, const std::string& machine,
                              const std::string& ptxasNote) {
  std::string out = fmt::format(
      "GPU kernels (for {}; per block; loads and stores are global-memory elements per output "
      "point, caches ignored)\n",
      machine);
  for (auto& r : reports) {
    const GpuKernelInfo& k = r.info;
    out += fmt::format("  {}  {}, block {}x{}x{}\n", k.name, familyText(k), k.block[0], k.block[1],
                       k.block[2]);
    out += fmt::format("    computes   {}\n", r.computes);
    out += fmt::format("    tile       {}\n", fmt::join(r.tile, " x "));
    for (auto& f : r.footprints)
      out +=
          fmt::format("    reads      {:<8} {} ({} points{})\n", f.array,
                      fmt::join(f.extents, " x "), f.points, k.streamIter >= 0 ? " per plane" : "");
    out += fmt::format("    barriers   {}\n", barrierText(r));
    out +=
        fmt::format("    shared {} B, redundant {:.1f}%, {:.4g} loads and {:.4g} stores per point",
                    r.sharedBytes, r.redundancyPercent, r.loadsPerPoint, r.storesPerPoint);
    if (r.ptxas)
      out += fmt::format(", {} registers ({} B spilled)", r.ptxas->registers,
                         r.ptxas->spillStores + r.ptxas->spillLoads);
    out += "\n";
    if (const std::optional<Occupancy>& o = r.occupancy)
      out +=
          fmt::format("    occupancy  {}{} blocks per SM, {:.0f}% of the warps, limited by {}{}\n",
                      r.occupancyBound ? "at most " : "", o->blocksPerSm, 100 * o->fraction,
                      o->limitText(), r.occupancyBound ? " (registers not known)" : "");
  }
  if (!ptxasNote.empty()) out += "  registers: " + ptxasNote + "\n";
  return out;
}

}  // namespace tessel
