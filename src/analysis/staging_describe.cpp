// The staging of a statement in words (staging.h): the kernels' comments, the resolved
// schedule's dump (--print-ir-after=resolve-schedule) and the reports say it the same way.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/staging.h"

namespace tessel {

namespace {

/// "2x34": the tile's extents along its in-plane subscripts.
std::string tileDims(const StagePlan& p) {
  std::vector<std::string> e;
  for (size_t s = 0; s < p.extent.size(); ++s)
    if (p.group.iters[s] >= 0 && static_cast<int>(s) != p.streamPos)
      e.push_back(std::to_string(p.extent[s]));
  return e.empty() ? std::string("1") : fmt::format("{}", fmt::join(e, "x"));
}

/// Where a Planes group's planes live: "planes k-1, k+1 in registers, k in shared memory ...".
std::string planesText(const StagePlan& p, const std::string& it) {
  std::vector<std::string> regs, shared;
  int64_t lo = p.group.lo[p.streamPos];
  for (int64_t o = lo; o <= p.group.hi[p.streamPos]; ++o) {
    bool inShared = p.planeInShared[o - lo];
    bool read = false;
    for (auto& r : p.group.refs) read = read || r.offset(p.streamPos) == o;
    if (read) (inShared ? shared : regs).push_back(planeText(it, o));
  }
  std::string line = "planes";
  if (!regs.empty()) line += fmt::format(" {} in registers", fmt::join(regs, ", "));
  if (!regs.empty() && !shared.empty()) line += ",";
  if (!shared.empty())
    line +=
        fmt::format(" {} in shared memory ({} of {}, in {} slots)", fmt::join(shared, ", "),
                    p.sharedPlanes() == 1 ? std::string("one plane")
                                          : fmt::format("a ring of {} planes", p.sharedPlanes()),
                    tileDims(p), p.ringSlots());
  return line;
}

}  // namespace

std::string planeText(const std::string& iter, int64_t o) {
  return o == 0 ? iter : fmt::format("{}{:+}", iter, o);
}

std::string describePlan(const StagePlan& p, const std::string& streamIter) {
  if (p.kind == StageKind::Global) return "read at its centre only, from global memory";
  if (p.kind == StageKind::Tile)
    return fmt::format("a {} tile in shared memory, loaded once", tileDims(p));
  return planesText(p, streamIter);
}

}  // namespace tessel
