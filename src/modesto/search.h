// MODESTO's search (paper 002, section 3.2), exhaustive: every grouping of every topological
// order of the stencils, each evaluated exactly (evaluate.h), feasible variants first, then by
// predicted time. levels^(n-1) groupings per order: fine for the programs of the papers (4 to 8
// stencils on 2 levels); the paper's dynamic programme over contiguous groupings, which the fusion
// work (issue 13) needs for larger programs, is a heuristic whose answers this search can check.
#pragma once

#include <vector>

#include "modesto/evaluate.h"

namespace tessel::modesto {

/// Every variant, ranked; at most `orderLimit` orders are tried.
std::vector<Evaluation> rankVariants(const StencilProgram& p, const Hierarchy& h,
                                     size_t orderLimit = 100);

}  // namespace tessel::modesto
