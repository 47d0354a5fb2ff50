// Pass `work-item-loops`: GPU kernels become CPU functions (the C++ target runs every schedule
// family through the same kernels as the GPUs).
//
// A kernel describes what one thread of a block does, with barriers between phases. On a CPU a
// block is a cache tile run by one OpenMP thread, and its threads become loops ("work-item
// loops", the technique of PoCL and of Stratton et al.'s MCUDA):
//
//   for each block g (omp parallel for)            blocks are independent
//     shared arrays, then private arrays            one per block
//     for each thread (z, y, x) { phase 1 }         the code up to the first barrier; the x
//                                                    loop vectorised (omp simd: lanes in step)
//     for each thread (z, y, x) { phase 2 }         a barrier is the end of one loop
//     for (uniform loop) {                           a loop or if that holds a barrier runs
//       for each thread { phase } ...                once per block: its bounds and condition
//     }                                              are the same for every thread (the kernel
//                                                    verifier checks that) and are read from
//                                                    thread 0
//
// A variable declared in one phase and used in another lives in an array with one element per
// thread (`name[tid]`); the others stay plain locals of their phase. Thread and block indices
// (lir::Intrinsic) become the loop variables and the function's grid parameters. The result is
// exact: the same operations on the same values as on the GPU, in one of the orders the GPU's
// semantics allow.
#pragma once

#include "ir/loop_ir.h"

namespace tessel::transforms {

/// Names of the parameters the CPU function takes before the kernel's own: the number of
/// blocks and the threads per block, x first.
inline constexpr const char* kCpuGroupsParam[3] = {"tessel_groups_x", "tessel_groups_y",
                                                   "tessel_groups_z"};
inline constexpr const char* kCpuBlockParam[3] = {"tessel_block_x", "tessel_block_y",
                                                  "tessel_block_z"};

/// The CPU function of kernel `k` (Linkage::Kernel): an Internal function named like the
/// kernel, taking the grid (kCpuGroupsParam, kCpuBlockParam) and then the kernel's parameters.
/// Throws std::logic_error ("internal error") for a kernel it cannot translate (a barrier under
/// control flow that differs between threads, a thread index in such control flow).
lir::Function workItemLoops(const lir::Function& k);

/// Every kernel of `device` through workItemLoops; other functions are kept.
lir::Module workItemLoops(const lir::Module& device);

}  // namespace tessel::transforms
