// `tessel analyze --fusion-choices` (issue 13): the model's search over fission and fusion
// choices. The program as written and each variant the fission and fusion-group modes make of it
// (trivial-fission, maxfuse, recompute-fission, the greedy plan's groups: analysis/fission.h,
// analysis/regroup.h) that differs from it, each predicted under every schedule `--compare`
// tries, ranked by predicted time per run. This is what the search over fusion choices reads;
// predictions on the machine's model, never measurements.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

/// {"variants": [{fusion, calls, notes, same_as_written}], "ranking": [{fusion, schedule,
/// seconds, gstencils_per_s, kernels, bound, extrapolated} or {fusion, schedule, refused}]}, the
/// ranking by predicted seconds (refused last). `flags` are the user's schedule flags (kept,
/// besides the family and time tile each candidate sets; --machine picks the greedy plan's
/// shared memory too).
nlohmann::json rankFusionChoices(const Program& prog,
                                 const std::map<std::string, std::string>& flags,
                                 const ParamValues& params, DiagnosticEngine& diags);

/// The ranking as text: the variants and the first rows of the ranking.
std::string fusionChoicesText(const nlohmann::json& choices);

}  // namespace tessel
