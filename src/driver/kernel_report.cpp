#include "driver/kernel_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/staging.h"
#include "analysis/stmt_fusion.h"
#include "driver/resources.h"
#include "lower/lower.h"
#include "support/saturating.h"
#include "transforms/narrow_indices.h"

namespace tessel {

namespace {

/// "1", "2 per plane", "2 per plane and 1 once", "none".
std::string barrierText(const KernelReport& r) {
  if (r.barriersPerPlane == 0) return r.barriersOnce ? std::to_string(r.barriersOnce) : "none";
  std::string t = fmt::format("{} per plane", r.barriersPerPlane);
  return r.barriersOnce ? fmt::format("{} and {} once", t, r.barriersOnce) : t;
}

}  // namespace

namespace {

/// The architecture nvcc compiles for to report on `m`: its own from sm_75 (CUDA 13 supports
/// nothing older), else sm_90.
std::string ptxasArch(const MachineDesc& m) {
  int cc = m.compute.ccMajor * 10 + m.compute.ccMinor;
  return cc >= 75 ? fmt::format("sm_{}", cc) : std::string("sm_90");
}

/// Each report's registers estimated from its kernel's IR (the function of `device` of the same
/// name) on `m`.
void addRegisterEstimates(std::vector<KernelReport>& reports, const lir::Module& device,
                          const MachineDesc& m) {
  const RegisterFit fit = sm90RegisterFit();
  for (KernelReport& r : reports)
    for (const lir::Function& f : device.functions)
      if (f.name == r.info.name) {
        r.registerEstimate = estimateRegisters(f, familyText(r.info), fit, m.limits.registersPerSm,
                                               static_cast<int>(m.limits.maxRegistersPerThread));
        break;
      }
}

/// Each report's occupancy on `m`: threads and shared memory from the kernel, registers from
/// ptxas where known, else the estimate (with neither, left out: an upper bound).
void addOccupancy(std::vector<KernelReport>& reports, const MachineDesc& m) {
  if (!occupancyRules(m.compute.ccMajor, m.compute.ccMinor)) return;
  for (KernelReport& r : reports) {
    OccupancyQuery q;
    q.threads = static_cast<int64_t>(r.info.block[0]) * r.info.block[1] * r.info.block[2];
    q.staticShared = r.ptxas ? r.ptxas->sharedBytes : r.sharedBytes;
    if (r.sharedBytes > m.memory.sharedPerBlock) {  // dynamic, with the opt-in limit
      q.staticShared = 0;
      q.dynamicShared = r.sharedBytes;
      q.optIn = true;
    }
    q.registers = r.registers();
    try {
      r.occupancy = occupancy(m, q);
    } catch (const std::invalid_argument&) {
      r.occupancy.reset();  // a carve-out the machine file's figures do not allow
    }
  }
}

}  // namespace

KernelReportSet reportKernels(const Program& prog, const ResolvedSchedule& resolved,
                              const MachineDesc& machine, bool ptxas, PassLog* log,
                              const ParamValues* params) {
  KernelReportSet out;
  PassLog silent;
  GpuProgram gpu = lower(prog, resolved, GpuApi::OpenCL, log ? *log : silent);
  out.reports = kernelReports(prog, gpu, resolved);
  // Sizes beyond 32-bit indices: the narrowed kernels' 64-bit copies run (the registers and
  // ptxas figures below are matched by name).
  if (params && gpu.indexMargin >= 0 &&
      !evalInt(transforms::indexFitTest(prog, gpu.indexMargin), *params)) {
    for (KernelReport& r : out.reports) {
      if (r.info.indexBits != 32 || r.info.fallback < 0) continue;
      const lir::Function& wide = gpu.device.functions.at(static_cast<size_t>(r.info.fallback));
      r.info.name = wide.name;
      r.info.maxRegisters = wide.maxRegisters;
      r.info.indexBits = 64;
      r.info.wideReason =
          "a run at these sizes does not fit 32-bit indices (an array of 2^31 elements or more, "
          "or a parameter beyond 2^30): the kernel's 64-bit copy runs";
      r.info.fallback = -1;
    }
  }
  addRegisterEstimates(out.reports, gpu.device, machine);
  out.notes = gpu.notes;
  // Statement fusion: where each call's kernels split, and why.
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    const GridShape& g = resolved.gridOfCall(prog, static_cast<int>(c));
    if (!g.fuseStatements || g.family != ScheduleFamily::Global) continue;
    const StatementGroups groups = fuseStatements(prog, prog.calls[c]);
    if (groups.groups.size() < 2) continue;
    std::vector<std::string> kernels;
    for (const auto& k : groups.groups) {
      std::vector<size_t> nums;
      for (size_t s : k) nums.push_back(s + 1);
      kernels.push_back(fmt::format("[{}]", fmt::join(nums, ", ")));
    }
    std::string note = fmt::format("statement fusion: call {} ({}) runs {} kernels: {}", c,
                                   prog.calls[c].name, kernels.size(), fmt::join(kernels, " "));
    for (size_t b = 0; b < groups.breaks.size(); ++b)
      note += fmt::format("; kernel {} starts where {}", b + 2, groups.breaks[b]);
    out.notes.push_back(note);
  }
  if (ptxas && findNvcc().empty()) {
    out.ptxasNote =
        "nvcc not found: estimated from the kernels' IR (install the CUDA toolkit or set NVCC "
        "for ptxas's)";
  } else if (ptxas) {
    const std::string arch = ptxasArch(machine);
    ResourcesResult r = programResources(prog, resolved, arch, ResourcesBuild::KernelsOnly);
    addPtxas(out.reports, r.report);
    out.ptxasNote = "ptxas for " + arch;
    if (arch != fmt::format("sm_{}{}", machine.compute.ccMajor, machine.compute.ccMinor))
      out.ptxasNote += fmt::format(" (nvcc cannot compile for compute capability {})",
                                   machine.computeCapability());
  }
  addOccupancy(out.reports, machine);
  return out;
}

