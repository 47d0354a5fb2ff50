// The reading side of the tuning database (tune.h): `run --tuned`'s variant, `tune --show`'s
// records and the one-line hint of a plain `run`, none of which creates or changes the file.
#include <fmt/format.h>

#include "driver/params.h"
#include "driver/tune.h"
#include "exec/build_util.h"

namespace tessel {

namespace {

/// What the database at `dbPath` has for the key of `prog` at `params` on `backend`, read
/// without creating or changing anything (no file: no records). `flag` names the option that
/// gives the file, for the hint of an error.
struct Lookup {
  TuningKey key;
  nlohmann::json parameters = nlohmann::json::object();  // each parameter's value
  std::vector<TuningRecord> records;                     // fastest first
  int64_t otherBuilds = 0;  // records of other tessel builds for the same program
  /// Records of this build under other host settings (TuningKey::host) -> their count.
  std::map<std::string, int64_t> otherSettings;
  bool exists = false;  // whether the file is there
};

std::optional<Lookup> lookUp(const Program& prog, const std::string& file,
                             const std::string& backend,
                             const std::map<std::string, int64_t>& params,
                             const std::filesystem::path& dbPath, const char* flag,
                             DiagnosticEngine& diags) {
  auto values = bindParams(prog, params, diags);
  if (!values) return std::nullopt;
  Lookup l;
  l.key = tuningKey(prog, file, backend, *values);
  l.parameters = parameterValues(prog, *values);
  std::error_code ec;
  if (!std::filesystem::exists(dbPath, ec)) return l;
  if (std::filesystem::is_directory(dbPath, ec)) {
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("the tuning database '{}' is a directory", dbPath.string()),
                 fmt::format("give the file tessel tune wrote with {} PATH", flag));
    return std::nullopt;
  }
  l.exists = true;
  try {
    const TuningDb db(dbPath, /*readOnly=*/true);
    l.records = db.records(l.key);
    l.otherBuilds = db.otherBuilds(l.key);
    l.otherSettings = db.otherSettings(l.key);
  } catch (const std::exception& e) {
    diags.report(DiagId::bad_schedule, {}, e.what(),
                 fmt::format("give the file tessel tune wrote with {} PATH", flag));
    return std::nullopt;
  }
  return l;
}

}  // namespace

std::optional<TuningRecord> tunedVariant(const Program& prog, const std::string& file,
                                         const std::string& backend,
                                         const std::map<std::string, int64_t>& params,
                                         const std::filesystem::path& dbPath,
                                         DiagnosticEngine& diags) {
  auto l = lookUp(prog, file, backend, params, dbPath, "--tuning-db", diags);
  if (!l) return std::nullopt;
  if (!l->records.empty()) return l->records.front();
  // Where else it was measured: other builds, other settings of the environment.
  std::vector<std::string> elsewhere;
  if (l->otherBuilds > 0) elsewhere.push_back(fmt::format("{} of other builds", l->otherBuilds));
  for (const auto& [host, n] : l->otherSettings)
    elsewhere.push_back(fmt::format("{} under the host settings '{}'", n, host));
  const std::string settingsNote =
      l->otherSettings.empty() ? std::string()
                               : "; the host's name and the environment's settings that change "
                                 "a run (OMP_NUM_THREADS, CXX, TESSEL_HOST_OPT, ...) are part of "
                                 "a measurement's key";
  const bool defaultDb = dbPath == defaultTuningDbPath();
  diags.report(
      DiagId::bad_schedule, {},
      l->exists ? fmt::format(
                      "--tuned: the tuning database ({}) has no measurement of this program at "
                      "{} on {} on this host with this tessel build{}",
                      dbPath.string(), l->key.params.empty() ? "its sizes" : l->key.params, backend,
                      elsewhere.empty()
                          ? std::string()
                          : fmt::format(" ({}{})", fmt::join(elsewhere, ", "), settingsNote))
                : fmt::format("--tuned: there is no tuning database at {}", dbPath.string()),
      fmt::format("run tessel tune {} --backend {}{} (with the same --param values) first", file,
                  backend, defaultDb ? std::string() : " --db " + shellQuote(dbPath.string())));
  return std::nullopt;
}

