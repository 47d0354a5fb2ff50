#include "driver/tune.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <iterator>
#include <set>
#include <sstream>
#include <stdexcept>

#include "analysis/counts.h"
#include "driver/analyze.h"
#include "driver/fusion_choices.h"
#include "driver/fusion_groups.h"
#include "driver/measure.h"
#include "driver/params.h"
#include "exec/build_util.h"
#include "exec/gpu_module.h"
#include "schedule/schedule.h"

namespace tessel {

namespace {

std::string hex(uint64_t v) { return fmt::format("{:016x}", v); }

/// The host's name, and the settings of the environment that change what a run measures (the
/// threads of the C++ backend, the host compiler and its optimisation, the OpenCL compiler's
/// flags, the device picked): a measurement under other settings is another key.
std::string hostConfig() {
  char name[256] = {};
  std::string out =
      gethostname(name, sizeof name - 1) != 0 || !*name ? "unknown host" : std::string(name);
  for (const char* var : {"OMP_NUM_THREADS", "CXX", "TESSEL_HOST_OPT", "POCL_EXTRA_BUILD_FLAGS",
                          "POCL_WORK_GROUP_METHOD", "TESSEL_OPENCL_DEVICE", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(var); v && *v) out += fmt::format(" {}={}", var, v);
  return out;
}

/// A hash of the running tessel executable: another build generates other code.
std::string buildId() {
  try {
    return hex(fnv1a(readFile("/proc/self/exe")));
  } catch (const std::exception&) {
    return "unknown build";
  }
}

std::string utcNow() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

/// The --fusion-groups value of a ranking row's fusion choice ("as written": none).
std::string fusionValue(const std::string& fusion) {
  return fusion == "as written" ? "none" : fusion;
}

/// The tuning database at `path`, opened for tune (created where missing). Where another
/// process holds its lock, the tune goes on without it and `notRecorded` says why; an error in
/// `diags` (and false) where the file cannot be a tuning database.
bool openDb(const std::filesystem::path& path, std::optional<TuningDb>& db,
            std::string& notRecorded, DiagnosticEngine& diags) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("the tuning database '{}' is a directory", path.string()),
                 "give a file with --db PATH (or set TESSEL_TUNING_DB), e.g. " +
                     (path / "tuning.db").string());
    return false;
  }
  try {
    db.emplace(path);
  } catch (const TuningDbBusy& e) {
    notRecorded = e.what();  // measured all the same, nothing remembered or reused
  } catch (const std::runtime_error& e) {
    diags.report(DiagId::bad_schedule, {}, e.what(),
                 "give a writable file with --db PATH (or set TESSEL_TUNING_DB)");
    return false;
  }
  return true;
}

/// "global --time-tile 2 --fuse-statements --block 32,8 --fma": the schedule flags of a variant
/// as a command line would give them (the family first).
std::string scheduleLabel(const std::map<std::string, std::string>& flags) {
  auto family = flags.find("--schedule");
  std::string out = family == flags.end() ? std::string() : family->second;
  for (const auto& [flag, v] : flags) {
    if (v.empty() || flag == "--schedule" || flag == "--fusion-groups") continue;
    out += v == "on" && scheduleSwitch(flag) ? " " + flag : fmt::format(" {} {}", flag, v);
  }
  return out;
}

