// `tessel analyze --fusion-choices` (fusion_choices.h).
#include "driver/fusion_choices.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>

#include "driver/analyze.h"
#include "driver/fusion_groups.h"
#include "driver/measure.h"
#include "driver/params.h"
#include "model/machine.h"
#include "perf/predict.h"

namespace tessel {

namespace {

struct Variant {
  std::string name;
  Program program;
  std::vector<std::string> notes;
};

/// The program as written and its fission and fusion-group variants (fusionChoiceNames()), by
/// their names in the ranking ("as written" for `none`). A variant that cannot be made (the
/// greedy plan of a program it refuses) is left out with its error in `diags`.
std::vector<Variant> variantsOf(const Program& prog, const std::string& machineName,
                                DiagnosticEngine& diags) {
  std::vector<Variant> out;
  for (const std::string& name : fusionChoiceNames()) {
    Variant v{name == "none" ? "as written" : name, Program{}, {}};
    auto p = fusionVariant(prog, name, machineName, diags, v.notes, kChoicesModestoWork);
    if (!p) continue;
    v.program = std::move(*p);
    out.push_back(std::move(v));
  }
  return out;
}

/// `flags` for fusion choice `name` ("none" or "as written": as they are): its groups are each one
/// kernel where the family fuses on request (global, stream; buildSchedule).
std::map<std::string, std::string> withGroups(std::map<std::string, std::string> flags,
                                              const std::string& name) {
  if (name != "none" && name != "as written") flags["--fusion-groups"] = name;
  return flags;
}

/// Whether `a` runs the same calls as `b` (the same number of calls, each the same statements):
/// a variant that changed nothing.
bool sameCalls(const Program& a, const Program& b) {
  if (a.calls.size() != b.calls.size()) return false;
  for (size_t c = 0; c < a.calls.size(); ++c)
    if (a.calls[c].stmts.size() != b.calls[c].stmts.size()) return false;
  return a.arrays.size() == b.arrays.size();
}

}  // namespace

std::string machineOf(const std::map<std::string, std::string>& flags) {
  auto machine = flags.find("--machine");
  return machine == flags.end() || machine->second.empty() ? "h100" : machine->second;
}

nlohmann::json rankFusionChoices(const Program& prog,
                                 const std::map<std::string, std::string>& flags,
                                 const ParamValues& params, DiagnosticEngine& diags) {
  const std::string machineName = machineOf(flags);
  nlohmann::json variants = nlohmann::json::array(), ranking = nlohmann::json::array();
  for (const Variant& v : variantsOf(prog, machineName, diags)) {
    const bool same = v.name != "as written" && sameCalls(v.program, prog);
    variants.push_back({{"fusion", v.name},
                        {"calls", v.program.calls.size()},
                        {"notes", v.notes},
                        {"same_as_written", same}});
    if (same) continue;
    for (nlohmann::json row :
         compareSchedules(v.program, withGroups(flags, v.name), params, diags)) {
      row["fusion"] = v.name;
      ranking.push_back(std::move(row));
    }
  }
  std::stable_sort(ranking.begin(), ranking.end(), [](const auto& a, const auto& b) {
    if (a.contains("refused") != b.contains("refused")) return !a.contains("refused");
    return !a.contains("refused") &&
           a["seconds"].template get<double>() < b["seconds"].template get<double>();
  });
  return {{"variants", variants}, {"ranking", ranking}};
}

std::string FusionModelChoice::line() const {
  const std::string against = writtenSeconds
                                  ? fmt::format("{:.4g} ms as written", *writtenSeconds * 1e3)
                                  : std::string("the program as written refused");
  return fmt::format(
      "note: --fusion-groups auto: the model ranks '{}' first of {} fusion choice{}{} (predicted "
      "{:.4g} ms per run against {}: a prediction, docs/fusion.md)",
      value, tried, tried == 1 ? "" : "s",
      schedule ? " with '" + schedule->schedule + "'" : std::string(), seconds * 1e3, against);
}

std::optional<FusionModelChoice> chooseFusion(const Program& prog,
                                              std::map<std::string, std::string> flags,
                                              const std::map<std::string, int64_t>& params,
                                              bool chooseSchedules, DiagnosticEngine& diags) {
  const std::string machineName = machineOf(flags);
  if (flags["--schedule"] == "auto") flags.erase("--schedule");
  std::optional<FusionModelChoice> best;
  std::optional<double> written;
  size_t tried = 0;
  std::vector<std::string> refused;
  for (const std::string& name : fusionChoiceNames()) {
    DiagnosticEngine quiet;  // a choice the model cannot cost is left out, with why
    std::vector<std::string> notes;
    auto variant = fusionVariant(prog, name, machineName, quiet, notes, kChoicesModestoWork);
    if (!variant) continue;
    // A variant that regroups nothing differs from the program as written only where the
    // family is fixed and does not fuse already (the schedules the model chooses among fuse
    // or not).
    const std::map<std::string, std::string> f = withGroups(flags, name);
    if (name != "none" && sameCalls(*variant, prog) &&
        (chooseSchedules || flags["--fuse-statements"] == "on"))
      continue;
    ++tried;
    FusionModelChoice c;
    c.value = name;
    std::string why;
    bool costed = false;  // a program whose regions are all empty costs 0 s, and is costed
    if (chooseSchedules) {
      c.schedule = chooseSchedule(*variant, f, params, quiet);
      if (c.schedule) c.seconds = c.schedule->seconds, costed = true;
    } else if (auto values = bindParams(*variant, params, quiet)) {
      if (auto p = predictUnder(*variant, f, *values, false, quiet, nullptr, &why))
        c.seconds = (*p)["seconds"].get<double>(), costed = true;
    }
    if (!costed) {
      refused.push_back(fmt::format("{} ({})", name, why.empty() ? "no schedule fits" : why));
      continue;
    }
    if (name == "none") written = c.seconds;
    // Ties within what the model resolves go to the earlier choice: the program as written.
    if (best && c.seconds >= best->seconds * (1 - kChoiceMargin)) continue;
    best = std::move(c);
  }
  if (!best) {
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("--fusion-groups auto: the model could cost none of the {} fusion "
                             "choices: {}",
                             tried, fmt::join(refused, "; ")),
                 "name a fusion choice (--fusion-groups none, greedy, ...) to see why");
    return std::nullopt;
  }
  best->writtenSeconds = written;
  best->tried = tried;
  return best;
}

