// From the validated Schedules (one per stencil) to the GPU lowering's launch plan.
#pragma once

#include <vector>

#include "codegen/lower_gpu.h"
#include "ir/program.h"
#include "schedule/schedule.h"

namespace tessel {

/// One GpuLaunchConfig per stencil: its family, its block (x, y, z) and, for global-stream, its
/// streamed iterator. The clauses later passes implement (unroll, time_tile, prefetch, ...) are
/// not part of it, and a chunked `stream` is run as `full_stream` (each thread sweeps the whole
/// extent).
GpuLaunchPlan gpuLaunchPlan(const Program& prog, const std::vector<Schedule>& schedules);

/// One sentence per clause a Schedule sets that the GPU lowering does not apply yet (unroll,
/// time_tile, prefetch, retime, fold, occupancy, perspective, placements, a chunked stream),
/// naming the stencil and where the clause came from. Nothing is silently ignored.
std::vector<std::string> gpuPlanNotes(const Program& prog, const std::vector<Schedule>& schedules);

}  // namespace tessel