std::vector<std::string> occupancyTargetNotes(const Program& prog,
                                              const std::vector<Schedule>& schedules,
                                              const std::vector<KernelReport>& reports) {
  std::vector<std::string> notes;
  for (const KernelReport& r : reports) {
    if (r.info.call < 0 || !r.occupancy || r.occupancyBound()) continue;
    const int stencil = prog.calls.at(static_cast<size_t>(r.info.call)).stencil;
    if (stencil < 0 || static_cast<size_t>(stencil) >= schedules.size()) continue;
    const Schedule& s = schedules[static_cast<size_t>(stencil)];
    if (!s.occupancy || r.occupancy->fraction + 1e-9 >= s.occupancy->value) continue;
    const int registers = r.registers();
    const bool byRegisters = (r.occupancy->limitedBy & kLimitRegisters) != 0;
    notes.push_back(fmt::format(
        "stencil '{}': occupancy {} asked, kernel {} holds {:.0f}% ({} blocks per SM, limited "
        "by {}; {} registers{}){}",
        prog.stencils.at(static_cast<size_t>(stencil)).name, s.occupancy->value, r.info.name,
        100 * r.occupancy->fraction, r.occupancy->blocksPerSm, r.occupancy->limitText(), registers,
        r.ptxas ? ", ptxas" : ", estimated",
        byRegisters ? ": moving arrays to global memory frees shared memory only; cap the "
                      "registers (--max-registers) or take a smaller block"
                    : ""));
  }
  return notes;
}

void addPtxas(std::vector<KernelReport>& reports, const CudaResourceReport& rep) {
  for (auto& r : reports)
    if (const KernelResources* k = rep.find(r.info.name)) r.ptxas = *k;
}

nlohmann::json occupancyJson(const KernelReport& r) {
  if (!r.occupancy) return nullptr;
  return {
      {"blocks_per_sm", r.occupancy->blocksPerSm}, {"warps_per_sm", r.occupancy->activeWarps},
      {"fraction", r.occupancy->fraction},         {"limited_by", r.occupancy->limitText()},
      {"upper_bound", r.occupancyBound()},         {"registers_estimated", r.registersEstimated()}};
}

nlohmann::json registersJson(const KernelReport& r) {
  nlohmann::json j = nlohmann::json::object();
  if (r.ptxas) {
    j["registers"] = r.ptxas->registers;
    j["ptxas_shared_bytes"] = r.ptxas->sharedBytes;
    j["spill_bytes"] = r.ptxas->spillStores + r.ptxas->spillLoads;
  }
  if (r.registerEstimate) j["registers_estimate"] = registerEstimateJson(*r.registerEstimate);
  return j;
}

