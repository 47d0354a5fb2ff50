// The figures of each generated GPU kernel, per block: its block shape, the output tile a block
// computes and the footprint it reads, shared memory, redundant computation, global loads and
// stores per output point, the barriers it passes; what `tessel info --kernels` shows and the
// performance model reads.
//
// The figures come from the analyses the resolved schedule holds (the staging of a statement's
// kernel, the tile analysis of a fused variant) and the kernels' IR (barriers), never from
// emitted text. They are per block and ignore hardware caches: a load is one element a thread
// reads from global memory, so a family that stages a tile in shared memory loads each
// footprint element once per block, while `global` loads every element each thread reads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exec/cuda_resources.h"
#include "ir/program.h"
#include "lower/lower_gpu.h"
#include "model/occupancy.h"
#include "perf/register_estimate.h"
#include "perf/traffic.h"
#include "schedule/resolve.h"

namespace tessel {

/// The box of one array a block reads from global memory.
struct ArrayFootprint {
  std::string array;
  /// Extent per dimension of the array; "all+2": the whole swept extent plus 2 halo planes.
  std::vector<std::string> extents;
  int64_t points = 0;  // per block (per plane along a swept dimension)
};

struct KernelReport {
  GpuKernelInfo info;
  std::string computes;  // "call 0 (j3d7pt), statement 1: out[k][j][i] = ..."
  /// Output tile per iterator (iterator order): a number, or "all" for a dimension each thread
  /// sweeps.
  std::vector<std::string> tile;
  std::vector<ArrayFootprint> footprints;
  int64_t sharedBytes = 0;       // per block
  double redundancyPercent = 0;  // points computed beyond the tile, % of all computed
  double loadsPerPoint = 0;      // global elements read per output point
  double storesPerPoint = 0;     // global elements written per output point
  /// Barriers a block passes (pass insert-barriers placed them): once, and per plane of a sweep
  /// (stream; stream + time_tile: per step).
  int barriersOnce = 0, barriersPerPlane = 0;
  std::optional<KernelResources> ptxas;
  /// Registers estimated from the kernel's IR (perf/register_estimate.h), on the report's
  /// machine; what occupancy uses where ptxas's figure is missing.
  std::optional<RegisterEstimate> registerEstimate;
  /// Resident blocks per SM on the report's machine (model/occupancy.h), from the block, its
  /// shared memory and ptxas's registers, else the estimate (`registersEstimated()`); with
  /// neither the registers are left out and the figure is an upper bound (`occupancyBound()`).
  std::optional<Occupancy> occupancy;
  bool registersEstimated() const { return !ptxas && registerEstimate; }
  /// The registers per thread the occupancy uses: ptxas's, else the estimate, else 0.
  int registers() const {
    return ptxas ? ptxas->registers : registerEstimate ? registerEstimate->registers : 0;
  }
  bool occupancyBound() const { return !ptxas && !registerEstimate; }
  Traffic traffic;  // per point-update at each memory level (perf/traffic.h)
};

/// The report of an overlapped kernel (info.fusedCalls non-empty), from the tile-region
/// analysis of its fused calls as resolved (FusedVariant::analysis; kernel_figures_fused.cpp).
KernelReport fusedKernelReport(const Program& prog, const GpuKernelInfo& k,
                               const ResolvedSchedule& resolved);

/// The family as applied: "global", "global-stream", "shared", "stream", "overlapped" or, for
/// a fused kernel that streams, "stream + time_tile" (also the key of a machine's calibration).
std::string familyText(const GpuKernelInfo& k);

/// One report per kernel of `gpu` (the lowering of `prog` for `resolved`), in launch order,
/// from the analyses the resolved schedule holds (nothing is analysed again).
std::vector<KernelReport> kernelReports(const Program& prog, const GpuProgram& gpu,
                                        const ResolvedSchedule& resolved);

}  // namespace tessel
