#include "driver/info_overlapped.h"

#include <fmt/format.h>

#include "schedule/resolve.h"

namespace tessel {

nlohmann::json fusedKernelsJson(const Program& prog, const ResolvedSchedule& resolved,
                                const MachineDesc& machine) {
  nlohmann::json out = nlohmann::json::array();
  for (const FusionGroup& g : resolved.groups) {
    if (!g.fused) {
      out.push_back({{"calls", g.body}, {"fused", false}, {"why", g.note}});
      continue;
    }
    for (const FusedVariant& v : g.variants) {
      const TileTotals& t = v.analysis.totals;
      const std::array<int, 3>& block = resolved.grids.at(static_cast<size_t>(g.stencil)).block;
      const bool streamed = g.streamDim >= 0;
      // Streamed: rings of planes per stage; tiled: one hull per value.
      int64_t bytes = streamed ? t.sharedBytes : t.sharedBytesHulls;
      nlohmann::json tile = v.tile;
      if (streamed) tile[static_cast<size_t>(g.streamDim)] = "stream";
      out.push_back(
          {{"calls", v.seq.calls},
           {"fused", true},
           {"time_tile", g.timeTile},
           {"phase", v.phase},
           {"block", {block[0], block[1], block[2]}},
           {"tile", tile},
           {"streamed", streamed ? prog.iterators.at(static_cast<size_t>(g.streamDim)).name : ""},
           {"points_computed", t.computed},
           {"points_redundant", t.redundant},
           {"redundancy_percent", t.redundancyPercent},
           {"shared_bytes", bytes},
           {"shared_limit", machine.sharedPerBlockMax()},
           {"exceeds_shared", bytes > machine.sharedPerBlockMax()},
           {"loads_per_point", t.loadsPerPoint},
           {"stores_per_point", t.storesPerPoint},
           {"regions", describe(v.analysis, prog)}});
      if (bytes > machine.sharedPerBlockMax())
        out.back()["note"] = fmt::format(
            "exceeds the {} bytes of shared memory per block of {}: run and emit refuse this "
            "schedule",
            machine.sharedPerBlockMax(), machine.name);
    }
  }
  return out;
}

std::string fusedKernelsText(const nlohmann::json& kernels) {
  if (kernels.empty()) return {};
  std::string out = "fused kernels (tile regions: docs/adr/0004-tile-regions.md)\n";
  for (auto& k : kernels) {
    std::string calls;
    for (auto& c : k["calls"]) calls += (calls.empty() ? "" : ", ") + std::to_string(c.get<int>());
    if (!k["fused"].get<bool>()) {
      out += fmt::format("  calls {}: per statement: {}\n", calls, k["why"].get<std::string>());
      continue;
    }
    std::string tile, block;
    for (auto& x : k["tile"])
      tile += (tile.empty() ? "" : "x") +
              (x.is_string() ? x.get<std::string>() : std::to_string(x.get<int64_t>()));
    for (auto& x : k["block"])
      block += (block.empty() ? "" : "x") + std::to_string(x.get<int64_t>());
    out += fmt::format(
        "  calls {} (time_tile {}): block {}, tile {}, {} bytes of shared memory, {:.1f}% of "
        "the computed points redundant\n",
        calls, k["time_tile"].get<int>(), block, tile, k["shared_bytes"].get<int64_t>(),
        k["redundancy_percent"].get<double>());
    if (k.contains("note")) out += "    note: " + k["note"].get<std::string>() + "\n";
    std::string r = k["regions"].get<std::string>();
    size_t p = 0;
    while (p < r.size()) {
      size_t e = r.find('\n', p);
      if (e == std::string::npos) e = r.size();
      out += "    " + r.substr(p, e - p) + "\n";
      p = e + 1;
    }
  }
  return out;
}

}  // namespace tessel
