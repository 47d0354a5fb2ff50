// Pass `narrow-indices`: 32-bit index arithmetic in the kernels where it is safe (issue 11).
//
// The language computes ints in 64 bits, and so do the kernels the builders make: every loop
// index, thread index, int parameter and linear element index is a 64-bit value. On a GPU that
// is expensive: an sm_90 core has no 64-bit integer multiply-add, so each `(k * M + j) * N + i`
// costs several instructions and registers (the stream kernel of j3d7pt spent 122 of its 397
// SASS instructions per plane on 64-bit integer operations, at 64 registers). AN5D and
// STENCILGEN's generated kernels index in 32 bits.
//
// A kernel is narrowed (lir::Function::intBits = 32, its int parameters and locals Int32) when
//   - its schedule allows it (Schedule::indexBits: auto or 32, not 64),
//   - none of the statements it computes does int arithmetic of its own (int_arithmetic.h):
//     then every int value in the kernel is an index, a bound or a thread coordinate, and
//   - its int literals are small (at most kMaxLiteral: tile extents, halo offsets).
// Every int value of such a kernel is then one of two kinds. A coordinate, bound or thread
// index: a parameter or a region bound plus thread and tile offsets (at most the largest
// literal plus a block's 1024 threads), so within 2^31 when every parameter lies in
// [-2^30, 2^30]. Or a linear element index, `(x0 * E1 + x1) * E2 + x2` plus constant offsets:
// the builders compute one only for an element inside its array (a point of the region, whose
// reads lie in the array by the region rule, or a load under its in-array guard), so its value
// and every partial sum lie in [-m, prod(E_d) + m], m the largest literal plus 2048. The host
// tests exactly that at run time (indexFitTest, once per run, in tessel_program): every
// parameter in [-2^30, 2^30], every extent in [0, 2^30] and every array's element count at
// most 2^31 - 1 - m; and, per launch, that each int argument lies in [-2^30, 2^30]:
//   - auto (the default): the kernel keeps a 64-bit copy, `NAME_i64`, appended to the device
//     module (GpuKernelInfo::fallback), which the host launches when the test fails;
//   - 32: no copy; a run whose sizes fail the test stops with an error naming the kernel.
// Only the GPU APIs are narrowed (the CPU run of the kernels keeps 64-bit ints).
#pragma once

#include <cstdint>

#include "ir/program.h"
#include "lower/lower_gpu.h"
#include "schedule/resolve.h"

namespace tessel::transforms {

/// The largest int literal (in magnitude) a narrowed kernel may hold.
inline constexpr int64_t kMaxLiteral = int64_t{1} << 20;
/// The name of the host's Bool that says the run's sizes fit (indexFitTest), and of the
/// runtime function that stops a run of a kernel narrowed without a copy (--index-bits 32).
inline constexpr const char* kIndexFitVar = "tessel_index32";
inline constexpr const char* kIndexRangeFn = "tessel_index_range";

/// `p` with its kernels narrowed where safe (see above), the host code choosing per launch.
GpuProgram narrowIndices(const GpuProgram& p, const Program& prog, const ResolvedSchedule& r);

/// The host's test that the sizes of a run fit 32-bit kernels whose index expressions add at
/// most `margin` to an element's linear index: every parameter in [-2^30, 2^30], and for every
/// array (global and local) each extent in [0, 2^30] and its element count at most
/// 2^31 - 1 - margin, the product tested factor by factor so that no 64-bit value overflows.
/// Parameters are ParamRefs.
ExprPtr indexFitTest(const Program& prog, int64_t margin);

}  // namespace tessel::transforms
