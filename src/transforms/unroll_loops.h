// Pass `unroll-loops`: every loop annotated LoopKind::Unrolled (constant bounds) is replaced by
// one copy of its body per iteration, its index replaced by the iteration's value and the index
// arithmetic folded (`t0_i + (local_id.x * 2 + 0)` -> `t0_i + local_id.x * 2`), in place in
// the enclosing statement list. Each copy is a block of its own (after a comment naming the
// index's value), so the locals it declares do not clash. A builder says which loops to
// unroll (the points a thread computes under `--unroll`); this pass does it, for every family
// and target alike.
#pragma once

#include "ir/loop_ir.h"

namespace tessel::transforms {

/// The most iterations one unrolled loop may have (the schedule caps unroll factors far
/// below); more is an internal error.
inline constexpr int64_t kMaxUnrolledTrips = 1024;

/// Function `f` with its Unrolled loops unrolled (inner loops first). Throws std::logic_error
/// ("internal error") for an Unrolled loop whose bounds or step are not constants.
lir::Function unrollLoops(const lir::Function& f);

/// Every function of `m` through unrollLoops.
lir::Module unrollLoops(const lir::Module& m);

}  // namespace tessel::transforms
