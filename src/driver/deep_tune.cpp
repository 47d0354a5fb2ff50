// `tessel deep-tune` (deep_tune.h).
#include "driver/deep_tune.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <set>

#include "analysis/counts.h"
#include "driver/analyze.h"
#include "driver/deep_tune_program.h"
#include "driver/measure.h"
#include "driver/params.h"
#include "model/fusion_degree.h"
#include "schedule/family.h"

namespace tessel {

namespace {

/// Fusion lowers traffic; a version bound by anything else gains nothing from more of it.
bool bandwidthBound(const std::string& bound) { return bound != "compute" && bound != "latency"; }

/// A prediction's kernels that run fused steps, and the others.
bool fusedKernel(const nlohmann::json& k) { return k["fused_calls"].get<size_t>() > 0; }

/// Version x x 1 (one kernel fusing x steps) as the model predicts it, or why there is none.
struct Version {
  double seconds = 0;  // per kernel of x steps
  std::string bound;   // of the kernel that takes most of the time
  std::string machine;
  double updatesPerStep = 0;  // x = 1: the run's updates per step, each statement on its own
  /// Why there is no such version ("x x 1 is refused: ...", "x x 1 fuses nothing: ...", "the
  /// run computes nothing ..."); empty when there is one.
  std::string none;
  bool refused = false;  // the schedule refuses x fused steps
};

/// Predicts version `x` under `flags` at `params`. Its time per step: degree 1 runs every step
/// per statement; a fused version's steps are those its fused kernels cover (the run's `steps`
/// minus those left per statement, counted by their updates: `perStatementUpdates`, version 1's
/// updates per step).
Version predictVersion(const Program& prog, std::map<std::string, std::string> flags,
                       const ParamValues& params, bool ptxas, int x, double steps,
                       double perStatementUpdates, DiagnosticEngine& diags) {
  Version v;
  flags["--time-tile"] = x == 1 ? "" : std::to_string(x);
  std::string why;
  auto p = predictUnder(prog, flags, params, ptxas, diags, nullptr, &why);
  if (!p) {
    v.none = fmt::format("{} x 1 is refused: {}", x, why);
    v.refused = true;
    return v;
  }
  v.machine = (*p)["machine"];
  double fusedSeconds = 0, otherUpdates = 0, allSeconds = 0, allUpdates = 0;
  double most = -1;
  for (const auto& k : (*p)["kernels"]) {
    const double s = k["seconds"], u = k["updates"];
    allSeconds += s;
    allUpdates += u;
    if (x > 1 && fusedKernel(k)) {
      fusedSeconds += s;
      if (s > most) most = s, v.bound = k["bound"];
    } else {
      otherUpdates += u;
      if (x == 1 && s > most) most = s, v.bound = k["bound"];
    }
  }
  if (steps <= 0 || allUpdates <= 0) {
    v.none = "the run computes nothing at these parameter values";
    return v;
  }
  if (x == 1) {
    v.updatesPerStep = allUpdates / steps;
    v.seconds = allSeconds / steps;
    return v;
  }
  const double fusedSteps = steps - otherUpdates / perStatementUpdates;
  if (fusedSeconds <= 0 || fusedSteps < x - 0.5) {
    std::string note;
    for (const auto& n : (*p)["notes"])
      if (n.get<std::string>().find("time_tile") != std::string::npos ||
          n.get<std::string>().find("per statement") != std::string::npos)
        note = n;
    v.none = fmt::format("{} x 1 fuses nothing{}", x, note.empty() ? "" : ": " + note);
    return v;
  }
  v.seconds = fusedSeconds / fusedSteps * x;
  return v;
}

/// Runs the version fusing `degree` steps on opts.measureBackend (measure.h) and returns run's
/// report; nullopt after an error in `diags`.
std::optional<nlohmann::json> measureVersion(const Program& prog, const DeepTuneOptions& opts,
                                             std::map<std::string, std::string> flags, int degree,
                                             DiagnosticEngine& diags) {
  flags["--time-tile"] = degree == 1 ? "" : std::to_string(degree);
  MeasureOptions mo;
  mo.backend = opts.measureBackend;
  mo.params = opts.params;
  mo.repeat = opts.repeat;
  mo.verify = opts.verify;
  return measureRun(prog, flags, mo, diags);
}

/// Runs every predicted version on opts.measureBackend and composes `steps` from the measured
/// times. The per-step time of a version is its run's median time over the run's steps.
std::optional<nlohmann::json> measureVersions(const Program& prog, const DeepTuneOptions& opts,
                                              const std::map<std::string, std::string>& flags,
                                              const nlohmann::json& predicted, double runSteps,
                                              DiagnosticEngine& diags) {
  nlohmann::json m = {{"backend", opts.measureBackend},
                      {"repeat", opts.repeat},
                      {"versions", nlohmann::json::array()}};
  std::vector<double> f;
  for (const auto& v : predicted["versions"]) {
    const int x = v["degree"];
    std::cerr << fmt::format("deep-tune: measuring {} x 1 on {} ({} runs)...\n", x,
                             opts.measureBackend, opts.repeat);
    auto r = measureVersion(prog, opts, flags, x, diags);
    if (!r) return std::nullopt;
    m["device"] = (*r)["device"];
    const double perStep = (*r)["time_s"].get<double>() / runSteps;
    nlohmann::json row = {{"degree", x},
                          {"seconds", perStep * x},
                          {"seconds_per_step", perStep},
                          {"run_seconds", (*r)["time_s"]}};
    if (r->contains("verification")) {
      row["verified"] = (*r)["verification"]["passed"];
      if (!row["verified"].get<bool>()) {
        diags.report(
            DiagId::bad_schedule, {},
            fmt::format("deep-tune: version {} x 1 failed verification on {}:\n{}", x,
                        opts.measureBackend, (*r)["verification"].value("failures", std::string())),
            "this is a bug in Tessel; please report it with the program");
        return std::nullopt;
      }
    }
    m["versions"].push_back(row);
    f.push_back(perStep * x);
  }
  FusionComposition best = optimalComposition(f, predicted["steps"].get<int>());
  m["composition"] = best.text();
  m["parts"] = best.parts;
  m["seconds"] = best.seconds;
  m["seconds_unfused"] = f.front() * predicted["steps"].get<int>();
  // The model's composition, costed with the measured versions: what following the model costs.
  double modelChoice = 0;
  for (int part : predicted["parts"]) modelChoice += f[part - 1];
  m["model_composition_seconds"] = modelChoice;
  return m;
}

/// How the text names a family that fuses steps.
std::string familyTitle(const nlohmann::json& family) {
  return family.get<std::string>() == "stream" ? "stream + time_tile" : family.get<std::string>();
}

/// deepTune under one family (the options' --schedule, or the program's default).
std::optional<nlohmann::json> deepTuneFamily(const Program& prog, const DeepTuneOptions& opts,
                                             DiagnosticEngine& diags) {
  auto params = bindParams(prog, opts.params, diags);
  if (!params) return std::nullopt;
  std::map<std::string, std::string> flags = opts.scheduleFlags;
  std::string& family = flags["--schedule"];
  if (family.empty()) family = prog.dims() > 1 ? "stream" : "overlapped";
  if (family != "stream" && family != "overlapped") {
    // A family that does not fuse steps, or no family at all (said as run says it).
    diags.report(DiagId::bad_schedule, {},
                 parseFamily(family)
                     ? fmt::format("deep-tune: --schedule {} fuses no time steps", family)
                     : fmt::format("deep-tune: --schedule '{}': unknown schedule family", family),
                 "use --schedule stream (stream + time_tile, the default) or overlapped");
    return std::nullopt;
  }
  if (!flags["--time-tile"].empty()) {
    diags.report(DiagId::bad_schedule, {},
                 "deep-tune: --time-tile is what deep-tune chooses (it tries 1, 2, ...)",
                 "leave --time-tile out; --max-fuse bounds the degrees tried");
    return std::nullopt;
  }
  // A step is one execution of a call; the run's steps at these parameter values.
  const double runSteps = static_cast<double>(programWork(prog, *params).callsExecuted);
  const int steps =
      opts.steps ? *opts.steps
                 : static_cast<int>(std::min(runSteps, static_cast<double>(kMaxComposedSteps)));
  if (steps > kMaxComposedSteps) {
    // opt(T) keeps an entry per step and the composition a part per kernel: time and memory
    // grow with T (--steps 1000000000 took 40 s and 12.8 GB; 2147483647 ran out of memory).
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("deep-tune: --steps {}: at most {} (opt(T) keeps a table entry per "
                             "step and the composition lists every kernel, so time and memory "
                             "grow with the steps)",
                             steps, kMaxComposedSteps),
                 fmt::format("give --steps {} or fewer", kMaxComposedSteps));
    return std::nullopt;
  }
  if (!opts.steps && steps < 1) {
    // The run's steps: none at these parameter values (`--param T=0`).
    std::vector<std::string> values;
    for (size_t p = 0; p < prog.params.size() && p < params->size(); ++p)
      values.push_back(fmt::format("{}={}", prog.params[p].name, (*params)[p]));
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("deep-tune: the run executes no call at {}: it has no time steps "
                             "to compose",
                             fmt::join(values, ", ")),
                 "give parameter values under which its loops run (--param), or the steps to "
                 "compose with --steps");
    return std::nullopt;
  }
  for (const auto& [flag, value] : {std::pair{"--steps", steps}, {"--max-fuse", opts.maxFuse}})
    if (value < 1) {
      diags.report(DiagId::bad_schedule, {},
                   fmt::format("deep-tune: {} {}: must be at least 1", flag, value),
                   std::string(flag) == "--steps"
                       ? "give the number of time steps to compose, e.g. --steps 13"
                       : "give the most steps one kernel fuses, e.g. --max-fuse 4");
      return std::nullopt;
    }
  std::optional<FusionComposition> given;
  if (!opts.composition.empty()) {
    std::string why;
    given = parseComposition(opts.composition, why);
    if (!given || opts.outputDir.empty()) {
      diags.report(DiagId::bad_schedule, {},
                   given ? "deep-tune: --composition says what -o writes, and -o is missing"
                         : fmt::format("deep-tune: --composition '{}': {}", opts.composition, why),
                   given ? "give -o DIR"
                   : why.starts_with("more than ")
                       ? fmt::format("a composition given by hand covers at most {} steps (the "
                                     "run's steps, which it must cover)",
                                     kMaxGivenCompositionSteps)
                       : "write it as deep-tune prints one, e.g. 4x1 + 3x3");
      return std::nullopt;
    }
  }
  nlohmann::json out = {{"family", family},
                        {"steps", steps},
                        {"run_steps", runSteps},
                        {"versions", nlohmann::json::array()}};
  std::vector<double> f;
  std::map<int, Version> predicted;              // by degree
  auto version = [&](int x) -> const Version& {  // version 1 first: the others need it
    for (int d : {1, x})
      if (!predicted.count(d))
        predicted.emplace(d, predictVersion(prog, flags, *params, opts.ptxas, d, runSteps,
                                            d == 1 ? 0 : predicted.at(1).updatesPerStep, diags));
    return predicted.at(x);
  };
  bool pastStop = false;  // the model would have stopped before this version
  for (int x = 1; x <= opts.maxFuse; ++x) {
    const Version& v = version(x);
    if (!v.none.empty()) {
      if (!pastStop) out["stopped"] = v.none;
      break;
    }
    out["machine"] = v.machine;
    nlohmann::json row = {{"degree", x},
                          {"seconds", v.seconds},
                          {"seconds_per_step", v.seconds / x},
                          {"bound", v.bound}};
    // Past the model's stop only --measure goes on (up to --max-fuse), to measure what the model
    // would not try; those versions stay out of the model's composition.
    if (pastStop)
      row["past_stop"] = true;
    else
      f.push_back(v.seconds);
    out["versions"].push_back(row);
    if (!pastStop && !bandwidthBound(v.bound)) {
      out["stopped"] = fmt::format(
          "{} x 1 is {}-bound: more fusion saves traffic, which no longer limits it", x, v.bound);
      if (opts.measureBackend.empty()) break;
      pastStop = true;
    }
    if (x == opts.maxFuse && !out.contains("stopped"))
      out["stopped"] = fmt::format("--max-fuse {}", opts.maxFuse);
  }
  if (f.empty()) {
    const std::string why = out["stopped"].get<std::string>();
    diags.report(DiagId::bad_schedule, {}, "deep-tune: no version could be predicted: " + why,
                 why.find("computes nothing") != std::string::npos
                     ? "every statement's region is empty at these parameter values (tessel info "
                       "shows the regions): give larger ones with --param"
                     : "check the schedule flags with tessel check");
    return std::nullopt;
  }
  // A composition given by hand: every degree must be one the schedule takes, else the written
  // program would not check (`time_tile 16`: the stream family fuses at most 8 steps). A degree
  // that fuses nothing (where the search stops) is written as given, but said: a warning, and a
  // line in the written program's header.
  std::vector<int> unfusedDegrees;
  std::vector<std::string> unfused;  // per such degree, why
  if (given)
    for (int d : std::set<int>(given->parts.begin(), given->parts.end())) {
      const Version& v = version(d);
      if (v.refused) {
        diags.report(DiagId::bad_schedule, {},
                     fmt::format("deep-tune: --composition '{}': {}", opts.composition, v.none),
                     "give parts of fewer steps (deep-tune without --composition tries 1, 2, "
                     "... up to --max-fuse and says where it stopped)");
        return std::nullopt;
      }
      if (!v.none.empty()) {
        unfusedDegrees.push_back(d);
        unfused.push_back(v.none);
      }
    }
  FusionComposition best = optimalComposition(f, steps);
  out["composition"] = best.text();
  out["parts"] = best.parts;
  out["seconds"] = best.seconds;
  // The plain alternatives, for scale: every step alone, and the largest degree throughout.
  out["seconds_unfused"] = f.front() * steps;
  out["measured"] = nullptr;  // predictions only, unless --measure
  if (!opts.measureBackend.empty()) {
    flags["--time-tile"] = "";
    auto m = measureVersions(prog, opts, flags, out, runSteps, diags);
    if (!m) return std::nullopt;
    out["measured"] = *m;
  }
  if (!opts.outputDir.empty()) {
    FusionComposition write = best;
    if (given)
      write = *given;
    else if (!out["measured"].is_null())
      write.parts = out["measured"]["parts"].get<std::vector<int>>();
    std::map<std::string, std::string> runWith = flags;
    runWith["--schedule"] = family;
    std::vector<std::string> notes;
    for (size_t u = 0; u < unfused.size(); ++u)
      notes.push_back(fmt::format(
          "The parts of {} steps do not fuse, whatever their #pragma says (predicted: {}).",
          unfusedDegrees[u], unfused[u]));
    SplitResult w =
        writeComposedProgram(prog, opts.file, *params, write, runWith, opts.outputDir, notes);
    if (!w.error.empty()) {
      diags.report(DiagId::bad_schedule, {}, "deep-tune: " + w.error, w.hint);
      return std::nullopt;
    }
    out["written"] = {{"path", w.path},
                      {"composition", write.text()},
                      {"parts", write.parts},
                      {"unfused_degrees", unfusedDegrees}};
    for (const std::string& why : unfused)
      std::cerr << fmt::format(
          "tessel: warning: deep-tune: --composition '{}': {}; written as given, those parts "
          "do not fuse (the header of {} says so)\n  hint: the search (deep-tune without "
          "--composition) stops at the first degree that fuses nothing; parts of fewer steps "
          "may fuse\n",
          opts.composition, why, w.path);
  }
  return out;
}

}  // namespace

