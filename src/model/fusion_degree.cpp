// The fusion degree for any number of time steps (fusion_degree.h).
#include "model/fusion_degree.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tessel {

std::string FusionComposition::text() const {
  if (parts.empty()) return "0 steps";
  std::vector<int> sorted = parts;
  std::sort(sorted.rbegin(), sorted.rend());
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    out += fmt::format("{}{}x{}", out.empty() ? "" : " + ", sorted[i], j - i);
    i = j;
  }
  return out;
}

std::optional<FusionComposition> parseComposition(const std::string& text, std::string& error) {
  FusionComposition out;
  std::string term;
  int64_t steps = 0;
  auto take = [&](const std::string& t) {
    const size_t x = t.find('x');
    // Digits, however many (a number past the limit is too large, not malformed); 0 if not.
    const int64_t tooMany = kMaxGivenCompositionSteps + 1;
    auto number = [&](const std::string& d) -> int64_t {
      if (d.empty() || !std::all_of(d.begin(), d.end(), ::isdigit)) return 0;
      const size_t first = std::min(d.find_first_not_of('0'), d.size());
      return d.size() - first > 9 ? tooMany : std::min<int64_t>(std::stoll(d), tooMany);
    };
    const int64_t degree = x == std::string::npos ? 0 : number(t.substr(0, x));
    const int64_t count = x == std::string::npos ? 0 : number(t.substr(x + 1));
    if (degree < 1 || count < 1) {
      error = fmt::format("'{}' is not DEGREExCOUNT (for example 3x4: four kernels of 3 steps)", t);
      return false;
    }
    steps += degree * count;
    if (steps > kMaxGivenCompositionSteps) {
      error = fmt::format("more than {} steps", kMaxGivenCompositionSteps);
      return false;
    }
    out.parts.insert(out.parts.end(), static_cast<size_t>(count), static_cast<int>(degree));
    return true;
  };
  for (char ch : text + "+") {
    if (ch == ' ') continue;
    if (ch != '+') {
      term += ch;
      continue;
    }
    if (!take(term)) return std::nullopt;
    term.clear();
  }
  std::sort(out.parts.rbegin(), out.parts.rend());
  return out;
}

FusionComposition optimalComposition(const std::vector<double>& f, int steps) {
  if (f.empty()) throw std::invalid_argument("optimalComposition: no version");
  if (steps < 0) throw std::invalid_argument("optimalComposition: negative steps");
  for (double t : f)
    if (!(t > 0)) throw std::invalid_argument("optimalComposition: a time that is not positive");
  const int k = static_cast<int>(f.size());
  // opt[t]: the least time for t steps; first[t]: the degree of its first kernel.
  std::vector<double> opt(static_cast<size_t>(steps) + 1, 0);
  std::vector<int> first(static_cast<size_t>(steps) + 1, 0);
  for (int t = 1; t <= steps; ++t) {
    opt[static_cast<size_t>(t)] = std::numeric_limits<double>::infinity();
    for (int x = std::min(k, t); x >= 1; --x) {  // larger degrees first: they win ties
      const double c = f[static_cast<size_t>(x - 1)] + opt[static_cast<size_t>(t - x)];
      if (c < opt[static_cast<size_t>(t)]) {
        opt[static_cast<size_t>(t)] = c;
        first[static_cast<size_t>(t)] = x;
      }
    }
  }
  FusionComposition out;
  out.seconds = opt[static_cast<size_t>(steps)];
  for (int t = steps; t > 0; t -= first[static_cast<size_t>(t)])
    out.parts.push_back(first[static_cast<size_t>(t)]);
  std::sort(out.parts.rbegin(), out.parts.rend());
  return out;
}

}  // namespace tessel
