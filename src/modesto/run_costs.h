// The costs of the runs the dynamic programme (grouping.h) compares, counted incrementally
// (internal to modesto/). On a two-level hierarchy whose levels both compute halos on the fly
// and whose level 1 is untiled (the GPU's and the CPU's, hierarchy.h), the counts of a run
// order[a..b) as a child of the root are unions over its stencils whose terms depend on b and on
// the stencil alone: a stencil's level-2 tiles are pulled back from its consumers, which follow
// it in the order, and whether a field leaves the run depends on the stencils from b on. So for
// a fixed b every run order[a..b), a = b-1 down to 0, is counted by adding order[a] to the
// previous one's sets: n(n+1)/2 stencil additions per order instead of a count of every
// stencil of every run (n^3/6), with the same figures as evaluateRootChild (tested).
#pragma once

#include <utility>
#include <vector>

#include "modesto/hierarchy.h"
#include "modesto/program.h"
#include "modesto/tiling.h"

namespace tessel::modesto::detail {

/// Whether runsEndingAt applies to `h`: two levels, both on the fly, level 1 untiled.
bool runCostsApply(const Hierarchy& h);

/// For a = 0..b-1: the time of the run order[a..b) as a child of the root (evaluate.h's
/// ChildCounts::time) and whether its level-2 group's storage fits level 2's capacity. `base`:
/// level 1's tiling of `p` on `h` (tileRoot). Requires runCostsApply(h).
std::vector<std::pair<double, bool>> runsEndingAt(const StencilProgram& p, const Hierarchy& h,
                                                  const RootTiling& base,
                                                  const std::vector<int>& order, size_t b);

}  // namespace tessel::modesto::detail
