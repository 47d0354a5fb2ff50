// A Tessel call as a MODESTO stencil program (program.h): each statement one stencil, named by
// the field it writes, reading fields at constant offsets along the call's iterators, evaluated on
// its iteration box at the given parameter values; the call's local (virtual) arrays and per-point
// scalars are temporaries, the arrays it writes that outlive it the outputs. A field written by
// several statements (a per-point scalar assigned again, an array updated by a compound
// assignment) is a field per write: `m0`, `m0#2`, ... (each read takes the version written last
// before it). This is how the fusion work hands a program's statements to the hierarchical model.
#pragma once

#include "ir/program.h"
#include "modesto/program.h"

namespace tessel::modesto {

/// Throws std::invalid_argument naming the statement (file:line) when the call is not a MODESTO
/// program: a read of a fixed plane or of a lower-rank array, or more than three dimensions.
StencilProgram fromCall(const Program& prog, const CallInst& call, const ParamValues& params);

}  // namespace tessel::modesto
