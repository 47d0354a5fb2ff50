// The reference interpreter: what a program computes, exactly per language.md sections 5 and 9.
// Every backend and every schedule is checked against it.
#pragma once

#include "ir/program.h"
#include "runtime/errors.h"
#include "runtime/state.h"

namespace tessel {

/// Runs Program::body on `state` (global arrays and scalars, parameter values): calls in textual
/// order, `iterate` loops with inclusive bounds evaluated on entry. Each statement of a call runs
/// over its whole region (analysis/regions.h), row-major, before the next. Throws RuntimeError
/// for integer division by zero, a negative integer power, an access outside an array (the
/// program should have been checked with checkBounds first) or a state that does not match the
/// program (wrong array sizes, missing parameter values).
void interpret(const Program& prog, ProgramState& state);

}  // namespace tessel