/// The flags an --also set gives ("--retime --unroll i=2" -> {--retime: on, --unroll: i=2});
/// nullopt with an error in `diags` for a word that is not a schedule flag tune keeps.
std::optional<std::map<std::string, std::string>> parseAlso(const std::string& text,
                                                            DiagnosticEngine& diags) {
  std::istringstream in(text);
  std::vector<std::string> words{std::istream_iterator<std::string>(in),
                                 std::istream_iterator<std::string>()};
  std::map<std::string, std::string> out;
  const auto& known = scheduleFlags();
  // --flag=value as the command line takes it: two words.
  std::vector<std::string> split;
  for (const std::string& w : words) {
    const size_t eq = w.find('=');
    if (w.rfind("--", 0) == 0 && eq != std::string::npos) {
      split.push_back(w.substr(0, eq));
      split.push_back(w.substr(eq + 1));
    } else {
      split.push_back(w);
    }
  }
  words = split;
  for (size_t w = 0; w < words.size(); ++w) {
    const std::string& flag = words[w];
    const bool isFlag = std::find(known.begin(), known.end(), flag) != known.end();
    const auto& searched = tuneSearchedFlags();
    if (!isFlag || flag == "--machine" ||
        std::find(searched.begin(), searched.end(), flag) != searched.end()) {
      diags.report(
          DiagId::bad_schedule, {},
          fmt::format("--also '{}': '{}' is not a schedule option tune varies", text, flag),
          !isFlag ? "give schedule options, e.g. --also '--retime' --also '--unroll i=2'"
          : flag == "--machine" ? "give --machine to tune itself: it applies to every variant"
                                : "tune searches the families, time tiles and streams itself");
      return std::nullopt;
    }
    if (scheduleSwitch(flag)) {
      out[flag] = "on";
    } else if (w + 1 < words.size()) {
      out[flag] = words[++w];
    } else {
      diags.report(DiagId::bad_schedule, {},
                   fmt::format("--also '{}': {} needs a value", text, flag),
                   fmt::format("e.g. --also '{} ...' as on the command line", flag));
      return std::nullopt;
    }
  }
  if (out.empty()) {
    diags.report(DiagId::bad_schedule, {}, "--also '': no option given", "e.g. --also '--retime'");
    return std::nullopt;
  }
  return out;
}

/// opts.blocks and opts.also as the flags each sets; nullopt with an error in `diags` where a
/// value is malformed (what a family or the machine does not take is refused per row, later).
std::optional<std::vector<std::map<std::string, std::string>>> extraVariants(
    const TuneOptions& opts, DiagnosticEngine& diags) {
  std::vector<std::map<std::string, std::string>> out;
  for (const std::string& b : opts.blocks) out.push_back({{"--block", b}});
  for (const std::string& a : opts.also) {
    auto flags = parseAlso(a, diags);
    if (!flags) return std::nullopt;
    out.push_back(*flags);
  }
  for (const auto& extra : out)
    for (const auto& [flag, value] : extra) {
      ScheduleOptions parsed;
      if (value != "on" && !setScheduleOption(parsed, flag, value, diags)) return std::nullopt;
      if (flag == "--block" && parsed.block &&
          std::any_of(parsed.block->begin(), parsed.block->end(),
                      [](int64_t e) { return e < 1; })) {
        diags.report(DiagId::bad_schedule, {},
                     fmt::format("--blocks {}: every extent must be at least 1", value),
                     "e.g. --blocks 32,8 64,4");
        return std::nullopt;
      }
    }
  return out;
}

}  // namespace

std::string fusionText(const std::string& value) { return value == "none" ? "as written" : value; }

nlohmann::json parameterValues(const Program& prog, const ParamValues& values) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t p = 0; p < prog.params.size(); ++p) out[prog.params[p].name] = values[p];
  return out;
}

TuningKey tuningKey(const Program& prog, const std::string& file, const std::string& backend,
                    const ParamValues& params) {
  TuningKey k;
  k.program = hex(fnv1a(readFile(file)));
  for (size_t p = 0; p < prog.params.size() && p < params.size(); ++p)
    k.params += fmt::format("{}{}={}", p ? " " : "", prog.params[p].name, params[p]);
  k.backend = backend;
  k.host = hostConfig();
  k.build = buildId();
  return k;
}

