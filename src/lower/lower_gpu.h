// Lowering of a checked Program to GPU kernels and the host code that drives them.
//
// Structure (correct for every program the language accepts, the simplest that is):
//   - one kernel per statement of each call, `call<N>_<stencil>_s<K>`. Statements run in
//     textual order, each over its whole region (language.md 5.2), so a statement that reads
//     what an earlier one wrote at an offset needs a global barrier in between: the kernel
//     boundary is that barrier. Each thread computes one point of the statement's region:
//       global         a 1-D, 2-D or 3-D grid matching the program's dimensions (x = the last,
//                      fastest iterator), guards at the edges;
//       global-stream  a grid over every dimension but the streaming one (by default the
//                      slowest), each thread looping over the streaming dimension; a 1-D program
//                      has nothing to stream over and gets `global` (with a note).
//       shared         the `global` grid with blocks of tile points (block x unroll); every array
//                      the statement reads at an offset is staged in shared memory (the tile plus
//                      its halo, loaded cooperatively), a barrier, then each thread computes its
//                      point(s) from shared memory;
//       stream         a grid over every dimension but the streamed one, plus one dimension of
//                      chunks of planes; each block sweeps its chunk plane by plane, with a window
//                      of planes per input: centre-only planes in registers, the others in a ring
//                      of shared planes (STENCILGEN's Algorithm 1; analysis/staging.h);
//                      a 1-D program gets `shared` (with a note).
//       overlapped     calls grouped by schedule/resolve.h (planFusion) run as one kernel per fused
//                      group of T calls (lower_gpu_overlapped.cpp): stages in shared memory,
//                      results to each written array's second buffer, swapped by the host; the
//                      remaining steps and the calls that cannot be fused use per-statement
//                      `global` kernels. Shared memory is not checked here against a machine:
//                      Schedule validation (validateFusion) refuses what does not fit.
//     Region bounds are kernel arguments, computed by the host from the symbolic regions. The
//     last parameter of every kernel is the device error status (an int; lir::Status).
//   - host code (target-neutral C++ over the generated host runtime, gpu_host_runtime.h): one
//     function per call, `call<N>_<stencil>`, that evaluates the initialised locals, clears the
//     call's local arrays (their buffers come from tessel_program, allocated once per run and
//     shared between calls; a scratch copy starts as a device-to-device copy instead), allocates
//     its local-scalar buffers on the device, computes each statement's region and launches its
//     kernel when the region is not empty; and `tessel_program(rt, arrays, scalars, params)`,
//     which allocates every global array on the device (copyin and constant arrays copied in,
//     the others zero-filled) and the calls' local arrays, runs Program::body (iterate loops are
//     host loops) and copies the results out: the copyout arrays, or, when the program has no
//     copyout list, every global array a call writes. It returns the host's error status (an
//     initialised local can divide by zero).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/loop_ir.h"
#include "ir/program.h"
#include "schedule/family.h"
#include "schedule/resolve.h"

