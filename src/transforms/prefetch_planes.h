// Pass `prefetch-planes` (`--prefetch`, `#pragma ... prefetch`): prefetching, paper 000
// (ARTEMIS) section III-A4. In a streamed sweep, each plane of an input that goes to shared
// memory is loaded from global memory into registers one plane ahead, while the current plane is
// computed; the plane's shared-memory store then reads the registers, and the global loads'
// latency overlaps the compute instead of preceding it.
//
// The builders of the stream family (per statement, lower_gpu_staged_stream.cpp) and of stream +
// time tile (fused rings, lower_gpu_fused_rings.cpp) write their plane loads as they always do
// (cooperative loops, one thread's elements per loop iteration) and mark them (lir::planeLoad:
// the plane variable and whether a next plane exists), and mark where the sweep starts
// (lir::planeStart: the plane variable's first value). Per marked input this pass, for every
// target alike:
//   - gives a thread one register per element it loads of the plane (each cooperative loop
//     nest made straight-line, slot m: the loop variables `lo + (m's digit) * step`, mixed radix
//     with the innermost loop fastest, guarded by `var <= hi`), at most
//     kMaxPrefetchRegisters: a block much narrower than its halo loads more, and is left
//     without (the kernel report says which input and why);
//   - at the start marker, declares the registers and loads the first plane into them (the
//     plane variable replaced by its first value);
//   - in each marked load, stores the registers instead of the global elements, then, where
//     the sweep has a next plane, loads it into them (the plane variable plus one). The own
//     points that a thread stores from its register planes stay as they were (they were in
//     registers already), and the registers' load leaves them out with the same guard.
// The pass fills GpuKernelInfo::prefetched and notPrefetched, which the kernel report shows.
#pragma once

#include <cstdint>

#include "lower/lower_gpu.h"

namespace tessel::transforms {

/// Registers per thread at most for one prefetched input.
inline constexpr int64_t kMaxPrefetchRegisters = 16;

/// `p` with every marked plane load prefetched where it fits (see above), and no marks left.
/// Throws std::logic_error ("internal error") for a marked load that is not a block of
/// cooperative loops storing one element each.
GpuProgram prefetchPlanes(const GpuProgram& p);

}  // namespace tessel::transforms