std::optional<nlohmann::json> tuneProgram(const Program& prog,
                                          const std::map<std::string, std::string>& flags,
                                          const TuneOptions& opts, DiagnosticEngine& diags) {
  auto params = bindParams(prog, opts.params, diags);
  if (!params) return std::nullopt;
  // A run that computes nothing times launches of empty grids: nothing to tune.
  double updates = 0;
  for (const auto& call : programWork(prog, *params).updates)
    for (double u : call) updates += u;
  if (updates <= 0) {
    diags.report(DiagId::bad_schedule, {},
                 "tune: the run computes nothing at these parameter values (every statement's "
                 "region is empty, or no call runs), so there is nothing to measure",
                 "give larger sizes with --param (tessel info shows the regions)");
    return std::nullopt;
  }
  // What each row is also measured under: every block of opts.blocks, every option set of
  // opts.also (one at a time, not combined); malformed values stop the tune before it starts.
  auto extras = extraVariants(opts, diags);
  if (!extras) return std::nullopt;
  if (opts.backend == "cuda")
    if (std::string why; !cudaDeviceAvailable(&why)) {
      diags.report(DiagId::bad_schedule, {}, "tune --backend cuda: no CUDA device: " + why,
                   "tune on the machine with the GPU, or --backend opencl|cpp here");
      return std::nullopt;
    }
  std::optional<TuningDb> db;
  std::string notRecorded;  // why the measurements could not be stored (a read-only file, ...)
  if (!openDb(opts.db, db, notRecorded, diags)) return std::nullopt;
  const TuningKey key = tuningKey(prog, opts.programFile, opts.backend, *params);
  if (opts.progress)
    opts.progress("ranking the program's fusion choices under each schedule with the model...");
  const nlohmann::json choices = rankFusionChoices(prog, flags, *params, diags);
  const std::string machineName = machineOf(flags);
  MeasureOptions mo;
  mo.backend = opts.backend;
  mo.params = opts.params;
  mo.repeat = opts.repeat;
  // Every variant starts from the same inputs (the default seed): the reference interpreter's
  // result is computed once, by the first variant measured, and compared with each.
  std::optional<ProgramState> reference;
  mo.referenceCache = &reference;
  // Each distinct code is measured once: flags a backend does not use (a block or --fma on the
  // C++ backend's loop nests), or a time tile no larger than the run's steps, generate the same
  // code as a row before, which is said and not measured again (by where the backend generated
  // it: a path named by the hash of the code and its compile command).
  std::map<std::string, size_t> rowOfCode;  // generated code -> its row (index)
  mo.measuredCode = &rowOfCode;
  MeasureOptions buildOnly = mo;
  buildOnly.buildOnly = true;

  nlohmann::json rows = nlohmann::json::array();
  // Rows not measured: {fusion, schedule, row: the index of the row with the same code}.
  nlohmann::json sameCode = nlohmann::json::array();
  size_t best = 0;
  std::map<std::pair<std::string, std::map<std::string, std::string>>, size_t> seen;
  // One variant measured (or taken from the database): true where it was, false where it
  // generates the same code as a row before; nullopt after an error in `diags`.
  auto consider = [&](const nlohmann::json& row) -> std::optional<bool> {
    const std::string fusion = row["fusion"];
    const auto rowFlags = row["flags"].get<std::map<std::string, std::string>>();
    const std::string schedule = scheduleLabel(rowFlags);
    const std::string label = fusion + " under " + schedule;
    auto same = [&](size_t as) {
      sameCode.push_back({{"fusion", fusionValue(fusion)}, {"schedule", schedule}, {"row", as}});
      if (opts.progress)
        opts.progress(fmt::format("{}: generates the same code as row {}, so it is not measured",
                                  label, as + 1));
      return false;
    };
    // Given twice (a block or option set that is the row's own, or two rows of the ranking
    // with the same flags).
    if (auto it = seen.find({fusion, rowFlags}); it != seen.end()) return same(it->second);
    std::optional<TuningRecord> rec;
    try {
      if (db && !opts.remeasure) rec = db->find(key, fusionValue(fusion), rowFlags);
    } catch (const TuningDbBusy& e) {
      notRecorded = e.what();
      db.reset();  // measured from here on, nothing remembered
    } catch (const std::exception& e) {
      diags.report(DiagId::bad_schedule, {}, e.what(),
                   "give another file with --db PATH: this one is not a tuning database of this "
                   "tessel");
      return std::nullopt;
    }
    const bool remembered = rec.has_value();
    if (remembered) {
      // Built (from the compiler's cache), not run: its code tells it from the rows before.
      auto built = measureChoice(prog, row, machineName, buildOnly, diags);
      if (!built) return std::nullopt;
      const std::string generated = (*built)["generated"];
      if (auto it = rowOfCode.find(generated); it != rowOfCode.end()) return same(it->second);
      rowOfCode[generated] = rows.size();
      if (opts.progress)
        opts.progress(
            fmt::format("{}: {:.4g} ms, measured {} (tuning database{})", label, rec->seconds * 1e3,
                        rec->measuredAt,
                        rec->repeat == opts.repeat
                            ? std::string()
                            : fmt::format("; {} run{}: --remeasure measures again with --repeat {}",
                                          rec->repeat, rec->repeat == 1 ? "" : "s", opts.repeat)));
    } else {
      if (opts.progress)
        opts.progress(fmt::format("measuring {} on {} ({} runs, verified)...", label, opts.backend,
                                  opts.repeat));
      auto r = measureChoice(prog, row, machineName, mo, diags);
      if (!r) return std::nullopt;
      if (r->contains("same_code_as")) return same((*r)["same_code_as"].get<size_t>());
      rowOfCode[(*r)["generated"].get<std::string>()] = rows.size();
      rec = TuningRecord{};
      rec->fusion = fusionValue(fusion);
      rec->flags = rowFlags;
      rec->schedule = schedule;
      rec->seconds = (*r)["time_s"].get<double>();
      rec->repeat = opts.repeat;
      rec->predictedSeconds = row["seconds"].get<double>();
      rec->device = (*r)["device"].get<std::string>();
      rec->measuredAt = utcNow();
      if (db && notRecorded.empty()) try {
          db->store(key, *rec);
        } catch (const std::exception& e) {
          notRecorded = e.what();  // the tune goes on; its text says so
        }
    }
    seen[{fusion, rowFlags}] = rows.size();
    if (rows.empty() || rec->seconds < rows[best]["seconds"].get<double>()) best = rows.size();
    rows.push_back({{"fusion", fusionValue(fusion)},
                    {"schedule", schedule},
                    {"flags", rowFlags},
                    {"predicted_seconds", row["seconds"]},
                    {"seconds", rec->seconds},
                    {"repeat", rec->repeat},
                    {"device", rec->device},
                    {"measured_at", rec->measuredAt},
                    {"source", remembered ? "database" : "measured"}});
    return true;
  };

  // The model's first `top` rows that generate distinct code (a row with the same code as one
  // before gives its place to the next), each also under each extra its family takes
  // (predicted again; one the validation refuses is left out, and said so).
  size_t taken = 0;  // rows of the ranking measured
  for (const auto& row : choices["ranking"]) {
    if (taken >= opts.top) break;
    if (row.contains("refused")) continue;
    auto own = consider(row);
    if (!own) return std::nullopt;
    if (!*own) continue;
    ++taken;
    if (extras->empty()) continue;
    std::vector<std::string> notes;
    DiagnosticEngine quiet;
    const std::string fusion = row["fusion"];
    auto variant =
        fusionVariant(prog, fusionValue(fusion), machineName, quiet, notes, kChoicesModestoWork);
    if (!variant) continue;
    for (const auto& extra : *extras) {
      auto f = row["flags"].get<std::map<std::string, std::string>>();
      bool unchanged = true;
      for (const auto& [flag, value] : extra) {
        unchanged = unchanged && f[flag] == value;
        f[flag] = value;
      }
      if (unchanged) continue;  // the row's own
      std::string why;
      auto p = predictUnder(*variant, f, *params, false, quiet, nullptr, &why);
      if (!p) {
        if (opts.progress)
          opts.progress(fmt::format("{} under {}: refused ({})", fusion, scheduleLabel(f), why));
        continue;
      }
      nlohmann::json c = row;
      c["flags"] = f;
      c["seconds"] = (*p)["seconds"];
      if (!consider(c)) return std::nullopt;
    }
  }

  if (rows.empty()) {
    diags.report(DiagId::bad_schedule, {},
                 "tune: the model refused every variant of the program under the options given",
                 "tessel analyze --fusion-choices --json lists each with why");
    return std::nullopt;
  }
  std::string command =
      fmt::format("tessel run {} --backend {} --tuned", shellQuote(opts.programFile), opts.backend);
  for (const auto& [name, value] : opts.params)
    command += fmt::format(" --param {}={}", name, value);
  if (opts.db != defaultTuningDbPath()) command += " --tuning-db " + shellQuote(opts.db.string());
  // What run --tuned picks: the database's fastest for the key, which an earlier tune under
  // other flags may have measured.
  nlohmann::json tunedPick;
  int64_t otherBuilds = 0;
  std::string notRead;  // why the database's records for the key could not be read back
  if (db && notRecorded.empty()) try {
      const auto records = db->records(key);
      if (!records.empty())
        tunedPick = {{"fusion", records.front().fusion},
                     {"schedule", records.front().schedule},
                     {"seconds", records.front().seconds},
                     {"measured_at", records.front().measuredAt}};
      otherBuilds = db->otherBuilds(key);
    } catch (const std::exception& e) {
      notRead = e.what();
    }
  return nlohmann::json{{"backend", opts.backend},
                        {"machine", machineName},
                        {"ranked_rows", taken},
                        {"same_code", sameCode},
                        {"blocks", opts.blocks},
                        {"also", opts.also},
                        {"command", command},
                        {"db", opts.db.string()},
                        {"parameters", parameterValues(prog, *params)},
                        {"rows", rows},
                        {"best", best},
                        {"tuned_pick", tunedPick},
                        {"not_recorded", notRecorded},
                        {"not_read", notRead},
                        {"other_builds", otherBuilds}};
}

