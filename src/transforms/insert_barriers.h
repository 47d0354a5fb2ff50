// Pass `insert-barriers`: places the barriers of GPU kernels from their shared-memory accesses,
// so that no kernel builder places one by hand.
//
// Threads of a block communicate through shared memory; a barrier orders the accesses before it
// before those after it, for every thread of the block. The pass walks a kernel's statements in
// program order at the places a barrier may stand (the kernel's top level, and the bodies of
// blocks, of loops and of conditions that are the same for every thread of the block: see
// ir/loop_ir_varying.h), keeping the shared arrays read and written since the last barrier.
// Before a statement that reads an array written since then (read after write) or writes one
// read since then (write after read) or writes one written since then (write after write: an
// overlapped kernel loads an array's previous values and a later stage overwrites some of
// them), it places a barrier. Arrays are taken whole, so this is conservative, and places no
// barrier between phases that share no array (after a stage that touches no shared memory, for
// instance). Where a builder knows that statements write disjoint elements (a thread's own
// point of a plane, then the halo around the tile; the planes of a ring, each to its slot), it
// says so with a phase block (lir::phaseBlock), which the pass takes whole; where it knows that
// a block's stores touch nothing accessed since the last barrier (a ring's newest plane into the
// slot no thread reads any more), with a fresh block (lir::freshBlock), whose writes then need no
// barrier before them. The Oclgrind check of the tests (docs/gpu.md section 9) reports a race if
// such a claim is ever wrong.
//
// Loops: a loop body is entered from before the loop and from the end of its previous
// iteration, so it is placed with the union of both states, to a fixed point; a barrier that
// the carried state needs stands in the body, before the first statement that touches shared
// memory (the stream family's "every thread is done with the slot the leading plane
// overwrites", at the top of each plane).
//
// A block (other than a phase block), uniform loop or uniform condition that needs no barrier
// between its own statements is taken whole (a barrier before it stays outside its scope). A
// statement whose control differs between threads (a guard on the thread's point, a cooperative
// loop over a tile) is always taken whole: a barrier cannot stand inside it, and the builders
// keep the accesses inside one such statement free of conflicts between threads. A barrier goes
// as early as is correct: right after the last statement of its list that touched shared memory
// (the statements between touch none), so that fewer values live across it. Barriers already in
// the kernel are kept and start a new phase: the pass is idempotent.
#pragma once

#include "ir/loop_ir.h"

namespace tessel::transforms {

/// Kernel `k` (Linkage::Kernel) with its barriers placed; any other function unchanged.
lir::Function insertBarriers(const lir::Function& k);

/// Every kernel of `device` through insertBarriers; other functions are kept.
lir::Module insertBarriers(const lir::Module& device);

}  // namespace tessel::transforms
