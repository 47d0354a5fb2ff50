#include "driver/analyze.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "driver/default_effects.h"
#include "driver/fusion_choices.h"
#include "driver/kernel_report.h"
#include "driver/params.h"
#include "perf/predict.h"
#include "schedule/resolve.h"

namespace tessel {

namespace {

nlohmann::json kernelJson(const KernelReport& r, const Prediction& p, double total) {
  nlohmann::json levels = nlohmann::json::array();
  for (const LevelTime& l : p.levels)
    levels.push_back({{"level", l.level},
                      {"amount", l.amount},
                      {"rate", l.rate},
                      {"seconds", l.seconds},
                      {"intensity", l.intensity},
                      {"ridge", l.ridge},
                      {"rate_source", l.rateSource}});
  nlohmann::json j = {{"name", r.info.name},
                      {"family", familyText(r.info)},
                      {"block", r.info.block},
                      {"seconds_per_update", p.secondsPerUpdate},
                      {"roofline_seconds_per_update", p.rooflineSecondsPerUpdate},
                      {"bandwidth_seconds_per_update", p.bandwidthSecondsPerUpdate},
                      {"gstencils_per_s", p.gstencilsPerSecond()},
                      {"updates", p.updates},
                      {"seconds", p.seconds},
                      {"share_of_run", total > 0 ? p.seconds / total : 0},
                      {"bound", p.bound},
                      {"blocks", p.blocks},
                      {"fused_calls", r.info.fusedCalls.size()},
                      {"shared_bytes", r.sharedBytes},
                      {"applied", appliedText(r)},
                      {"index_bits", r.info.indexBits},
                      {"dead_stores", r.info.deadStores},
                      {"spare_plane", r.info.sparePlane},
                      {"register_values", r.info.registerValues},
                      {"wave_efficiency", p.waveEfficiency},
                      {"levels", levels},
                      {"hints", p.hints}};
  const LatencyBound& lat = p.latency;
  j["latency"] = {{"resident_threads", lat.residentThreads},
                  {"updates_per_thread", lat.updatesPerThread},
                  {"barriers_per_round", lat.barriersPerRound},
                  {"round_seconds", lat.roundSeconds},
                  {"seconds", lat.seconds},
                  {"source", lat.source}};
  if (r.occupancy) j["occupancy"] = occupancyJson(r);
  j.update(registersJson(r));
  j["calibration"] = p.calibrated ? nlohmann::json(p.calibration) : nlohmann::json();
  return j;
}

}  // namespace

std::optional<nlohmann::json> predictUnder(const Program& prog,
                                           const std::map<std::string, std::string>& flags,
                                           const ParamValues& params, bool ptxas,
                                           DiagnosticEngine& diags, PassLog* log,
                                           std::string* why) {
  DiagnosticEngine scratch;
  DiagnosticEngine& d = why ? scratch : diags;
  auto setup = setUpSchedules(prog, flags, d, false, log);
  if (!setup) {
    if (why) {
      *why = "refused";
      for (const Diagnostic& e : scratch.diagnostics())
        if (e.severity == Severity::Error) {
          *why = e.message;
          break;
        }
    }
    return std::nullopt;
  }
  KernelReportSet ks = reportKernels(prog, setup->resolved, setup->machine, ptxas, log, &params);
  ProgramPrediction pp = predictProgram(prog, setup->resolved, ks.reports, setup->machine, params);
  nlohmann::json j = {
      {"machine", setup->machine.name}, {"seconds", pp.seconds},
      {"updates", pp.updates},          {"gstencils_per_s", pp.gstencilsPerSecond()},
      {"ptxas", ks.ptxasNote},          {"kernels", nlohmann::json::array()}};
  j["roofline_gstencils_per_s"] = pp.rooflineGstencilsPerSecond();
  j["calibrated"] = pp.calibrated;
  for (size_t k = 0; k < ks.reports.size(); ++k)
    j["kernels"].push_back(kernelJson(ks.reports[k], pp.kernels[k], pp.seconds));
  // A fused kernel of a number of steps the machine's calibration did not measure for its family
  // (more steps, or stream's statement fusion: one step).
  j["extrapolated"] = false;
  for (const KernelReport& r : ks.reports) {
    auto tiles = setup->machine.calibrationTimeTiles.find(familyText(r.info));
    if (!r.info.fusedCalls.empty() && tiles != setup->machine.calibrationTimeTiles.end() &&
        !tiles->second.count(r.traffic.steps))
      j["extrapolated"] = true;
  }
  std::vector<std::string> notes = ks.notes;
  for (auto& n : setup->resolved.scheduleNotes) notes.push_back(n);
  j["notes"] = notes;
  return j;
}

namespace {

/// The register-level optimisations (issue 12) whose predicted effect `analyze` states where the
/// command line gives them: the schedule is predicted again without them.
const char* const kOptimisationFlags[] = {"--retime", "--prefetch", "--fold", "--unroll",
                                          "--perspective"};

/// The optimisation flags of `flags` as given ("--retime --unroll i=2"); "" without any.
std::string optimisationsOf(const std::map<std::string, std::string>& flags) {
  std::string out;
  for (const char* f : kOptimisationFlags) {
    auto it = flags.find(f);
    if (it == flags.end() || it->second.empty()) continue;
    out += (out.empty() ? "" : " ") + std::string(f) + (it->second == "on" ? "" : " " + it->second);
  }
  return out;
}

/// The predicted effect of the command line's register-level optimisations: `with` (the
/// analysis) against the same schedule without them, per program and per kernel of the same
/// name. Where the schedule without them is refused, why.
void addEffect(const Program& prog, const std::map<std::string, std::string>& flags,
               const ParamValues& params, bool ptxas, DiagnosticEngine& diags,
               nlohmann::json& with) {
  std::string given = optimisationsOf(flags);
  std::map<std::string, std::string> plain = flags;
  for (const char* f : kOptimisationFlags) plain.erase(f);
  // The `#pragma` clauses that turn an optimisation on, where the command line does not: the
  // variant without them switches them off (unroll and perspective to their defaults).
  std::set<std::string> clauses;
  for (const StencilDef& def : prog.stencils)
    for (const Hints::Clause& c : def.hints.clauses) clauses.insert(c.name);
  const std::pair<const char*, const char*> fromPragma[] = {{"retime", "--retime"},
                                                            {"prefetch", "--prefetch"},
                                                            {"fold", "--fold"},
                                                            {"unroll", "--unroll"},
                                                            {"perspective", "--perspective"}};
  // Without unrolling: a factor of 1 along every iterator.
  std::vector<std::string> once;
  for (const auto& it : prog.iterators) once.push_back(it.name + "=1");
  std::vector<std::string> pragma;
  for (const auto& [clause, flag] : fromPragma) {
    auto it = flags.find(flag);
    if (!clauses.count(clause) || (it != flags.end() && !it->second.empty())) continue;
    const std::string f = flag;
    plain[flag] = f == "--perspective" ? "output"
                  : f == "--unroll"    ? fmt::format("{}", fmt::join(once, ","))
                                       : "off";
    pragma.push_back(clause);
  }
  if (!pragma.empty())
    given +=
        fmt::format("{}the #pragma's {}", given.empty() ? "" : " and ", fmt::join(pragma, ", "));
  if (given.empty()) return;
  std::string why;
  auto without = predictUnder(prog, plain, params, ptxas, diags, nullptr, &why);
  nlohmann::json effect = {{"without", given}};
  if (!without) {
    effect["refused"] = why;
    with["effect"] = effect;
    return;
  }
  const double before = (*without)["seconds"].get<double>(), after = with["seconds"];
  effect["seconds_without"] = before;
  effect["speedup"] = after > 0 ? before / after : 0;
  with["effect"] = effect;
  for (auto& k : with["kernels"])
    for (const auto& b : (*without)["kernels"])
      if (b["name"] == k["name"]) {
        const double pb = b["seconds_per_update"], pa = k["seconds_per_update"];
        nlohmann::json e = {{"seconds_per_update_without", pb},
                            {"speedup", pa > 0 ? pb / pa : 0},
                            {"bound_without", b["bound"]}};
        if (b.contains("registers")) e["registers_without"] = b["registers"];
        e["shared_bytes_without"] = b["shared_bytes"];
        k["effect"] = e;
      }
}

/// A schedule --compare and --schedule auto try: a family, a time tile, and for `global` and
/// `stream` whether it fuses each call's statements (--fuse-statements: analysis/stmt_fusion.h
/// under global, one streamed kernel per call under stream).
struct Candidate {
  std::string family, tile;
  bool fuse = false;
  std::string name() const {
    return family + (tile.empty() ? "" : " --time-tile " + tile) +
           (fuse ? " --fuse-statements" : "");
  }
  void apply(std::map<std::string, std::string>& flags) const {
    flags["--schedule"] = family;
    if (!tile.empty()) flags["--time-tile"] = tile;
    if (fuse) flags["--fuse-statements"] = "on";
  }
};

/// The candidates, in the order near-ties are decided (the earlier wins): a fused `global` or
/// `stream` after the plain one, which it equals where no call has statements to fuse.
const std::vector<Candidate>& candidates() {
  static const std::vector<Candidate> c = {
      {"global", "", false},      {"global", "", true},       {"global-stream", "", false},
      {"shared", "", false},      {"stream", "", false},      {"stream", "", true},
      {"overlapped", "1", false}, {"overlapped", "2", false}, {"overlapped", "3", false},
      {"stream", "2", false},     {"stream", "3", false}};
  return c;
}

/// Whether fusion groups are given (other than `none`): they fuse under global and stream.
bool groupsGiven(const std::map<std::string, std::string>& flags) {
  auto groups = flags.find("--fusion-groups");
  return groups != flags.end() && !groups->second.empty() && groups->second != "none";
}

/// Whether the fused candidates differ from the plain ones: some call has statements to fuse,
/// and fusion groups (which fuse under global and stream already) are not given.
bool fusedCandidates(const Program& prog, const std::map<std::string, std::string>& flags) {
  if (groupsGiven(flags)) return false;
  for (size_t s = 0; s < prog.stencils.size(); ++s)
    if (severalStatements(prog, static_cast<int>(s))) return true;
  return false;
}

/// Whether `cand` fuses each call's statements under `flags`: asked for, or, under fusion
/// groups, global and stream without a time tile (buildSchedule turns it on there).
bool fusesStatements(const Candidate& cand, const std::map<std::string, std::string>& flags) {
  return cand.fuse || (groupsGiven(flags) && (cand.family == "global" || cand.family == "stream") &&
                       cand.tile.empty());
}

/// `cand`'s name as it runs under `flags` (with --fuse-statements where it fuses).
std::string runName(const Candidate& cand, const std::map<std::string, std::string>& flags) {
  return cand.name() + (!cand.fuse && fusesStatements(cand, flags) ? " --fuse-statements" : "");
}

}  // namespace

std::optional<nlohmann::json> analyzeProgram(const Program& prog, const AnalyzeOptions& opts,
                                             DiagnosticEngine& diags, PassLog* log) {
  auto params = bindParams(prog, opts.params, diags);
  if (!params) return std::nullopt;
  auto out = predictUnder(prog, opts.scheduleFlags, *params, opts.ptxas, diags, log);
  if (!out) return std::nullopt;
  nlohmann::json values = nlohmann::json::object();
  for (size_t p = 0; p < prog.params.size(); ++p) values[prog.params[p].name] = (*params)[p];
  (*out)["parameters"] = values;
  addEffect(prog, opts.scheduleFlags, *params, opts.ptxas, diags, *out);
  if (opts.defaultsEffect)
    (*out)["defaults_effect"] =
        defaultEffects(prog, opts.scheduleFlags, *params, opts.ptxas, diags, *out);
  if (opts.compare) (*out)["compare"] = compareSchedules(prog, opts.scheduleFlags, *params, diags);
  if (opts.fusionChoices) {
    nlohmann::json& choices = (*out)["fusion_choices"] =
        rankFusionChoices(prog, opts.scheduleFlags, *params, diags);
    if (!opts.measureBackend.empty()) {
      FusionMeasureOptions mo;
      mo.backend = opts.measureBackend;
      mo.repeat = opts.repeat;
      mo.top = static_cast<size_t>(std::max(1, opts.measureTop));
      mo.params = opts.params;
      auto m = measureFusionChoices(prog, choices, opts.scheduleFlags, mo, diags);
      if (!m) return std::nullopt;
      choices["measured"] = *m;
    }
  }
  return out;
}

nlohmann::json compareSchedules(const Program& prog,
                                const std::map<std::string, std::string>& given,
                                const ParamValues& params, DiagnosticEngine& diags) {
  nlohmann::json ranking = nlohmann::json::array();
  const bool fusable = fusedCandidates(prog, given);
  for (const Candidate& cand : candidates()) {
    if (cand.fuse && !fusable) continue;
    std::map<std::string, std::string> flags = given;
    flags.erase("--schedule-chosen-by");  // each row names its family itself
    flags["--time-tile"] = "";
    cand.apply(flags);
    std::string why;
    auto p = predictUnder(prog, flags, params, false, diags, nullptr, &why);
    const std::string name = runName(cand, given);
    std::erase_if(flags, [](const auto& f) { return f.second.empty(); });
    if (!p) {
      ranking.push_back({{"schedule", name}, {"flags", flags}, {"refused", why}});
      continue;
    }
    // The kernel that takes most of the run names the program's bound.
    const nlohmann::json* top = nullptr;
    for (const auto& k : (*p)["kernels"])
      if (!top || k["seconds"].get<double>() > (*top)["seconds"].get<double>()) top = &k;
    ranking.push_back({{"schedule", name},
                       {"flags", flags},
                       {"seconds", (*p)["seconds"]},
                       {"extrapolated", (*p)["extrapolated"]},
                       {"gstencils_per_s", (*p)["gstencils_per_s"]},
                       {"kernels", (*p)["kernels"].size()},
                       {"bound", top ? (*top)["bound"] : nlohmann::json("-")}});
  }
  std::stable_sort(ranking.begin(), ranking.end(), [](const auto& a, const auto& b) {
    if (a.contains("refused") != b.contains("refused")) return !a.contains("refused");
    return !a.contains("refused") &&
           a["seconds"].template get<double>() < b["seconds"].template get<double>();
  });
  return ranking;
}

std::string ModelChoice::asked() const {
  return byDefault ? "no schedule named" : "--schedule auto";
}

std::string ModelChoice::line() const {
  const size_t ranked = tried - refused - extrapolated;
  return fmt::format(
      "note: {}: the model ranks '{}' first of {} schedule{} on {} (predicted {:.4g} "
      "GStencil/s, {} roofline: a prediction, docs/model.md)",
      asked(), schedule, ranked, ranked == 1 ? "" : "s", machine, gstencilsPerSecond,
      calibrated ? "a calibrated" : "an uncalibrated");
}

bool scheduleNamed(const Program& prog, const std::map<std::string, std::string>& flags) {
  for (const char* f : {"--schedule", "--stream", "--full-stream", "--time-tile"}) {
    auto it = flags.find(f);
    if (it != flags.end() && !it->second.empty()) return true;
  }
  for (const StencilDef& def : prog.stencils)
    for (const Hints::Clause& c : def.hints.clauses)
      if (c.name == "stream" || c.name == "full_stream" || c.name == "time_tile") return true;
  return false;
}

std::optional<ModelChoice> chooseSchedule(const Program& prog,
                                          std::map<std::string, std::string> flags,
                                          const std::map<std::string, int64_t>& params,
                                          DiagnosticEngine& diags) {
  auto values = bindParams(prog, params, diags);
  if (!values) return std::nullopt;
  flags.erase("--schedule");
  flags.erase("--schedule-chosen-by");  // the driver's mark of an earlier choice
  // Blocks to try where the user gave none: the family's default, and three shapes of 256
  // threads (the validation refuses those a family or program cannot take).
  std::vector<std::string> blocks = {""};
  if (flags["--block"].empty()) blocks.insert(blocks.end(), {"32,8", "64,4", "128,2"});
  const bool tileGiven = !flags["--time-tile"].empty();
  std::optional<ModelChoice> best;
  ModelChoice tally;
  const bool fusable = fusedCandidates(prog, flags);
  std::string firstRefusal;  // why the first candidate refused was refused
  for (const Candidate& cand : candidates()) {
    if (cand.fuse && !fusable) continue;
    if (tileGiven && !cand.tile.empty()) continue;  // the user's time tile is kept
    for (const std::string& block : blocks) {
      std::map<std::string, std::string> f = flags;
      cand.apply(f);
      if (!block.empty()) f["--block"] = block;
      ++tally.tried;
      std::string why;
      auto p = predictUnder(prog, f, *values, false, diags, nullptr, &why);
      if (!p) {
        ++tally.refused;
        if (firstRefusal.empty() && !why.empty())
          firstRefusal = fmt::format("; the first, '{}{}': {}", cand.family,
                                     block.empty() ? "" : " --block " + block, why);
        continue;
      }
      if ((*p)["extrapolated"].get<bool>()) {  // no calibration for its fused steps
        ++tally.extrapolated;
        continue;
      }
      // Ranked by the predicted time; a candidate must beat the one kept by more than the model
      // resolves (kChoiceMargin), so the earlier one (the family's default block, the family
      // listed first) wins near-ties.
      const double seconds = (*p)["seconds"].get<double>();
      if (best && seconds >= best->seconds * (1 - kChoiceMargin)) continue;
      best = ModelChoice{};
      best->flags = f;
      best->seconds = seconds;
      best->gstencilsPerSecond = (*p)["gstencils_per_s"].get<double>();
      best->machine = (*p)["machine"].get<std::string>();
      best->calibrated = (*p)["calibrated"].get<bool>();
      best->schedule = cand.family;
      if (!f["--time-tile"].empty()) best->schedule += " --time-tile " + f["--time-tile"];
      if (fusesStatements(cand, flags)) best->schedule += " --fuse-statements";
      if (!block.empty()) best->schedule += " --block " + block;
    }
  }
  if (!best) {
    diags.report(
        DiagId::bad_schedule, {},
        fmt::format("--schedule auto: of the {} schedules tried, the validation refused {} and "
                    "{} fuse steps the machine's calibration did not measure{}",
                    tally.tried, tally.refused, tally.extrapolated, firstRefusal),
        "the options given may fit no family: name one (--schedule stream, ...) to see its "
        "reason");
    return std::nullopt;
  }
  best->tried = tally.tried;
  best->refused = tally.refused;
  best->extrapolated = tally.extrapolated;
  return best;
}

std::string analyzeText(const nlohmann::json& a) {
  std::string out = fmt::format(
      "Predicted on {} ({}: a prediction, not a measurement)\n", a["machine"].get<std::string>(),
      a["calibrated"].get<bool>()
          ? "a roofline calibrated per family on measured times of this GPU, docs/model.md"
          : "an uncalibrated roofline");
  std::vector<std::string> values;
  for (auto& [k, v] : a["parameters"].items())
    values.push_back(fmt::format("{}={}", k, v.get<int64_t>()));
  out += fmt::format(
      "program  {:.4g} ms per run, {:.4g} GStencil/s{} ({:.4g} stencil points; {})\n",
      a["seconds"].get<double>() * 1e3, a["gstencils_per_s"].get<double>(),
      a["calibrated"].get<bool>() ? fmt::format(" (the roofline alone: {:.4g})",
                                                a["roofline_gstencils_per_s"].get<double>())
                                  : std::string(),
      a["updates"].get<double>(), fmt::join(values, " "));
  if (a.contains("effect")) {
    const auto& e = a["effect"];
    const std::string without = e["without"];
    out += e.contains("refused")
               ? fmt::format("effect   not predicted: without {} the schedule is refused ({})\n",
                             without, e["refused"].get<std::string>())
               : fmt::format(
                     "effect   {:.2f}x against the same schedule without {} ({:.4g} ms "
                     "per run without)\n",
                     e["speedup"].get<double>(), without, e["seconds_without"].get<double>() * 1e3);
  }
  if (a.contains("defaults_effect")) out += defaultEffectsText(a["defaults_effect"]);
  for (const auto& k : a["kernels"]) {
    out += fmt::format("  {}  {}, block {}x{}x{}\n", k["name"].get<std::string>(),
                       k["family"].get<std::string>(), k["block"][0].get<int>(),
                       k["block"][1].get<int>(), k["block"][2].get<int>());
    out += fmt::format(
        "    time     {:.4g} ns per point-update ({:.4g} GStencil/s), {:.0f}% of the run; bound: "
        "{}; {} blocks, last wave {:.0f}% full{}\n",
        k["seconds_per_update"].get<double>() * 1e9, k["gstencils_per_s"].get<double>(),
        100 * k["share_of_run"].get<double>(), k["bound"].get<std::string>(),
        k["blocks"].get<int64_t>(), 100 * k["wave_efficiency"].get<double>(),
        k["calibration"].is_null() ? std::string()
                                   : fmt::format("; the roofline's time / {:.3g} (calibration)",
                                                 k["calibration"].get<double>()));
    for (const auto& l : k["levels"]) {
      const std::string name = l["level"];
      if (l["rate"].get<double>() <= 0) {
        out += fmt::format("    {:<8} {:.4g} {} per point-update; {}\n", name,
                           l["amount"].get<double>(), name == "compute" ? "FLOP" : "B",
                           l["rate_source"].get<std::string>());
        continue;
      }
      out += fmt::format("    {:<8} {:.4g} {} per point-update, {:.4g} ns", name,
                         l["amount"].get<double>(), name == "compute" ? "FLOP" : "B",
                         l["seconds"].get<double>() * 1e9);
      if (name != "compute" && l["amount"].get<double>() > 0)
        out += fmt::format(" (intensity {:.3g} FLOP/B, ridge {:.3g})", l["intensity"].get<double>(),
                           l["ridge"].get<double>());
      else if (name != "compute")
        out += " (no traffic: no intensity)";
      out += fmt::format("; {}\n", l["rate_source"].get<std::string>());
    }
    const auto& lat = k["latency"];
    if (lat["seconds"].get<double>() > 0)
      out += fmt::format("    latency  {:.4g} ns per point-update; {}\n",
                         lat["seconds"].get<double>() * 1e9, lat["source"].get<std::string>());
    else
      out += "    latency  " + lat["source"].get<std::string>() + "\n";
    if (k.contains("occupancy"))
      out += fmt::format("    occupancy {}{} blocks per SM ({:.0f}%), limited by {}{}\n",
                         k["occupancy"]["upper_bound"].get<bool>() ? "at most " : "",
                         k["occupancy"]["blocks_per_sm"].get<int>(),
                         100 * k["occupancy"]["fraction"].get<double>(),
                         k["occupancy"]["limited_by"].get<std::string>(),
                         k["occupancy"]["registers_estimated"].get<bool>()
                             ? fmt::format(" (with about {} registers, estimated)",
                                           k["registers_estimate"]["registers"].get<int>())
                             : "");
    if (k.contains("applied")) out += "    applied  " + k["applied"].get<std::string>() + "\n";
    if (k.contains("effect")) {
      const auto& e = k["effect"];
      std::string regs;
      if (e.contains("registers_without") && k.contains("registers"))
        regs = fmt::format(", {} -> {} registers", e["registers_without"].get<int>(),
                           k["registers"].get<int>());
      out += fmt::format(
          "    effect   {:.2f}x: {:.4g} -> {:.4g} ns per point-update without -> with {} (bound "
          "{} -> {}{}, {} -> {} B of shared memory)\n",
          e["speedup"].get<double>(), e["seconds_per_update_without"].get<double>() * 1e9,
          k["seconds_per_update"].get<double>() * 1e9, a["effect"]["without"].get<std::string>(),
          e["bound_without"].get<std::string>(), k["bound"].get<std::string>(), regs,
          e["shared_bytes_without"].get<int64_t>(), k["shared_bytes"].get<int64_t>());
    }
    for (const auto& h : k["hints"]) out += "    hint     " + h.get<std::string>() + "\n";
  }
  if (!a["ptxas"].get<std::string>().empty())
    out += "  registers: " + a["ptxas"].get<std::string>() + "\n";
  for (const auto& n : a["notes"]) out += "note: " + n.get<std::string>() + "\n";
  if (a.contains("fusion_choices")) out += "\n" + fusionChoicesText(a["fusion_choices"]);
  if (!a.contains("compare")) return out;
  out +=
      "\nSchedules ranked by predicted time per run (registers estimated from the kernels' "
      "IR):\n";
  // Rows of one family whose time tiles change nothing (a run of fewer calls than the tile
  // fuses them all already) are one line: "overlapped --time-tile 1, 2, 3", "stream (= --time-tile
  // 2, 3)".
  struct Row {
    std::string schedule, family;
    const nlohmann::json* c;
    std::vector<std::string> tiles;  // the time tiles of the rows merged into it
  };
  std::vector<Row> rows;
  for (const auto& c : a["compare"]) {
    const std::string schedule = c["schedule"].get<std::string>();
    std::string family = schedule;
    const size_t t = schedule.find(" --time-tile ");
    if (t != std::string::npos) family.resize(t);
    if (t != std::string::npos && !c.contains("refused") && !rows.empty() &&
        !rows.back().c->contains("refused") && rows.back().family == family &&
        (*rows.back().c)["seconds"] == c["seconds"] &&
        (*rows.back().c)["kernels"] == c["kernels"]) {
      rows.back().tiles.push_back(schedule.substr(schedule.rfind(' ') + 1));
      continue;
    }
    rows.push_back({schedule, family, &c, {}});
  }
  for (Row& r : rows)
    if (!r.tiles.empty())
      r.schedule += r.schedule.find(" --time-tile ") != std::string::npos
                        ? fmt::format(", {}", fmt::join(r.tiles, ", "))
                        : fmt::format(" (= --time-tile {})", fmt::join(r.tiles, ", "));
  int rank = 0;
  for (const Row& r : rows) {
    const nlohmann::json& c = *r.c;
    if (c.contains("refused")) {
      out += fmt::format("   -  {:<26} refused: {}\n", r.schedule, c["refused"].get<std::string>());
      continue;
    }
    out +=
        fmt::format("  {:>2}  {:<26} {:>10.4g} ms  {:>8.4g} GStencil/s  {} kernel{}, bound: {}\n",
                    ++rank, r.schedule, c["seconds"].get<double>() * 1e3,
                    c["gstencils_per_s"].get<double>(), c["kernels"].get<size_t>(),
                    c["kernels"].get<size_t>() == 1 ? "" : "s", c["bound"].get<std::string>());
    if (c["extrapolated"].get<bool>())
      out += r.schedule.find("--fuse-statements") != std::string::npos &&
                     r.schedule.find("--time-tile") == std::string::npos
                 ? "      (its statements fused in one streamed kernel, which the machine's "
                   "calibration did not measure: the model's choice leaves it out)\n"
                 : "      (fuses a number of time steps the machine's calibration did not measure "
                   "for its family: the model's choice leaves it out)\n";
  }
  return out;
}

}  // namespace tessel
