// `tessel analyze FILE`: the performance model's prediction for each kernel of the program
// under its schedule on a machine (perf/predict.h): time per point-update, the bound, each
// level's traffic, intensity and ridge, occupancy and the hints; `--compare` ranks the schedule
// families and time tiles for the program. Predictions, never measurements.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ir/program.h"
#include "support/diagnostics.h"
#include "support/pass_log.h"

namespace tessel {

struct AnalyzeOptions {
  std::map<std::string, std::string> scheduleFlags;  // as the command line gave them
  std::map<std::string, int64_t> params;             // --param NAME=VALUE
  bool ptxas = true;                                 // registers from nvcc when present
  bool compare = false;
  /// Also predict the program with each of issue 11's defaults turned off (default_effects.h).
  bool defaultsEffect = false;
  /// Also rank the program's fission and fusion variants under every schedule --compare tries
  /// (driver/fusion_choices.h).
  bool fusionChoices = false;
  /// With fusionChoices: also run the first `measureTop` rows of the ranking on this backend
  /// (cuda, opencl, cpp), each verified against the program as written; empty: predictions only.
  std::string measureBackend;
  int repeat = 5;      // timed runs per row (median)
  int measureTop = 5;  // rows measured
};

/// The analysis as JSON (program, kernels, and with `compare` the ranking); nullopt after an
/// error reported through `diags` (bad flags, an unknown machine, parameters without values).
std::optional<nlohmann::json> analyzeProgram(const Program& prog, const AnalyzeOptions& opts,
                                             DiagnosticEngine& diags, PassLog* log = nullptr);

/// The program under the schedule flags `flags`, predicted at parameter values `params` (with
/// ptxas's registers and spills per kernel when `ptxas` and nvcc is found): the JSON of
/// `analyze --json` without the ranking. Nullopt when the schedule is refused: its first error
/// in `why` when given, else reported through `diags`.
std::optional<nlohmann::json> predictUnder(const Program& prog,
                                           const std::map<std::string, std::string>& flags,
                                           const ParamValues& params, bool ptxas,
                                           DiagnosticEngine& diags, PassLog* log,
                                           std::string* why = nullptr);

/// The same as text.
std::string analyzeText(const nlohmann::json& analysis);

/// `--compare`: the program under each family and time tile the model's choice tries (the flags
/// `given` besides --schedule and --time-tile kept), ranked by predicted time; refused ones last
/// with why. Entries: schedule, flags (the schedule flags it was predicted under), seconds,
/// extrapolated, gstencils_per_s, kernels, bound (or schedule, flags, refused).
nlohmann::json compareSchedules(const Program& prog,
                                const std::map<std::string, std::string>& given,
                                const ParamValues& params, DiagnosticEngine& diags);

/// `--schedule auto`: the schedule the model ranks first for the program, in a bounded search
/// over the families, time tiles and a few blocks (the flags the user gave besides --schedule
/// are kept and not varied), predicted at parameter values `params` (defaults elsewhere).
struct ModelChoice {
  std::map<std::string, std::string> flags;  // the schedule flags to use
  std::string schedule;                      // the chosen flags as text
  double gstencilsPerSecond = 0;             // predicted
  double seconds = 0;                        // predicted per run: what it was ranked by
  bool byDefault = false;                    // chosen because no schedule was named
  std::string machine;
  bool calibrated = false;
  size_t tried = 0, refused = 0;  // schedules predicted, and refused by the validation
  size_t extrapolated = 0;        // left out: fused steps the calibration did not measure
  /// The one line that says what was chosen.
  std::string line() const;
  /// What asked for the choice: "--schedule auto" or "no schedule named" (the value of the
  /// driver's --schedule-chosen-by, which makes the family's origin the model's).
  std::string asked() const;
};

/// Whether the schedule flags `flags` or the program's `#pragma` clauses name a family
/// (--schedule, --stream, --full-stream, --time-tile; the clauses stream, full_stream,
/// time_tile). Where none does, `run` and `emit` for a GPU take the model's choice.
bool scheduleNamed(const Program& prog, const std::map<std::string, std::string>& flags);

/// Nullopt after an error reported through `diags` (bad flags or parameters, or no schedule
/// the validation accepts).
std::optional<ModelChoice> chooseSchedule(const Program& prog,
                                          std::map<std::string, std::string> flags,
                                          const std::map<std::string, int64_t>& params,
                                          DiagnosticEngine& diags);

}  // namespace tessel
