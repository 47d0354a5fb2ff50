// Fusion groups as a program (issue 13): a call's statements regrouped into kernels, each group
// a call of its own, so that a grouping chosen by STENCILGEN's greedy fusion (greedy_fusion.h) or
// by MODESTO's dynamic programme (modesto/grouping.h) runs through every family: under
// `overlapped` each group is one kernel that recomputes its halos on chip, under `global
// --fuse-statements` one kernel where no thread needs another's values.
//
// What crosses a group boundary is materialised in global memory, as paper 002's split variants
// store a temporary between two groups (section 2.3): a local array written in one group and read
// in another becomes a global `allocin` array of the same extents, a per-point local scalar one
// with the extents of the iterators per assignment another group reads (the value at each point
// it was assigned; language.md 9.3). Apart, a
// statement would no longer have its region shrunk to what the statements before it in the call
// wrote (language.md 5.5, 9.1, 9.3), so each statement whose region would change gets its
// original region as its statement domain (9.5), and the regroup is refused where the regions
// still differ, or a region cannot be written as a statement domain.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"

namespace tessel {

/// One call's grouping: statement indices (0-based) per kernel. Empty: the call stays whole.
using CallGroups = std::vector<std::vector<int>>;

/// Why call `call` cannot run as `groups` (empty: it can): the groups do not cover each statement
/// once, or no order of the groups keeps every dependence (flow, anti and output, through arrays
/// and local scalars) pointing forward (a group is not convex), or a value that crosses groups is
/// a scratch copy of a global array (language.md 9.4) or a scalar read before it is assigned. (A
/// scalar assigned several times crosses per assignment: each value another group reads gets
/// its own global array.)
std::string groupingProblem(const Program& prog, int call, const CallGroups& groups);

/// `groups` in an order that keeps every dependence pointing forward (each group's statements
/// in program order; groups ordered topologically, ties by their first statement). Requires
/// groupingProblem() to be empty.
CallGroups orderedGroups(const Program& prog, int call, const CallGroups& groups);

/// `prog` with call c split into the calls of `groups[c]` (in dependence order), crossing
/// temporaries promoted to global arrays and regions pinned as the header says. Calls whose
/// grouping is empty, one group, or refused stay whole; `notes` gets a line per call that was
/// regrouped or refused (with why). `groups` has one entry per call (missing entries: whole).
Program regroupProgram(const Program& prog, const std::vector<CallGroups>& groups,
                       std::vector<std::string>& notes);

/// "[s0,s1] [s2,s3]".
std::string groupsText(const CallGroups& groups);

}  // namespace tessel