std::string tuneText(const nlohmann::json& t) {
  const auto& rows = t["rows"];
  const size_t best = t["best"];
  const size_t ranked = t["ranked_rows"], blocks = t["blocks"].size(), sets = t["also"].size();
  std::vector<std::string> extras;
  if (blocks > 0) extras.push_back(fmt::format("{} block{}", blocks, blocks == 1 ? "" : "s"));
  if (sets > 0) extras.push_back(fmt::format("{} option set{}", sets, sets == 1 ? "" : "s"));
  // The device the rows ran on: one, or (the C++ backend's loop nests beside its GPU kernels on
  // the CPU) the backend, each row's in the JSON.
  std::set<std::string> devices;
  for (const auto& r : rows) devices.insert(r["device"].get<std::string>());
  const std::string device = devices.size() == 1
                                 ? *devices.begin()
                                 : fmt::format("{} ({} ways of running; each row's in --json)",
                                               t["backend"].get<std::string>(), devices.size());
  std::string out = fmt::format(
      "Tuned on {}: {} variant{} (the model's first {} row{} of its ranking{}), each verified "
      "against the program as written (measured: the median of the runs; predicted: the "
      "model's, on {})\n",
      device, rows.size(), rows.size() == 1 ? "" : "s", ranked, ranked == 1 ? "" : "s",
      extras.empty() ? std::string()
                     : fmt::format(", each also under {} where its family takes them",
                                   fmt::join(extras, " and ")),
      t["machine"].get<std::string>());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out += fmt::format(
        "  {:>2}  {:<18} {:<34} {:>10.4g} ms {}  (predicted {:.4g} ms){}\n", i + 1,
        fusionText(r["fusion"]), r["schedule"].get<std::string>(), r["seconds"].get<double>() * 1e3,
        r["source"] == "database" ? "from the database, " + r["measured_at"].get<std::string>()
                                  : std::string("measured now"),
        r["predicted_seconds"].get<double>() * 1e3, i == best ? "  <- fastest" : "");
  }
  // Variants whose code is a row's above: not measured again (flags the backend does not use).
  for (const auto& r : t["same_code"])
    out += fmt::format("      {:<18} {:<34} the same code as row {}: not measured again\n",
                       fusionText(r["fusion"]), r["schedule"].get<std::string>(),
                       r["row"].get<size_t>() + 1);
  const double first = rows[0]["seconds"], fastest = rows[best]["seconds"];
  out += fastest > 0 ? fmt::format("The model's first choice took {:.2f}x the fastest's time\n",
                                   first / fastest)
                     : std::string(
                           "The times are too short to compare (0 ms): larger --param "
                           "values measure more\n");
  const std::string notRecorded = t.value("not_recorded", std::string());
  if (!notRecorded.empty()) {
    out += fmt::format("not recorded: {}\n", notRecorded);
    return out;
  }
  out += fmt::format("recorded in {}\n", t["db"].get<std::string>());
  const auto& pick = t["tuned_pick"];
  const auto& b = rows[best];
  if (!pick.is_null() && (pick["fusion"] != b["fusion"] || pick["schedule"] != b["schedule"]))
    out += fmt::format(
        "the database's fastest for this program here is faster still: {} under {}, {:.4g} ms "
        "(measured {}, by an earlier tune under other flags); --tuned runs that one\n",
        fusionText(pick["fusion"]), pick["schedule"].get<std::string>(),
        pick["seconds"].get<double>() * 1e3, pick["measured_at"].get<std::string>());
  if (const std::string notRead = t.value("not_read", std::string()); !notRead.empty())
    out += fmt::format(
        "(the database's other records for this program could not be read back, so whether an "
        "earlier tune measured one faster is not known: {})\n",
        notRead);
  out += fmt::format("run the fastest: {}\n", t["command"].get<std::string>());
  if (t["other_builds"].get<int64_t>() > 0)
    out += fmt::format(
        "({} measurement{} of other tessel builds for this program are in the database, not "
        "used: another build generates other code)\n",
        t["other_builds"].get<int64_t>(), t["other_builds"].get<int64_t>() == 1 ? "" : "s");
  return out;
}

}  // namespace tessel
