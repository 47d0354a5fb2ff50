// A program written back in the input language (language.md), from the Algorithm IR: what
// `tessel split` writes. Every call becomes a stencil of its own without formal arguments (its
// statements name the global arrays and scalars directly, with its locals and initialised locals
// declared in its body), and the call sequence calls them in order, in the same `iterate` loops
// with the same call and statement domains. The declarations and data lists are the program's;
// `#pragma` hints are not written (a note in the header says so).
#pragma once

#include <string>

#include "ir/program.h"

namespace tessel {

/// The source text of `prog`, after `header` (comment lines, each starting with "// ").
/// Throws std::invalid_argument for a call with scratch arrays (`inout:`), which a stencil
/// without formals cannot express.
std::string programSource(const Program& prog, const std::string& header);

}  // namespace tessel