namespace tessel {

/// One generated kernel.
struct GpuKernelInfo {
  std::string name;
  int call = -1, stmt = -1;                        // which statement of which call it computes
  ScheduleFamily family = ScheduleFamily::Global;  // as applied (after any fallback)
  std::vector<int> gridIters;             // the iterator dimension of grid x, y, z (1 to 3)
  std::array<int, 3> block = {1, 1, 1};   // threads per block, x first
  int streamIter = -1;                    // the iterator each thread loops over; -1: none
  int chunk = 0;                          // stream: planes per block; 0: the whole extent
  std::array<int, 3> unroll = {1, 1, 1};  // points per thread along grid x, y, z
  bool cyclic = false;                    // unrolled points a block apart (else consecutive)
  /// overlapped (tiled): the block covers block x tileUnroll points along grid x, y, z, each
  /// stage's cooperative loop giving a thread that many elements (`unroll` stays 1: a thread
  /// has no copies of its own).
  std::array<int, 3> tileUnroll = {1, 1, 1};
  int prefetched = 0;         // stream: prefetch registers per thread
  std::string notPrefetched;  // stream with prefetch: the planes left without, why
  std::string folded;         // folded combinations staged as one array ("my * u")
  /// Fused streamed kernels: the arrays read from global memory instead of an input ring
  /// (TileSpec::globalInputs: gmem placements, occupancy demotion), "m, c"; "" for none.
  std::string inGlobalMemory;
  std::string perspective;  // shared, input or mixed: block against output tile
  /// Output points a block covers along grid x, y, z where the input or mixed perspective
  /// makes them fewer than block x unroll (GridShape::tile); 0: block x unroll (tileAlong).
  std::array<int64_t, 3> tilePoints = {0, 0, 0};
  int64_t tileAlong(size_t gd) const {
    return tilePoints[gd] > 0 ? tilePoints[gd] : static_cast<int64_t>(block[gd]) * unroll[gd];
  }
  std::string staging;  // shared, stream: what is staged where
  // overlapped: the fused calls (call = the first, stmt = -1), the output tile per iterator
  // dimension.
  std::vector<int> fusedCalls;
  /// global with statement fusion (analysis/stmt_fusion.h): the call's statements this kernel
  /// computes, in order (stmt = the first); empty: one statement.
  std::vector<size_t> fusedStmts;
  std::vector<int64_t> tile;
  int64_t sharedBytes = 0;  // shared memory per block (shared, stream, overlapped)
  /// stream: copies of the sweep's body per round of its loop (the rings' slots; the last
  /// planes of a chunk, fewer than a round, are copies after the loop).
  int sweepCopies = 1;
  // Pass narrow-indices (transforms/narrow_indices.h): the width of its int arithmetic, why it
  // stays at 64 bits ("" when narrowed, or when --index-bits 64 says so), and under
  // --index-bits auto the launch id of its 64-bit copy (-1: none).
  int indexBits = 64;
  std::string wideReason;
  int maxRegisters = 0;  // the register cap it was generated with (Schedule::maxRegisters); 0 none
  /// Fused kernels: the arrays a stage writes whose write-back is left out (no later kernel
  /// reads them and the program does not copy them out: analysis/dead_stores.h), "out, v"; "".
  std::string deadStores;
  /// Streamed fused kernels, and retimed stream kernels: the input rings keep a spare plane
  /// (Schedule::sparePlane), so the next plane loads while the current one is read (no barrier
  /// between).
  bool sparePlane = false;
  /// Overlapped kernels: the values computed in their reader's loop, in registers
  /// (TileHull::inRegisters), "lap (step 1), lap (step 2)"; "".
  std::string registerValues;
  /// Overlapped kernels without `--register-values on`: the values it would keep in registers,
  /// and the bytes of shared memory their tiles take; "" and 0 where none.
  std::string registerCandidates;
  int64_t registerCandidateBytes = 0;
  /// Pass contract-fma turned some a*b+c of it into fma(a, b, c) (`--fma`).
  bool fma = false;
  /// stream --retime: the statement's retimed parts accumulate in this many registers (0: not
  /// retimed; analysis/retiming.h).
  int retimed = 0;
  int fallback = -1;
};

struct GpuProgram {
  // The kernels (helpers are added by the emitter): kernels[k] describes device.functions[k];
  // after pass narrow-indices, device.functions ends with the 64-bit copies of narrowed kernels
  // (GpuKernelInfo::fallback), which `kernels` does not list.
  lir::Module device;
  lir::Module host;                    // the call functions and tessel_program
  std::vector<GpuKernelInfo> kernels;  // by launch id
  std::vector<std::string> notes;      // decisions the user should hear about (fallbacks)
  /// Pass narrow-indices: the margin of the host's test that a run's sizes fit the narrowed
  /// kernels (transforms::indexFitTest); -1 where no kernel is narrowed.
  int64_t indexMargin = -1;
};

/// The kernels and host code of `prog` for its resolved schedule (schedule/resolve.h): the
/// pipeline's pass build-kernels (lower/lower.h). Throws std::invalid_argument when `resolved`
/// is not one of this program's (a grid per stencil).
GpuProgram buildKernels(const Program& prog, const ResolvedSchedule& resolved);

}  // namespace tessel
