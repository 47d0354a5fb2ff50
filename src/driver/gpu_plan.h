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

}  // namespace tessel
