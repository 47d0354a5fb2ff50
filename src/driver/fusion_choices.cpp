// `tessel analyze --fusion-choices` (fusion_choices.h).
#include "driver/fusion_choices.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "analysis/fission.h"
#include "analysis/regroup.h"
#include "driver/analyze.h"
#include "driver/fusion_groups.h"
#include "model/machine.h"

namespace tessel {

namespace {

struct Variant {
  std::string name;
  Program program;
  std::vector<std::string> notes;
};

/// The program as written and its fission and fusion-group variants.
std::vector<Variant> variantsOf(const Program& prog, const std::string& machineName,
                                DiagnosticEngine& diags) {
  std::vector<Variant> out;
  out.push_back({"as written", prog, {}});
  for (FissionMode mode : {FissionMode::TrivialFission, FissionMode::MaxFuse}) {
    Variant v{fissionModeName(mode), Program{}, {}};
    v.program = splitProgram(prog, mode, v.notes);
    out.push_back(std::move(v));
  }
  {
    Groupings g = recomputeFissionGroupings(prog);
    Variant v{"recompute-fission", Program{}, g.notes};
    v.program = regroupProgram(prog, g.groups, v.notes);
    out.push_back(std::move(v));
  }
  GreedyFusionOptions greedy;
  DiagnosticEngine quiet;
  if (auto m = loadMachine(machineName, quiet)) greedy.sharedLimit = m->sharedPerBlockMax();
  try {
    Groupings g = greedyGroupings(prog, greedy);
    Variant v{"greedy", Program{}, g.notes};
    v.program = regroupProgram(prog, g.groups, v.notes);
    out.push_back(std::move(v));
  } catch (const std::invalid_argument& e) {
    diags.report(DiagId::bad_schedule, {}, e.what());
  }
  return out;
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

nlohmann::json rankFusionChoices(const Program& prog,
                                 const std::map<std::string, std::string>& flags,
                                 const ParamValues& params, DiagnosticEngine& diags) {
  auto machine = flags.find("--machine");
  const std::string machineName =
      machine == flags.end() || machine->second.empty() ? "h100" : machine->second;
  nlohmann::json variants = nlohmann::json::array(), ranking = nlohmann::json::array();
  for (const Variant& v : variantsOf(prog, machineName, diags)) {
    const bool same = v.name != "as written" && sameCalls(v.program, prog);
    variants.push_back({{"fusion", v.name},
                        {"calls", v.program.calls.size()},
                        {"notes", v.notes},
                        {"same_as_written", same}});
    if (same) continue;
    for (nlohmann::json row : compareSchedules(v.program, flags, params, diags)) {
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
  out += "Ranked by predicted time per run (registers not known: occupancy at most):\n";
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
  return out;
}

}  // namespace tessel
