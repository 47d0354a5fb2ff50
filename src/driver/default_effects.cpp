#include "driver/default_effects.h"

#include <fmt/format.h>

#include <vector>

#include "driver/analyze.h"

namespace tessel {

namespace {

/// A default of issue 11: the flag and value that turn it off, and whether a kernel (its
/// predictUnder JSON) applies it.
struct DefaultChange {
  const char* change;
  const char* flag;
  const char* off;
  bool (*applies)(const nlohmann::json& kernel);
};

const DefaultChange kDefaults[] = {
    {"32-bit index arithmetic", "--index-bits", "64",
     [](const nlohmann::json& k) { return k.value("index_bits", 64) == 32; }},
    {"dead stores left out", "--dead-stores", "keep",
     [](const nlohmann::json& k) { return !k.value("dead_stores", std::string()).empty(); }},
    {"a spare plane per input ring", "--spare-plane", "off",
     [](const nlohmann::json& k) { return k.value("spare_plane", false); }},
};

}  // namespace

nlohmann::json defaultEffects(const Program& prog, const std::map<std::string, std::string>& flags,
                              const ParamValues& params, bool ptxas, DiagnosticEngine& diags,
                              const nlohmann::json& with) {
  nlohmann::json out = nlohmann::json::array();
  const double seconds = with["seconds"].get<double>();
  for (const DefaultChange& d : kDefaults) {
    if (auto it = flags.find(d.flag); it != flags.end() && !it->second.empty()) continue;
    std::vector<std::string> kernels;
    for (const auto& k : with["kernels"])
      if (d.applies(k)) kernels.push_back(k["name"].get<std::string>());
    if (kernels.empty()) continue;
    std::map<std::string, std::string> off = flags;
    off[d.flag] = d.off;
    nlohmann::json e = {
        {"change", d.change}, {"flag", fmt::format("{} {}", d.flag, d.off)}, {"kernels", kernels}};
    std::string why;
    if (auto without = predictUnder(prog, off, params, ptxas, diags, nullptr, &why)) {
      const double before = (*without)["seconds"].get<double>();
      e["seconds_without"] = before;
      e["speedup"] = seconds > 0 ? before / seconds : 0;
    } else {
      e["refused"] = why;
    }
    out.push_back(e);
  }
  return out;
}

std::string defaultEffectsText(const nlohmann::json& effects) {
  if (effects.empty()) return "";
  std::string out =
      "defaults (issue 11's kernel changes, each turned off in turn: the predicted effect)\n";
  for (const auto& e : effects) {
    const std::string kernels =
        fmt::format("{}", fmt::join(e["kernels"].get<std::vector<std::string>>(), ", "));
    out += e.contains("refused")
               ? fmt::format("  {:<30} not predicted: with {} the schedule is refused ({})\n",
                             e["change"].get<std::string>(), e["flag"].get<std::string>(),
                             e["refused"].get<std::string>())
               : fmt::format("  {:<30} {:.2f}x ({:.4g} ms per run with {}; in {})\n",
                             e["change"].get<std::string>(), e["speedup"].get<double>(),
                             e["seconds_without"].get<double>() * 1e3, e["flag"].get<std::string>(),
                             kernels);
  }
  return out;
}

}  // namespace tessel
