// `tessel deep-tune FILE --steps T` (issue 13; paper 000 section VI-A): ARTEMIS's deep tuning of
// the time-fusion degree, with the performance model in place of measured runs. Versions
// (x x 1), one kernel fusing x time steps, are predicted for x = 1, 2, ... under stream +
// time_tile (or overlapped), each only while the one before is bandwidth-bound (fusion saves
// traffic, nothing else) and the schedule is accepted; then the composition of those versions
// that runs T steps fastest is found by the dynamic program opt(T) (model/fusion_degree.h).
// Predictions, not measurements; with --measure BACKEND every predicted version also runs on that
// backend (its median time over the run's steps), and opt(T) is found again from the measured
// times: the measured composition is one of measured versions, summed, not one run. With -o DIR
// the chosen composition is also written as a program that runs it (deep_tune_program.h).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

struct DeepTuneOptions {
  std::map<std::string, std::string> scheduleFlags;  // as the command line gave them
  std::map<std::string, int64_t> params;             // --param NAME=VALUE
  std::optional<int> steps;  // --steps: time steps to compose; none: the run's (at the parameters)
  int maxFuse = 8;           // --max-fuse: the largest degree tried
  bool ptxas = false;        // registers from nvcc
  /// --measure BACKEND: also run every predicted version on this backend (cuda, opencl, cpp)
  /// and compose the measured times; empty: predictions only.
  std::string measureBackend;
  int repeat = 5;       // --repeat: timed runs per version (median)
  bool verify = false;  // --verify: check every measured version against the reference
  /// -o DIR: also write the composition as a program (driver/deep_tune_program.h): the one given
  /// by `composition`, else the measured one (with --measure), else the model's.
  std::string outputDir;
  std::string file;         // the program's file: the written program is named after it
  std::string composition;  // --composition: e.g. "4x1 + 3x3"
};

/// The versions, why the search stopped, and opt(steps) as JSON; nullopt after an error
/// reported through `diags` (bad flags or parameters, a family that fuses no steps, steps < 1,
/// no version at all). `--schedule auto` predicts the composition under each family that fuses
/// steps (stream + time_tile where the program has two dimensions or more, and overlapped) and
/// keeps the faster, with the candidates in "schedule_chosen_by"; only that family is measured
/// and written.
std::optional<nlohmann::json> deepTune(const Program& prog, const DeepTuneOptions& opts,
                                       DiagnosticEngine& diags);

/// The same as text.
std::string deepTuneText(const nlohmann::json& result);

}  // namespace tessel
