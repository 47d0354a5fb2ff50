// The exhaustive search over variants (search.h).
#include "modesto/search.h"

#include <algorithm>
#include <set>

namespace tessel::modesto {

std::vector<Evaluation> rankVariants(const StencilProgram& p, const Hierarchy& h,
                                     size_t orderLimit) {
  validate(p);
  std::vector<Evaluation> out;
  std::set<std::string> seen;
  const int levels = static_cast<int>(h.levels.size());
  for (const std::vector<int>& order : topologicalOrders(p, orderLimit))
    for (const Group& g : groupings(order, levels))
      if (seen.insert(variantText(g, p)).second) out.push_back(evaluate(p, h, g));
  std::stable_sort(out.begin(), out.end(), [](const Evaluation& a, const Evaluation& b) {
    if (a.feasible != b.feasible) return a.feasible;
    return a.seconds < b.seconds;
  });
  return out;
}

}  // namespace tessel::modesto
