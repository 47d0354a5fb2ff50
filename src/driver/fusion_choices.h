// `tessel analyze --fusion-choices` (issue 13): the model's search over fission and fusion
// choices. The program as written and each variant the fission and fusion-group modes make of it
// (trivial-fission, maxfuse, recompute-fission, the greedy plan's groups: analysis/fission.h,
// analysis/regroup.h) that differs from it, each predicted under every schedule `--compare`
// tries, ranked by predicted time per run. This is what the search over fusion choices reads;
// predictions on the machine's model, never measurements.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "driver/analyze.h"
#include "driver/measure.h"
#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

/// The machine `--machine` names in `flags`; the default, h100, where none is given.
std::string machineOf(const std::map<std::string, std::string>& flags);

/// {"variants": [{fusion, calls, notes, same_as_written}], "ranking": [{fusion, schedule,
/// seconds, gstencils_per_s, kernels, bound, extrapolated} or {fusion, schedule, refused}]}, the
/// ranking by predicted seconds (refused last). `flags` are the user's schedule flags (kept,
/// besides the family and time tile each candidate sets; --machine picks the greedy plan's
/// shared memory too).
nlohmann::json rankFusionChoices(const Program& prog,
                                 const std::map<std::string, std::string>& flags,
                                 const ParamValues& params, DiagnosticEngine& diags);

/// `--fusion-groups auto`: the fusion choice the model predicts fastest per run, of the program
/// as written and the variants fusionChoiceNames() makes that change it; ties within
/// kChoiceMargin go to the earlier one, the program
/// as written first. With `chooseSchedules` (--schedule auto, or a GPU run without a family) each
/// is costed under its own chooseSchedule() and the schedule comes with the choice; else under
/// `flags` as they are.
struct FusionModelChoice {
  std::string value;                     // the --fusion-groups value chosen (none, greedy, ...)
  double seconds = 0;                    // predicted per run
  std::optional<double> writtenSeconds;  // the program as written, the same way (none: refused)
  std::optional<ModelChoice> schedule;   // with chooseSchedules: the schedule chosen with it
  size_t tried = 0;                      // the choices costed
  /// The one line that says what was chosen.
  std::string line() const;
};

/// Nullopt after an error reported through `diags` (no choice could be costed).
std::optional<FusionModelChoice> chooseFusion(const Program& prog,
                                              std::map<std::string, std::string> flags,
                                              const std::map<std::string, int64_t>& params,
                                              bool chooseSchedules, DiagnosticEngine& diags);

/// `analyze --fusion-choices --measure BACKEND`: the model's ranking put to the test, a search
/// over fusion choices that measures. The first `top` rows the model did not refuse each run on
/// `backend` (measure.h: a warm-up, then `repeat` timed runs, the median), verified against the
/// program as written.
struct FusionMeasureOptions {
  std::string backend;  // cuda, opencl, cpp
  int repeat = 5;
  size_t top = 5;
  std::map<std::string, int64_t> params;
};

/// {"backend", "device", "repeat", "rows": [{fusion, schedule, predicted_seconds, seconds,
/// verified}] in the ranking's order, "best": the index of the fastest measured}; nullopt after
/// an error in `diags` (a row that cannot run; a failed verification, which is a bug).
std::optional<nlohmann::json> measureFusionChoices(const Program& prog,
                                                   const nlohmann::json& choices,
                                                   const std::map<std::string, std::string>& flags,
                                                   const FusionMeasureOptions& opts,
                                                   DiagnosticEngine& diags);

/// One row of the ranking (its fusion choice and schedule flags) run on mo.backend and verified
/// against `prog`, the program as written (measure.h's report); nullopt after an error in
/// `diags`, a failed verification included (a bug, reported as one). `machineName`: the machine
/// the greedy plan's shared memory comes from. Where mo builds only or the code was measured
/// before (MeasureOptions::buildOnly, measuredCode), measure.h's short report, unverified.
std::optional<nlohmann::json> measureChoice(const Program& prog, const nlohmann::json& row,
                                            const std::string& machineName,
                                            const MeasureOptions& mo, DiagnosticEngine& diags);

/// The ranking as text: the variants and the first rows of the ranking (and the measured rows).
std::string fusionChoicesText(const nlohmann::json& choices);

}  // namespace tessel