std::optional<nlohmann::json> deepTune(const Program& prog, const DeepTuneOptions& opts,
                                       DiagnosticEngine& diags) {
  const auto asked = opts.scheduleFlags.find("--schedule");
  if (asked == opts.scheduleFlags.end() || asked->second != "auto")
    return deepTuneFamily(prog, opts, diags);
  // --schedule auto: the composition is predicted under each family that fuses time steps (the
  // stream family needs two dimensions), and the faster one is kept; only that one is measured
  // (--measure) and written (-o).
  const std::vector<std::string> families = prog.dims() > 1
                                                ? std::vector<std::string>{"stream", "overlapped"}
                                                : std::vector<std::string>{"overlapped"};
  nlohmann::json candidates = nlohmann::json::array();
  std::optional<std::string> best;
  double bestSeconds = 0;
  std::vector<std::string> refusals;  // "family: why", for a message if every family refuses
  for (const std::string& family : families) {
    DeepTuneOptions trial = opts;
    trial.scheduleFlags["--schedule"] = family;
    trial.measureBackend.clear();
    trial.outputDir.clear();
    trial.composition.clear();
    DiagnosticEngine quiet;
    auto r = deepTuneFamily(prog, trial, quiet);
    if (!r) {
      const std::string why =
          quiet.diagnostics().empty() ? "refused" : quiet.diagnostics().front().message;
      candidates.push_back({{"family", family}, {"refused", why}});
      refusals.push_back(fmt::format("{}: {}", family, why));
      continue;
    }
    const double seconds = (*r)["seconds"].get<double>();
    candidates.push_back(
        {{"family", family}, {"seconds", seconds}, {"composition", (*r)["composition"]}});
    if (!best || seconds < bestSeconds) {
      best = family;
      bestSeconds = seconds;
    }
  }
  if (!best) {
    std::vector<std::string> whys;
    for (const auto& c : candidates) whys.push_back(c["refused"]);
    if (std::adjacent_find(whys.begin(), whys.end(), std::not_equal_to<>()) == whys.end()) {
      // One reason for all (bad parameters, say): said in full, as the first family says it.
      DeepTuneOptions first = opts;
      first.scheduleFlags["--schedule"] = families.front();
      return deepTuneFamily(prog, first, diags);
    }
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("deep-tune: --schedule auto: no family that fuses time steps could "
                             "be predicted ({})",
                             fmt::join(refusals, "; ")),
                 "name a family with --schedule stream or --schedule overlapped to see its "
                 "message in full");
    return std::nullopt;
  }
  DeepTuneOptions chosen = opts;
  chosen.scheduleFlags["--schedule"] = *best;
  auto out = deepTuneFamily(prog, chosen, diags);
  if (out)
    (*out)["schedule_chosen_by"] = {{"asked", "--schedule auto"}, {"candidates", candidates}};
  return out;
}