std::string appliedText(const KernelReport& r) {
  const GpuKernelInfo& k = r.info;
  std::vector<std::string> parts;
  if (k.indexBits == 32)
    parts.push_back(k.fallback >= 0 ? "32-bit indices (its 64-bit copy runs where a run's sizes "
                                      "need it)"
                                    : "32-bit indices (--index-bits 32: no 64-bit copy)");
  else
    parts.push_back(k.wideReason.empty() ? "64-bit indices (index_bits 64)"
                                         : "64-bit indices: " + k.wideReason);
  // Per grid dimension in use (x first), "2x1": the unrolled points or elements of a thread.
  auto along = [&](const std::array<int, 3>& u) {
    return fmt::format(
        "{}", fmt::join(u.begin(), u.begin() + std::max<size_t>(1, k.gridIters.size()), "x"));
  };
  if (const int points = k.unroll[0] * k.unroll[1] * k.unroll[2]; points > 1)
    parts.push_back(fmt::format("unrolled: {} points per thread ({}, {})", points, along(k.unroll),
                                k.cyclic ? "cyclic" : "blocked"));
  if (const int e = k.tileUnroll[0] * k.tileUnroll[1] * k.tileUnroll[2]; e > 1)
    parts.push_back(
        fmt::format("unrolled: a stage's region per block is {} times its threads "
                    "(x, y, z), {} elements per thread in each stage's loop",
                    along(k.tileUnroll), e));
  if (!k.perspective.empty()) parts.push_back("input perspective: " + k.perspective);
  if (!k.folded.empty())
    parts.push_back("folded: " + k.folded + " staged as one array (computed as it is loaded)");
  if (!k.inGlobalMemory.empty())
    parts.push_back(
        "read from global memory instead of an input ring (gmem, occupancy, no_shmem): " +
        k.inGlobalMemory);
  if (k.prefetched > 0)
    parts.push_back(fmt::format("prefetched: the next plane in {} register{} per thread",
                                k.prefetched, k.prefetched == 1 ? "" : "s"));
  if (!k.notPrefetched.empty()) parts.push_back("not prefetched: " + k.notPrefetched);
  if (k.retimed > 0 && !k.fusedCalls.empty())
    parts.push_back(
        fmt::format("retimed: {} accumulators per thread over the fused stages, "
                    "each stage reading one plane of its rings per step",
                    k.retimed));
  else if (k.retimed > 0)
    parts.push_back(fmt::format(
        "retimed: {} accumulator{}, {}", k.retimed, k.retimed == 1 ? "" : "s",
        k.family != ScheduleFamily::Stream ? "each plane's points read once from global memory"
        : k.sharedBytes > 0 && k.sparePlane
            ? "one shared plane per array in a ring of two slots (a rolled sweep, 1 barrier per "
              "plane)"
        : k.sharedBytes > 0
            ? "one shared plane per array (a rolled sweep, 2 barriers per plane)"
            : "each thread's points of the plane in registers (nothing shared: no barrier)"));
  if (!k.deadStores.empty())
    parts.push_back("write-back left out for " + k.deadStores +
                    " (dead stores: no later kernel reads it, the program does not copy it out)");
  // (A retimed per-statement kernel's ring of two slots is said with its retiming, above.)
  if (k.sparePlane && (k.retimed == 0 || !k.fusedCalls.empty()))
    parts.push_back("a spare plane per input ring (the next plane loads while this one is read)");
  if (!k.registerValues.empty())
    parts.push_back("in registers, computed in their reader's loop: " + k.registerValues +
                    " (no shared tile)");
  if (k.fma) parts.push_back("contracted multiply-adds (--fma: one rounding for a*b+c)");
  if (k.maxRegisters > 0)
    parts.push_back(
        fmt::format("a cap of {} registers per thread (CUDA __maxnreg__)", k.maxRegisters));
  if (r.sharedBytes > 48 * 1024)
    parts.push_back("dynamic shared memory (CUDA: beyond the 48 KiB a kernel declares statically)");
  return fmt::format("{}", fmt::join(parts, "; "));
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
                        {"barriers_per_plane", r.barriersPerPlane},
                        {"index_bits", r.info.indexBits},
                        {"register_values", r.info.registerValues},
                        {"applied", appliedText(r)}};
    j["footprints"] = nlohmann::json::array();
    for (auto& f : r.footprints)
      j["footprints"].push_back({{"array", f.array}, {"extents", f.extents}, {"points", f.points}});
    const Traffic& t = r.traffic;
    j["traffic"] = {{"steps", t.steps},
                    {"flops", t.flops},
                    {"useful_flops", t.usefulFlops},
                    {"dram_bytes", t.dramBytes},
                    {"l2_bytes", t.l2Bytes},
                    {"l1_bytes", t.l1Bytes},
                    {"shared_bytes", t.sharedBytes},
                    {"shared_loads", t.sharedLoads},
                    {"store_bytes", t.storeBytes}};
    if (r.occupancy) j["occupancy"] = occupancyJson(r);
    j.update(registersJson(r));
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
    out += fmt::format("    applied    {}\n", appliedText(r));
    out +=
        fmt::format("    shared {} B, redundant {:.1f}%, {:.4g} loads and {:.4g} stores per point",
                    r.sharedBytes, r.redundancyPercent, r.loadsPerPoint, r.storesPerPoint);
    if (r.ptxas)
      out += fmt::format(", {} registers ({} B spilled)", r.ptxas->registers,
                         r.ptxas->spillStores + r.ptxas->spillLoads);
    else if (r.registerEstimate)
      out += fmt::format(", about {} registers (estimated)", r.registerEstimate->registers);
    out += "\n";
    const Traffic& t = r.traffic;
    out += fmt::format(
        "    traffic    {:.4g} FLOPs ({:.4g} useful); DRAM {:.4g} B, L2 {:.4g} B, L1 {:.4g} B, "
        "shared {:.4g} B per point-update{}\n",
        t.flops, t.usefulFlops, t.dramBytes, t.l2Bytes, t.l1Bytes, t.sharedBytes,
        t.steps > 1 ? fmt::format(" ({} per output point)", t.steps) : "");
    if (const std::optional<Occupancy>& o = r.occupancy)
      out += fmt::format(
          "    occupancy  {}{} blocks per SM, {:.0f}% of the warps, limited by {}{}\n",
          r.occupancyBound() ? "at most " : "", o->blocksPerSm, 100 * o->fraction, o->limitText(),
          r.occupancyBound()       ? " (registers not known)"
          : r.registersEstimated() ? " (with the estimated registers)"
                                   : "");
  }
  if (!ptxasNote.empty()) out += "  registers: " + ptxasNote + "\n";
  return out;
}

}  // namespace tessel
