// `tessel tune FILE --backend B`: the autotuner. The model ranks the program's fusion choices
// under every schedule it tries (fusion_choices.h: the program as written and its fission and
// fusion variants, each under the families and time tiles of `--compare`); the first `top`
// rows run on the backend, each verified against the program as written, and the measurements
// go into the tuning database (tune/tuning_db.h), so that a later tune of the same program,
// parameters, backend, host and tessel build reuses them instead of measuring again, and
// `tessel run --tuned` runs the fastest. Measured times are the backend's; predictions the
// model's, on its machine.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "support/diagnostics.h"
#include "tune/tuning_db.h"

namespace tessel {

struct TuneOptions {
  std::string backend = "cpp";            // cpp, opencl, cuda
  std::map<std::string, int64_t> params;  // --param NAME=VALUE
  int repeat = 3;                         // timed runs per variant (median)
  size_t top = 5;                         // the model's first rows measured
  /// Blocks to measure each of those rows under too (--blocks 32,8 64,4: "32,8", "64,4"), where
  /// its family takes them; empty: each row's own block only.
  std::vector<std::string> blocks;
  /// Option sets to measure each of those rows under too, one at a time (--also '--retime'
  /// --also '--unroll i=2'), where its family takes them.
  std::vector<std::string> also;
  bool remeasure = false;    // measure again what the database has
  std::filesystem::path db;  // the tuning database
  std::string programFile;   // the program's file (its hash is the key's)
  /// Told before each variant is measured or taken from the database.
  std::function<void(const std::string&)> progress;
};

/// The schedule flags tune's search sets for each variant (the family, its time tile and
/// stream): refused when given to tune, or in an --also set.
inline const std::vector<std::string>& tuneSearchedFlags() {
  static const std::vector<std::string> f = {"--schedule", "--time-tile", "--stream",
                                             "--full-stream"};
  return f;
}

/// A --fusion-groups value as tune's text says it ("none": "as written").
std::string fusionText(const std::string& value);

/// Each parameter's value, by name ({"M": 64, ...}).
nlohmann::json parameterValues(const Program& prog, const ParamValues& values);

/// The key of `prog` (read from `file`) at `params` on `backend` on this host with this build.
TuningKey tuningKey(const Program& prog, const std::string& file, const std::string& backend,
                    const ParamValues& params);

/// {"backend", "machine" (the model's), "command" (the run --tuned that runs the fastest), "db",
/// "tuned_pick" (what run --tuned runs: the database's fastest for the key, null if none),
/// "not_recorded" (why the measurements could not be stored, "" if they were), "parameters",
/// "rows": [{fusion, schedule, flags, predicted_seconds,
/// seconds, device, measured_at, source: "measured" | "database"}] in the model's order, "best":
/// the index of the fastest, "other_builds": records of other tessel builds (not used)};
/// nullopt after an error reported through `diags` (bad parameters, a variant that cannot run
/// or fails verification, a database that cannot be opened).
std::optional<nlohmann::json> tuneProgram(const Program& prog,
                                          const std::map<std::string, std::string>& flags,
                                          const TuneOptions& opts, DiagnosticEngine& diags);

/// The result as text: one line per variant, measured and predicted, the fastest marked, and the
/// command that runs it.
std::string tuneText(const nlohmann::json& tuned);

/// `run --tuned`: the fastest variant the database has for the key; nullopt with an error in
/// `diags` where it has none (the hint says how to tune, and whether other builds measured it).
std::optional<TuningRecord> tunedVariant(const Program& prog, const std::string& file,
                                         const std::string& backend,
                                         const std::map<std::string, int64_t>& params,
                                         const std::filesystem::path& db, DiagnosticEngine& diags);

/// `tune --show`: what the database has for the key, measuring nothing: {"db", "parameters",
/// "backend", "rows": [{fusion, schedule, flags, seconds, predicted_seconds, device,
/// measured_at}] fastest first, "other_builds"}; nullopt after an error in `diags`.
std::optional<nlohmann::json> tunedRecords(const Program& prog, const std::string& file,
                                           const std::string& backend,
                                           const std::map<std::string, int64_t>& params,
                                           const std::filesystem::path& db,
                                           DiagnosticEngine& diags);
/// The same as text.
std::string tunedRecordsText(const nlohmann::json& shown);

/// For a `run` without --tuned: where the database at `db` exists and has measurements for the
/// key, the one line that says so and that --tuned runs the fastest; nullopt otherwise (a
/// missing or unreadable database included: a hint never fails a run, nor creates the file).
std::optional<std::string> tunedHint(const Program& prog, const std::string& file,
                                     const std::string& backend,
                                     const std::map<std::string, int64_t>& params,
                                     const std::filesystem::path& db);

/// The one line `run --tuned` prints: what it runs, measured when, and where it was recorded.
std::string tunedLine(const TuningRecord& r, const std::filesystem::path& db);

}  // namespace tessel
