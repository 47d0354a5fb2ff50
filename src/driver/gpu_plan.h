// From the validated Schedules (one per stencil) to the GPU lowering's launch plan.
#pragma once

#include <vector>

#include "codegen/lower_gpu.h"
#include "ir/program.h"
#include "schedule/schedule.h"

namespace tessel {

/// One GpuLaunchConfig per stencil: its family, its block (x, y, z), for the streaming families
/// its streamed iterator, for `stream` its chunk (0 for full_stream), and for `shared` the unroll
/// factors. The clauses later passes implement (time_tile, prefetch, ...) are not part of it,
/// and a chunked `stream` under `global-stream` runs as `full_stream` (each thread sweeps the
/// whole extent).
GpuLaunchPlan gpuLaunchPlan(const Program& prog, const std::vector<Schedule>& schedules);

/// Whether the C++ target runs the program's GPU kernels on the CPU (GpuApi::Cpu, pass
/// work-item-loops): when some stencil's family is not `global`. Under `global` it runs the
/// plain loop nests of lowerToCpp (one parallel loop per statement, the innermost vectorised),
/// which is what the global family means on a CPU.
bool cppRunsKernels(const Program& prog, const GpuLaunchPlan& plan);

/// One sentence per clause a Schedule sets that the GPU lowering does not apply (unroll outside
/// `shared`, time_tile, prefetch, retime, fold, occupancy, perspective, placements, a chunked
/// stream under `global-stream`, a chunk without chunked streaming), naming the stencil and
/// where the clause came from. Nothing is silently ignored.
std::vector<std::string> gpuPlanNotes(const Program& prog, const std::vector<Schedule>& schedules);

}  // namespace tessel
