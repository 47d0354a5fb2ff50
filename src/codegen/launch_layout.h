// The launch layout: a Program's schedule resolved for the GPU lowering, once, before any
// kernel is built (the pipeline's first pass, resolve-launches, lower/lower.h). Per stencil the
// grid: the family as applied (1-D programs fall back from the streaming families), which
// iterator each grid dimension runs over, the block with the family's defaults filled in, the
// streamed iterator, chunk and unrolling; and the fused groups of time steps (overlapped and
// stream + time_tile, analysis/fusion_plan.h) with their tiles. Every kernel builder reads this
// value and nothing recomputes it.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "analysis/fusion_plan.h"
#include "codegen/lower_gpu.h"
#include "ir/program.h"

namespace tessel {

/// How a statement's points map onto the grid (the same for every statement of a stencil).
struct GridShape {
  ScheduleFamily family = ScheduleFamily::Global;
  std::vector<int> iters;                 // iterator dimension of grid x, y, z
  std::array<int, 3> block = {1, 1, 1};   // threads per block, x first
  int stream = -1;                        // the iterator each thread (block) sweeps, or -1
  std::array<int, 3> unroll = {1, 1, 1};  // shared: points per thread along grid x, y, z
  bool cyclic = false;                    // shared: a thread's points a block apart
  int chunk = 0;                          // stream: planes per block; 0: the whole extent

  bool staged() const {
    return family == ScheduleFamily::Shared || family == ScheduleFamily::Stream;
  }
  /// Points per block along grid dimension gd.
  int tile(size_t gd) const { return block[gd] * unroll[gd]; }
};

struct LaunchLayout {
  std::vector<GridShape> grids;     // per stencil (Program::stencils order)
  std::vector<FusionGroup> groups;  // the call sequence's groups (planFusion); point into prog
  std::vector<std::string> notes;   // decisions the user should hear about (fallbacks)
};

/// Resolves `plan` for `prog`. Throws std::invalid_argument for a configuration the program
/// cannot use (a negative block extent, a streaming dimension the program does not have, a
/// time tile below 1): a Schedule validates these first, with located messages.
LaunchLayout resolveLaunches(const Program& prog, const GpuLaunchPlan& plan);

/// The layout as `--print-ir-after=resolve-launches` shows it: one line per stencil's grid and
/// per fused group.
std::string describeLayout(const Program& prog, const LaunchLayout& layout);

}  // namespace tessel
