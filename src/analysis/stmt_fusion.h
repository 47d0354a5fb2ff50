// Spatial fusion of a call's statements into one GPU kernel (issue 13; paper 000 VI-B's maxfuse
// within a stencil, paper 004 VI): consecutive statements share a kernel, one thread per point
// running them in textual order, where no thread reads or writes an element another thread
// writes in the same kernel. The rule: every array written by a statement of the group is
// accessed by all the group's statements at one subscript vector only (the left-hand side's,
// offsets included), so each of its elements belongs to one thread, which runs the statements
// in order (language.md 5.2: statement-sequential, domain-parallel; that holds because no
// other thread touches the element). Local scalars are per point (language.md 9.3): in a fused
// kernel they are registers where every statement that uses one is in the same group.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"

namespace tessel {

struct StatementGroups {
  /// Consecutive runs of statement indices, in order; each run one kernel.
  std::vector<std::vector<size_t>> groups;
  /// Why group g + 1 starts where it does (one entry per boundary): the access that would let
  /// two threads touch one element.
  std::vector<std::string> breaks;
  /// Per local scalar of the call: the group that uses it when every statement that uses it is in
  /// one group (kept in a register there), else -1 (it keeps its buffer over the call box).
  std::vector<int> scalarGroup;
};

/// The groups of `call`'s statements (greedy, in textual order: a statement joins the group
/// before it unless the rule above breaks).
StatementGroups fuseStatements(const Program& prog, const CallInst& call);

}  // namespace tessel
