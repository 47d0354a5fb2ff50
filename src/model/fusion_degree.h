// The fusion degree for any number of time steps (paper 000 section VI-A, ARTEMIS's deep
// tuning): given the time f(x) of version (x x 1), one kernel fusing x time steps, for
// x = 1..k, the cheapest way to run T steps is a composition of such kernels, found by the
// dynamic program
//
//   opt(0) = 0,   opt(T) = min over x = 1..min(k, T) of f(x) + opt(T - x).
//
// A composition is written as the paper does: (3x4 + 1x1) is four kernels of 3 fused steps, then
// one of 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessel {

struct FusionComposition {
  std::vector<int> parts;  // fused steps per kernel, in the order they run (largest first)
  double seconds = 0;      // the sum of their f(x)
  /// "3x4 + 1x1" (degree x count, largest degree first); "0 steps" when empty.
  std::string text() const;
};

/// The most steps a composition given as text covers.
inline constexpr int64_t kMaxGivenCompositionSteps = 100000;

/// A composition written as text() writes it (`4x1 + 3x3`, spaces optional, terms in any order;
/// the parts run largest first); nullopt and `error` set on anything else (a term that is not
/// DEGREExCOUNT with both at least 1, or "more than 100000 steps" in all, however many digits).
std::optional<FusionComposition> parseComposition(const std::string& text, std::string& error);

/// opt(steps) for `f` (f[x - 1]: the time of one kernel fusing x steps; every f > 0). Ties go
/// to the larger degree (fewer kernels). Throws std::invalid_argument for an empty `f`, a
/// non-positive time or negative steps.
FusionComposition optimalComposition(const std::vector<double>& f, int steps);

}  // namespace tessel
