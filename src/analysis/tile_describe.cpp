// describe(): the tile-region analysis as text (tessel info, tests, debugging).
#include <fmt/format.h>

#include "analysis/tile_regions.h"

namespace tessel {

namespace {

/// "j -3..34, i -3..34" (tile coordinates; the tile is 0..tile-1).
std::string boxText(const Box& b, const std::vector<std::string>& iters, int streamDim) {
  if (b.empty) return "(empty)";
  std::string s;
  for (size_t d = 0; d < b.lo.size(); ++d) {
    if (static_cast<int>(d) == streamDim) {
      s += fmt::format("{}{} {:+}..{:+} (planes)", s.empty() ? "" : ", ", iters[d], b.lo[d],
                       b.hi[d]);
      continue;
    }
    s += fmt::format("{}{} {}..{}", s.empty() ? "" : ", ", iters[d], b.lo[d], b.hi[d]);
  }
  return s;
}

std::string extentText(const Box& b, int streamDim) {
  if (b.empty) return "0";
  std::string s;
  for (size_t d = 0; d < b.lo.size(); ++d)
    if (static_cast<int>(d) != streamDim)
      s += fmt::format("{}{}", s.empty() ? "" : "x", b.hi[d] - b.lo[d] + 1);
  return s.empty() ? "1" : s;
}

}  // namespace

std::string describe(const TileAnalysis& a, const Program& prog) {
  auto iters = prog.iteratorNames();
  const int sd = a.spec.streamDim;
  const char* per = sd >= 0 ? " per plane" : "";
  std::string tile;
  for (size_t d = 0; d < a.spec.tile.size(); ++d)
    if (static_cast<int>(d) != sd)
      tile += fmt::format("{}{}", tile.empty() ? "" : "x", a.spec.tile[d]);
  std::string s =
      fmt::format("Tile {} ({}), {} step{}, {} stage{}", tile.empty() ? "1" : tile,
                  fmt::join(iters, ","), a.seq.calls.size(), a.seq.calls.size() == 1 ? "" : "s",
                  a.stages.size(), a.stages.size() == 1 ? "" : "s");
  if (sd >= 0) s += fmt::format(", streamed along {}", iters[static_cast<size_t>(sd)]);
  s += "\n";
  if (!a.supported) s += "Not fusable: " + a.whyNot + "\n";
  for (size_t k = 0; k < a.stages.size(); ++k) {
    const TileStage& st = a.stages[k];
    const CallInst& c = prog.calls.at(static_cast<size_t>(st.call));
    s += fmt::format("  stage {} (step {}, {} statement {}) writes {}: ", k + 1, st.step + 1,
                     c.name, st.stmt + 1, valueName(prog, a.seq, st.writes));
    if (st.region.empty) {
      s += "not needed\n";
      continue;
    }
    s += fmt::format("{} = {} points{}, {} redundant", boxText(st.region, iters, sd),
                     extentText(st.region, sd), per, st.redundant);
    if (sd >= 0) s += fmt::format(", lead {}", st.lead);
    s += "\n";
  }
  for (auto& in : a.inputs)
    s += fmt::format("  input {}: footprint {} = {} points{}{}\n",
                     prog.arrays.at(static_cast<size_t>(in.array)).name,
                     boxText(in.footprint, iters, sd), in.points, per,
                     in.foldedInto < 0 ? ""
                                       : fmt::format(" (folded: loaded into {}'s buffer)",
                                                     prog.arrays.at(in.foldedInto).name));
  for (auto& b : a.buffers) {
    std::string who = b.producer < 0 ? "input" : fmt::format("stage {}", b.producer + 1);
    s += fmt::format("  buffer {} ({}): {} {} elements", valueName(prog, a.seq, b.value), who,
                     b.shared ? "shared" : "registers", b.elements);
    if (sd >= 0)
      s += fmt::format(" ({} plane{} of {})", b.planes, b.planes == 1 ? "" : "s",
                       extentText(b.box, sd));
    if (b.shared) s += fmt::format(", {} bytes", b.bytes);
    s += "\n";
  }
  const TileTotals& t = a.totals;
  std::string hulls =
      sd >= 0 ? "" : fmt::format(" ({} bytes with one buffer per value)", t.sharedBytesHulls);
  s += fmt::format(
      "  total: {} points computed{} for {} outputs, {} redundant ({:.1f}% of computed); "
      "shared memory {} bytes{}; {:.3g} global loads and {:.3g} stores per output point\n",
      t.computed, per, t.tilePoints, t.redundant, t.redundancyPercent, t.sharedBytes, hulls,
      t.loadsPerPoint, t.storesPerPoint);
  return s;
}

}  // namespace tessel
