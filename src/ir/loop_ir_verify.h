// The kernel verifier: properties every GPU kernel of the loop IR must have, whatever pass built
// it, checked on the IR before it is printed (architecture.md: ir/ holds the verifier).
//   - Every barrier is reached by all the threads of a block: it is not under a condition, nor in
//     a loop whose bounds or step, that differ between the threads of a block (thread-varying:
//     computed from the thread's local or global index).
//   - Every Store and Load names a buffer the kernel has: a pointer parameter, a shared array, or
//     a pointer the body declares.
//   - A shared-array access at a constant index lies inside the array.
//   - No mark for pass prefetch-planes is left (lir::planeLoad, lir::planeStart).
// A violation is a defect of the compiler, not of the user's program (an internal error).
#pragma once

#include <string>
#include <vector>

#include "ir/loop_ir.h"

namespace tessel::lir {

/// What is wrong with kernel `f`, one line each; empty when nothing is (and for a function that
/// is no kernel).
std::vector<std::string> verifyKernel(const Function& f);

}  // namespace tessel::lir
