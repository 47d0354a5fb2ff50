// One timed run of a program under schedule flags on a backend, as `tessel run --json --repeat N`
// does it: the measurement behind `deep-tune --measure` and `analyze --fusion-choices --measure`.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ir/program.h"
#include "runtime/state.h"
#include "support/diagnostics.h"

namespace tessel {

struct MeasureOptions {
  std::string backend;                    // cuda, opencl, cpp
  std::map<std::string, int64_t> params;  // --param NAME=VALUE
  int repeat = 5;                         // timed runs (median)
  bool verify = false;                    // check against the reference interpreter
  const Program* reference = nullptr;     // what --verify interprets; null: the program
  /// --verify's reference result kept across measurements (run.h, RunOptions::referenceCache).
  std::optional<ProgramState>* referenceCache = nullptr;
  /// Code measured before, by where it was generated (Backend::generatedCode(): a path named
  /// by the hash of the code and its compile command) -> the caller's index of what it was
  /// measured as. A variant that generates one of these is built (from the cache) but not run:
  /// the report is {"generated", "same_code_as": that index} (tune measures each code once).
  const std::map<std::string, size_t>* measuredCode = nullptr;
  /// Build only: the report is {"generated"}, nothing runs.
  bool buildOnly = false;
};

/// `prog` under `flags` run on opts.backend (a warm-up run, then opts.repeat timed ones): run's
/// JSON report (time_s, verification, backend_description, ...) and `device`, the description's
/// first line (without the backend's notes); on CUDA with the model's register cap where `tessel
/// run` takes it (by default; `register_cap` says what was chosen); nullopt after an error in
/// `diags` (a refused schedule, a backend that cannot run). A failed verification is a report
/// with verification.passed false, for the caller to judge. Every report has `generated`.
std::optional<nlohmann::json> measureRun(const Program& prog,
                                         const std::map<std::string, std::string>& flags,
                                         const MeasureOptions& opts, DiagnosticEngine& diags);

}  // namespace tessel
