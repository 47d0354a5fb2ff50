// MODESTO's model-driven grouping (paper 002, section 3.2; issue 13): the dynamic programme over
// contiguous groupings. For a topological order of the stencils, the level-2 groups are
// contiguous runs of it, chosen by
//
//   best(0) = 0,   best(i) = min over j < i of best(j) + t(order[j..i))
//
// where t(run) is the run's time as a child of the root group, max(t_c, v_c / V, lat_c / L)
// (evaluate.h): the root's time is the sum of its children's, and a child's traffic and time
// depend only on which stencils it holds, so the programme finds the cheapest grouping of the
// order exactly, in n(n+1)/2 child evaluations instead of 2^(n-1) variants. Runs whose storage
// does not fit the level-2 memory are left out (the feasibility check m_l <= M_l). The
// exhaustive search (search.h) checks it on small programs.
#pragma once

#include <optional>

#include "modesto/evaluate.h"

namespace tessel::modesto {

/// The cheapest feasible variant of `p` on the two-level hierarchy `h` over at most `orderLimit`
/// topological orders; nullopt when no grouping fits. The runs' counts, independent of one
/// another, run on `threads` threads (0: one per core); the result does not depend on how many.
/// Throws std::invalid_argument for an invalid program or a hierarchy of other than two levels.
std::optional<Evaluation> groupByDynamicProgram(const StencilProgram& p, const Hierarchy& h,
                                                size_t orderLimit = 100, unsigned threads = 0);

/// An estimate of the counting engine's work for the dynamic programme on one topological order
/// of `p` counted run by run: over every run [a, b) of the program order, the sum over its
/// stencils of their reads times the points of their domains (the keys its input maps visit
/// once); the incremental count (run_costs.h) visits fewer where it applies. A bound for callers
/// that cannot wait: diffterm's two calls come to 1.3e7 and 1.6e7 (5.7 s of CPU time together
/// on this project's 2-core machine, 24 orders), rhs4center's 30 statements to 7.9e8 (35 s of
/// CPU time: 4.7 s per order, counted incrementally), divided among the threads.
double countingWork(const StencilProgram& p);

}  // namespace tessel::modesto
