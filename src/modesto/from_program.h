// A Tessel call as a MODESTO stencil program (program.h): each statement one stencil, named by
// the array it writes, reading arrays at constant offsets along the call's iterators, evaluated on
// its iteration box at the given parameter values; the call's local (virtual) arrays are
// temporaries, the arrays it writes that outlive it the outputs. This is how the fusion work
// hands a program's statements to the hierarchical model.
#pragma once

#include "ir/program.h"
#include "modesto/program.h"

namespace tessel::modesto {

/// Throws std::invalid_argument naming the statement (file:line) when the call is not a MODESTO
/// program: an array written by two statements (or read by the statement that writes it, a
/// compound assignment included), a read of a fixed plane or of a lower-rank array, a per-point
/// scalar written, or more than three dimensions.
StencilProgram fromCall(const Program& prog, const CallInst& call, const ParamValues& params);

}  // namespace tessel::modesto
