// Traffic: what one generated kernel computes and moves per point-update (one output point at
// one time step; a fused kernel of T steps makes T per output point), at each level of the GPU's
// memory, counted from the resolved schedule's analyses (the statement's staging, the fused
// variant's tile analysis), never from emitted text. These are the counts of the performance
// model (issue 10, model-notes.md section 3.2); times come from them and the machine.
//
// The levels, and what each count assumes:
//   flops   executed floating-point operations (analysis/counts.h's rule), redundant ones of an
//           overlapped tile included; `usefulFlops` are the program's own;
//   dram    compulsory traffic: each element of an array that varies along every iterator read
//           once and each result written once (per T steps when fused); lower-rank arrays and
//           fixed planes are read by many blocks and count as cached. A lower bound: it assumes
//           the L2 catches every re-read of a halo;
//   l2      L2 to SM: the elements each block loads from global memory (its footprints, whole
//           boxes), per point-update;
//   l1      load instructions' bytes: every element a thread loads from global memory (under
//           `global` each tap of each point; staged kernels' cooperative loads once);
//   shared  shared-memory stores and loads (a staged tile's elements stored once, each read of
//           it a load);
//   stores  global stores.
#pragma once

#include <cstdint>

#include "analysis/staging.h"
#include "analysis/tile_regions.h"
#include "ir/program.h"
#include "lower/lower_gpu.h"

namespace tessel {

struct Traffic {
  int steps = 1;      // point-updates per output point of the kernel (T when fused)
  bool fp64 = false;  // computes in double precision (the FP64 peak applies)
  double flops = 0, usefulFlops = 0;
  double dramBytes = 0, l2Bytes = 0, l1Bytes = 0, sharedBytes = 0, storeBytes = 0;
  /// Shared-memory elements read per output point (the distinct staged references a point
  /// reads; the staging's stores are in sharedBytes besides).
  double sharedLoads = 0;
};

/// Elements group `p` of a statement's kernel loads from global memory per block (per plane
/// when the kernel sweeps), for a block of `points` output points (per plane) and a chunk of
/// `planes` planes per block (0: a whole sweep, whose once-per-block loads are left out): each
/// reference's element per point when read from global memory, a staged tile or plane once.
double groupLoads(const StagePlan& p, int64_t points, bool streamed, double planes);

/// The traffic of kernel `k`, which computes statement k.stmt of call k.call under `staging`
/// (global, global-stream, shared, stream).
Traffic statementTraffic(const Program& prog, const GpuKernelInfo& k, const StmtStaging& staging);

/// The traffic of kernel `k` of the `global` family fusing statements k.fusedStmts of call
/// k.call (analysis/stmt_fusion.h), each under its staging (`stagings`, one per statement):
/// FLOPs add up; an array reaches the SM (L2) once per block, the most any one statement reads
/// of it (its statements read it at overlapping offsets), and DRAM once, unless an earlier
/// statement of the kernel wrote it (the thread's own element, still in cache); a local scalar
/// that `inRegister` marks costs nothing, the others a buffer element each way; each array
/// written is stored once.
Traffic fusedStatementTraffic(const Program& prog, const GpuKernelInfo& k,
                              const std::vector<const StmtStaging*>& stagings,
                              const std::vector<bool>& inRegister);

/// One array a fused kernel loads: its box (tile coordinates) and the elements loaded.
struct FusedLoad {
  int array = -1;
  Box box;
  int64_t points = 0;
};

/// What fused kernel `k` (its variant's analysis `a`) loads from global memory per block (per
/// plane when streamed): the hull of each global array it writes, less what its first writer
/// overwrites unread, then the footprint of each array it only reads.
std::vector<FusedLoad> fusedLoads(const Program& prog, const GpuKernelInfo& k,
                                  const TileAnalysis& a);

/// The traffic of fused kernel `k` (overlapped, stream + time_tile) from its analysis.
Traffic fusedTraffic(const Program& prog, const GpuKernelInfo& k, const TileAnalysis& a);

}  // namespace tessel