std::optional<nlohmann::json> tunedRecords(const Program& prog, const std::string& file,
                                           const std::string& backend,
                                           const std::map<std::string, int64_t>& params,
                                           const std::filesystem::path& dbPath,
                                           DiagnosticEngine& diags) {
  auto l = lookUp(prog, file, backend, params, dbPath, "--db", diags);
  if (!l) return std::nullopt;
  nlohmann::json rows = nlohmann::json::array();
  for (const TuningRecord& r : l->records)
    rows.push_back({{"fusion", r.fusion},
                    {"schedule", r.schedule},
                    {"flags", r.flags},
                    {"seconds", r.seconds},
                    {"repeat", r.repeat},
                    {"predicted_seconds",
                     r.predictedSeconds ? nlohmann::json(*r.predictedSeconds) : nlohmann::json()},
                    {"device", r.device},
                    {"measured_at", r.measuredAt}});
  return nlohmann::json{{"db", dbPath.string()}, {"exists", l->exists},
                        {"backend", backend},    {"parameters", l->parameters},
                        {"rows", rows},          {"other_builds", l->otherBuilds}};
}

std::string tunedRecordsText(const nlohmann::json& shown) {
  if (!shown.value("exists", true))
    return fmt::format("no tuning database at {} (tessel tune creates it)\n",
                       shown["db"].get<std::string>());
  const auto& rows = shown["rows"];
  std::string out = fmt::format(
      "{} measurement{} in {} for this program at {} on {} (this host, this tessel build), "
      "fastest first:\n",
      rows.size(), rows.size() == 1 ? "" : "s", shown["db"].get<std::string>(),
      [&] {
        std::vector<std::string> v;
        for (const auto& [name, value] : shown["parameters"].items())
          v.push_back(fmt::format("{}={}", name, value.get<int64_t>()));
        return v.empty() ? std::string("(no parameters)") : fmt::format("{}", fmt::join(v, " "));
      }(),
      shown["backend"].get<std::string>());
  for (const auto& r : rows)
    out += fmt::format("  {:<18} {:<34} {:>10.4g} ms  {}, {} run{}, {}\n", fusionText(r["fusion"]),
                       r["schedule"].get<std::string>(), r["seconds"].get<double>() * 1e3,
                       r["measured_at"].get<std::string>(), r["repeat"].get<int>(),
                       r["repeat"].get<int>() == 1 ? "" : "s", r["device"].get<std::string>());
  if (shown["other_builds"].get<int64_t>() > 0)
    out += fmt::format("({} of other tessel builds, not shown)\n",
                       shown["other_builds"].get<int64_t>());
  return out;
}

std::optional<std::string> tunedHint(const Program& prog, const std::string& file,
                                     const std::string& backend,
                                     const std::map<std::string, int64_t>& params,
                                     const std::filesystem::path& dbPath) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(dbPath, ec)) return std::nullopt;
  DiagnosticEngine quiet;
  auto values = bindParams(prog, params, quiet);
  if (!values) return std::nullopt;
  try {
    // Read only, without waiting for another process's lock: a hint never holds up a run.
    const TuningDb db(dbPath, /*readOnly=*/true, /*waitMs=*/0);
    const auto records = db.records(tuningKey(prog, file, backend, *values));
    if (records.empty()) return std::nullopt;
    const TuningRecord& r = records.front();
    return fmt::format(
        "note: tessel tune measured {} variant{} of this program here (the fastest: {} under {}, "
        "{:.4g} ms); --tuned runs it",
        records.size(), records.size() == 1 ? "" : "s",
        r.fusion == "none" ? "as written" : "--fusion-groups " + r.fusion, r.schedule,
        r.seconds * 1e3);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string tunedLine(const TuningRecord& r, const std::filesystem::path& db) {
  return fmt::format(
      "note: --tuned: {} under {}, the fastest tune measured ({:.4g} ms on {}, {}; {})",
      r.fusion == "none" ? "the program as written" : "--fusion-groups " + r.fusion, r.schedule,
      r.seconds * 1e3, r.device, r.measuredAt, db.string());
}

}  // namespace tessel
