// Kernel fission (paper 000 section VI-B; issue 13): ARTEMIS's `trivial-fission` splits a call
// into one kernel per distinct global array it writes, each with the temporaries (local scalars
// and local arrays) that array needs, temporaries shared by several outputs replicated (Figure
// 3: rhs4center's three outputs uacc0..2 each recompute mux1 .. muz4). `maxfuse` fuses the
// consecutive calls with the same domain into one stencil ("all the stencil functions with the
// same domain are fused"), where fused they compute what they computed apart. The split is a new
// program (splitProgram), which `tessel split` writes out in the language (ir/print_program.h) so
// that users can read, check and tune it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/accesses.h"
#include "ir/program.h"

namespace tessel {

enum class FissionMode { MaxFuse, TrivialFission };

/// "maxfuse", "trivial-fission".
const char* fissionModeName(FissionMode m);

/// The kernels trivial fission makes of call `call`: per global array it writes (in the order
/// of their last writes), the statements (indices, in order) that write it and those that
/// compute the temporaries they read, transitively. One kernel (every statement) when the call
/// writes one global array. `whyNot` is set, and `kernels` empty, where splitting would change
/// what the program computes: a statement reads a global array that another kernel writes (its
/// region would no longer shrink to what the writer computed, language.md 5.5), or a global
/// array is written by statements of different kernels.
struct FissionPlan {
  std::vector<std::vector<int>> kernels;
  std::vector<std::string> outputs;  // per kernel, the global array it writes
  std::string whyNot;
};
FissionPlan trivialFission(const Program& prog, int call);

/// The value of a call that a reference names: {0, global array}, {1, local array},
/// {2, per-point local scalar}.
using CallValue = std::pair<int, int>;
CallValue callValueOf(const Reference& r);

/// Call `c` with only the statements `keep`, in that order. Every local declaration stays (the
/// statements' indices into them stay valid); the printer declares only those the statements use.
CallInst subCall(const CallInst& c, const std::vector<int>& keep);

/// `nodes` with each call node `n` replaced by the call nodes `replace[n.call]` (in order), the
/// `iterate` loops kept.
std::vector<ExecNode> replacedCalls(const std::vector<ExecNode>& nodes,
                                    const std::vector<std::vector<int>>& replace);

/// `prog` with every call split as `mode` says (each kernel a call of its own, with the locals
/// its statements use, the same call domain, in place of the call in the call sequence), or,
/// under maxfuse, each run of consecutive calls in one list of the call sequence with the same
/// domain merged into one call (the later calls' locals renamed where names clash), as long as
/// every statement keeps the region it had in its own call (merged, a statement reading what an
/// earlier one wrote would be limited to that one's region, language.md 5.5). Calls that cannot
/// be split or fused stay as they are; `notes` gets a line for each call saying what was done
/// or why not.
Program splitProgram(const Program& prog, FissionMode mode, std::vector<std::string>& notes);

}  // namespace tessel