std::optional<nlohmann::json> measureChoice(const Program& prog, const nlohmann::json& row,
                                            const std::string& machineName,
                                            const MeasureOptions& mo, DiagnosticEngine& diags) {
  const std::string fusion = row["fusion"], schedule = row["schedule"];
  std::vector<std::string> notes;
  auto variant = fusionVariant(prog, fusion == "as written" ? "none" : fusion, machineName, diags,
                               notes, kChoicesModestoWork);
  if (!variant) return std::nullopt;
  MeasureOptions m = mo;
  m.verify = true;
  m.reference = &prog;
  const auto f = row["flags"].get<std::map<std::string, std::string>>();
  auto r = measureRun(*variant, f, m, diags);
  if (!r) return std::nullopt;
  if (!r->contains("verification")) return r;  // built only, or the same code as one measured
  if (!(*r)["verification"]["passed"].get<bool>()) {
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("{} under {} failed verification on {}:\n{}", fusion, schedule,
                             mo.backend, (*r)["verification"].value("failures", std::string())),
                 "this is a bug in Tessel; please report it with the program");
    return std::nullopt;
  }
  return r;
}

std::optional<nlohmann::json> measureFusionChoices(const Program& prog,
                                                   const nlohmann::json& choices,
                                                   const std::map<std::string, std::string>& flags,
                                                   const FusionMeasureOptions& opts,
                                                   DiagnosticEngine& diags) {
  const std::string machineName = machineOf(flags);
  nlohmann::json out = {
      {"backend", opts.backend}, {"repeat", opts.repeat}, {"rows", nlohmann::json::array()}};
  MeasureOptions mo;
  mo.backend = opts.backend;
  mo.params = opts.params;
  mo.repeat = opts.repeat;
  std::optional<ProgramState> reference;  // interpreted once, compared with every row
  mo.referenceCache = &reference;
  double best = 0;
  for (const auto& row : choices["ranking"]) {
    if (out["rows"].size() >= opts.top) break;
    if (row.contains("refused")) continue;
    const std::string fusion = row["fusion"], schedule = row["schedule"];
    std::cerr << fmt::format("analyze: measuring {} under {} on {} ({} runs)...\n", fusion,
                             schedule, opts.backend, opts.repeat);
    auto r = measureChoice(prog, row, machineName, mo, diags);
    if (!r) return std::nullopt;
    out["device"] = (*r)["device"];
    const double seconds = (*r)["time_s"];
    if (out["rows"].empty() || seconds < best) {
      best = seconds;
      out["best"] = out["rows"].size();
    }
    out["rows"].push_back({{"fusion", fusion},
                           {"schedule", schedule},
                           {"predicted_seconds", row["seconds"]},
                           {"seconds", seconds},
                           {"verified", true}});
  }
  return out;
}