std::string deepTuneText(const nlohmann::json& r) {
  std::string chosenBy;
  if (r.contains("schedule_chosen_by")) {
    std::vector<std::string> each;
    for (const auto& c : r["schedule_chosen_by"]["candidates"])
      each.push_back(c.contains("refused")
                         ? fmt::format("{} refused ({})", familyTitle(c["family"]),
                                       c["refused"].get<std::string>())
                         : fmt::format("{} {} predicted {:.4g} ms", familyTitle(c["family"]),
                                       c["composition"].get<std::string>(),
                                       c["seconds"].get<double>() * 1e3));
    chosenBy = each.size() == 1
                   ? fmt::format(
                         "--schedule auto: {}, the one family that fuses the steps of a "
                         "program of one dimension\n",
                         each.front())
                   : fmt::format(
                         "--schedule auto: composed under each family that fuses steps "
                         "({}); the fastest is kept\n",
                         fmt::join(each, ", "));
  }
  std::string out =
      chosenBy +
      fmt::format(
          "Deep tuning of the time-fusion degree (paper 000 VI-A) under {} on {} (the performance "
          "model's predictions, not measurements)\n",
          familyTitle(r["family"]), r.value("machine", std::string("?")));
  out += "  version    time per kernel   per step     bound\n";
  for (const auto& v : r["versions"])
    out += fmt::format("  {:>2} x 1    {:>10.4g} ms   {:>8.4g} ms   {}{}\n", v["degree"].get<int>(),
                       v["seconds"].get<double>() * 1e3, v["seconds_per_step"].get<double>() * 1e3,
                       v["bound"].get<std::string>(),
                       v.value("past_stop", false) ? "   (past the stop: measured only)" : "");
  if (r.contains("stopped")) out += "  stopped: " + r["stopped"].get<std::string>() + "\n";
  out += fmt::format("{} steps: {}  predicted {:.4g} ms (every step alone: {:.4g} ms, {:.2f}x)\n",
                     r["steps"].get<int>(), r["composition"].get<std::string>(),
                     r["seconds"].get<double>() * 1e3, r["seconds_unfused"].get<double>() * 1e3,
                     r["seconds"].get<double>() > 0
                         ? r["seconds_unfused"].get<double>() / r["seconds"].get<double>()
                         : 0.0);
  std::string written;
  if (r.contains("written")) {
    std::vector<std::string> unfused;
    for (int d : r["written"].value("unfused_degrees", std::vector<int>{}))
      unfused.push_back(std::to_string(d));
    written = fmt::format(
        "wrote {}: the composition {} as a program{}\n", r["written"]["path"].get<std::string>(),
        r["written"]["composition"].get<std::string>(),
        unfused.empty()
            ? ""
            : fmt::format(" (its parts of {} steps do not fuse)", fmt::join(unfused, ", ")));
  }
  const nlohmann::json& m = r["measured"];
  if (m.is_null())
    return out + "measured: none (give --measure cuda|opencl|cpp to run them)\n" + written;
  out += fmt::format("Measured on {} ({}; median of {} runs, over the run's {} steps)\n",
                     m["backend"].get<std::string>(), m.value("device", std::string("?")),
                     m["repeat"].get<int>(), r["run_steps"].get<double>());
  out += "  version    time per kernel   per step     predicted/measured\n";
  for (size_t i = 0; i < m["versions"].size(); ++i) {
    const auto& v = m["versions"][i];
    const double predicted = r["versions"][i]["seconds"];
    out += fmt::format(
        "  {:>2} x 1    {:>10.4g} ms   {:>8.4g} ms   {:.2f}{}\n", v["degree"].get<int>(),
        v["seconds"].get<double>() * 1e3, v["seconds_per_step"].get<double>() * 1e3,
        predicted / v["seconds"].get<double>(), v.contains("verified") ? "   verified" : "");
  }
  const double unfused = m["seconds_unfused"], best = m["seconds"];
  out += fmt::format(
      "{} steps: {}  measured {:.4g} ms (every step alone: {:.4g} ms, {:.2f}x); the model's {} "
      "costs {:.4g} ms measured ({:.2f}x the measured best)\n",
      r["steps"].get<int>(), m["composition"].get<std::string>(), best * 1e3, unfused * 1e3,
      best > 0 ? unfused / best : 0.0, r["composition"].get<std::string>(),
      m["model_composition_seconds"].get<double>() * 1e3,
      best > 0 ? m["model_composition_seconds"].get<double>() / best : 0.0);
  out += "(a composition's measured time is the sum of its versions' measured kernel times)\n";
  return out + written;
}

}  // namespace tessel
