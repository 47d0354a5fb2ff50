// `tessel info --schedule ...`: what each generated GPU kernel does per block, for people
// choosing a schedule: the figures of perf/kernel_figures.h (block, tile, footprints, shared
// memory, redundancy, loads and stores per output point, barriers), with ptxas's registers when
// nvcc is present and the occupancy on the machine, as text or JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "perf/kernel_figures.h"
#include "support/pass_log.h"

namespace tessel {

/// Fills `ptxas` of each report from nvcc's report (matched by kernel name).
void addPtxas(std::vector<KernelReport>& reports, const CudaResourceReport& rep);

struct KernelReportSet {
  std::vector<KernelReport> reports;
  std::string ptxasNote;           // why registers are missing, when they are
  std::vector<std::string> notes;  // the lowering's notes (fallbacks)
};

/// ARTEMIS's `occupancy t` decides on threads and shared memory (demoteForOccupancy: registers
/// are not known before the kernels exist). Per kernel of a stencil with a target whose
/// occupancy, registers counted (ptxas's, else the estimate), stays below it: a note that says
/// what holds it there.
std::vector<std::string> occupancyTargetNotes(const Program& prog,
                                              const std::vector<Schedule>& schedules,
                                              const std::vector<KernelReport>& reports);

/// Lowers `prog` under its resolved schedule and reports its kernels; with `ptxas`, also compiles
/// the CUDA with nvcc for sm_90 (cached, as `tessel resources`) when nvcc is found. `log`: the
/// pipeline's pass log (lower/lower.h) for --print-ir-after-all and --time-passes; null: a silent
/// one.
/// Occupancy is computed for `machine`; ptxas runs for its architecture where nvcc supports it
/// (sm_75 and later), else for sm_90, and the note says so.
/// With `params`: where a run at those sizes does not fit the narrowed kernels' 32-bit indices
/// (pass narrow-indices' test), each narrowed kernel's report is its 64-bit copy's (`NAME_i64`:
/// the kernel that runs, its registers and ptxas figures), and says so.
KernelReportSet reportKernels(const Program& prog, const ResolvedSchedule& resolved,
                              const MachineDesc& machine, bool ptxas, PassLog* log = nullptr,
                              const ParamValues* params = nullptr);

/// A report's occupancy as JSON (blocks_per_sm, warps_per_sm, fraction, limited_by,
/// upper_bound, registers_estimated); null where it has none.
nlohmann::json occupancyJson(const KernelReport& r);
/// ptxas's registers, shared bytes and spills where known, and the estimate
/// (`registers_estimate`: registers, cap and the features it counts).
nlohmann::json registersJson(const KernelReport& r);
/// What the pipeline applied to the kernel, for `info --kernels`: the width of its index
/// arithmetic (and why it stays at 64 bits), dynamic shared memory.
std::string appliedText(const KernelReport& r);
nlohmann::json kernelReportsJson(const std::vector<KernelReport>& reports);
/// A table, one block of lines per kernel; `ptxasNote` says why registers are missing, if they
/// are.
std::string kernelReportsText(const std::vector<KernelReport>& reports, const std::string& machine,
                              const std::string& ptxasNote);

}  // namespace tessel