std::string fusionChoicesText(const nlohmann::json& choices) {
  std::string out =
      "Fission and fusion choices (the program's variants, paper 000 VI-B, 004 VI):\n";
  for (const auto& v : choices["variants"]) {
    out +=
        fmt::format("  {:<18} {} call{}{}\n", v["fusion"].get<std::string>(),
                    v["calls"].get<size_t>(), v["calls"].get<size_t>() == 1 ? "" : "s",
                    v["same_as_written"].get<bool>() ? " (the same as written: not ranked)" : "");
    for (const auto& n : v["notes"]) out += "      " + n.get<std::string>() + "\n";
  }
  out += "Ranked by predicted time per run (registers estimated from the kernels' IR):\n";
  int rank = 0, refused = 0;
  for (const auto& c : choices["ranking"]) {
    if (c.contains("refused")) {
      ++refused;
      continue;
    }
    out += fmt::format("  {:>2}  {:<18} {:<26} {:>10.4g} ms  {} kernel{}, bound: {}{}\n", ++rank,
                       c["fusion"].get<std::string>(), c["schedule"].get<std::string>(),
                       c["seconds"].get<double>() * 1e3, c["kernels"].get<size_t>(),
                       c["kernels"].get<size_t>() == 1 ? "" : "s", c["bound"].get<std::string>(),
                       c["extrapolated"].get<bool>() ? " (beyond the calibration)" : "");
  }
  if (refused > 0)
    out += fmt::format("  ({} refused by the validation: --json lists them with why)\n", refused);
  if (!choices.contains("measured")) return out;
  const nlohmann::json& m = choices["measured"];
  const nlohmann::json& rows = m["rows"];
  out += fmt::format(
      "Measured: the first {} rows of the ranking on {} (median of {} runs, each verified "
      "against the program as written; predicted: on the model's machine):\n",
      rows.size(), m.value("device", m["backend"].get<std::string>()), m["repeat"].get<int>());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out += fmt::format("  {:>2}  {:<18} {:<26} {:>10.4g} ms measured  (predicted {:.4g} ms){}\n",
                       i + 1, r["fusion"].get<std::string>(), r["schedule"].get<std::string>(),
                       r["seconds"].get<double>() * 1e3, r["predicted_seconds"].get<double>() * 1e3,
                       i == m["best"].get<size_t>() ? "  <- fastest measured" : "");
  }
  if (!rows.empty()) {
    const double first = rows[0]["seconds"], best = rows[m["best"].get<size_t>()]["seconds"];
    out += fmt::format(
        "The model's first choice ({} under {}) measured {:.4g} ms: {:.2f}x the fastest measured\n",
        rows[0]["fusion"].get<std::string>(), rows[0]["schedule"].get<std::string>(), first * 1e3,
        best > 0 ? first / best : 0.0);
  }
  return out;
}

}  // namespace tessel
