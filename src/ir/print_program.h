// A program written back in the input language (language.md), from the Algorithm IR: what
// `tessel split` writes. Every call becomes a stencil of its own without formal arguments (its
// statements name the global arrays and scalars directly, with its locals and initialised locals
// declared in its body), and the call sequence calls them in order, in the same `iterate` loops
// with the same call and statement domains. The declarations and data lists are the program's;
// the program's `#pragma` hints are not written (a note in the header says so): only those the
// caller gives per call.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"

namespace tessel {

/// The source text of `prog`, after `header` (comment lines, each starting with "// "), with
/// `pragmas[c]` (clauses, language.md section 8), where given and not empty, written as a
/// `#pragma` line before call c's stencil. Throws std::invalid_argument for a call with scratch
/// arrays (`inout:`), which a stencil without formals cannot express.
std::string programSource(const Program& prog, const std::string& header,
                          const std::vector<std::string>& pragmas = {});

}  // namespace tessel
