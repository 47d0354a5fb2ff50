// The fusion degree for any number of time steps (model/fusion_degree.h; issue 13, paper 000
// section VI-A): the dynamic program opt(T) against brute force over every composition for
// T <= 12, and the paper's notation.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "model/fusion_degree.h"

namespace tessel {
namespace {

/// The least time of any ordered composition of `steps` into parts of at most f.size().
double bruteForce(const std::vector<double>& f, int steps) {
  double best = std::numeric_limits<double>::infinity();
  std::function<void(int, double)> walk = [&](int left, double acc) {
    if (left == 0) {
      best = std::min(best, acc);
      return;
    }
    for (int x = 1; x <= std::min<int>(left, static_cast<int>(f.size())); ++x)
      walk(left - x, acc + f[static_cast<size_t>(x - 1)]);
  };
  walk(steps, 0);
  return best;
}

}  // namespace

TEST(FusionDegree, OptEqualsBruteForceUpToTwelveSteps) {
  std::mt19937 rng(2026);
  std::uniform_real_distribution<double> perStep(0.5, 1.5), gain(0.6, 1.1);
  for (int trial = 0; trial < 40; ++trial) {
    // k versions whose time per step first falls (fusion saves traffic) and may rise again.
    const int k = 1 + trial % 6;
    std::vector<double> f;
    double step = perStep(rng);
    for (int x = 1; x <= k; ++x) {
      f.push_back(step * x);
      step *= gain(rng);
    }
    for (int t = 0; t <= 12; ++t) {
      SCOPED_TRACE(testing::Message() << "trial " << trial << ", T = " << t);
      FusionComposition c = optimalComposition(f, t);
      EXPECT_NEAR(c.seconds, bruteForce(f, t), 1e-12 * (1 + c.seconds));
      EXPECT_EQ(std::accumulate(c.parts.begin(), c.parts.end(), 0), t);
      double sum = 0;
      for (int x : c.parts) {
        ASSERT_GE(x, 1);
        ASSERT_LE(x, k);
        sum += f[static_cast<size_t>(x - 1)];
      }
      EXPECT_NEAR(sum, c.seconds, 1e-12 * (1 + sum));
    }
  }
}

// The paper's example: 13 time steps of a bandwidth-bound stencil whose fused versions pay up
// to 3 steps (per step 1, 0.75, 0.6, then 0.75 at 4 fused steps): (3x4 + 1x1), 8.2, ahead of
// (3x3 + 2x2) and (3x3 + 4x1), 8.4 each.
TEST(FusionDegree, PaperNotationAndTies) {
  const std::vector<double> f = {1.0, 1.5, 1.8, 3.0};
  FusionComposition c = optimalComposition(f, 13);
  EXPECT_EQ(c.text(), "3x4 + 1x1");
  EXPECT_DOUBLE_EQ(c.seconds, 4 * 1.8 + 1.0);
  EXPECT_EQ(optimalComposition(f, 0).text(), "0 steps");
  // Equal times: the larger degree (fewer kernels) wins.
  EXPECT_EQ(optimalComposition({1.0, 2.0}, 4).text(), "2x2");
  EXPECT_THROW(optimalComposition({}, 3), std::invalid_argument);
  EXPECT_THROW(optimalComposition({1.0, 0.0}, 3), std::invalid_argument);
  EXPECT_THROW(optimalComposition({1.0}, -1), std::invalid_argument);
}

// Compositions read back as text() writes them (deep-tune --composition), in any order.
TEST(FusionDegree, ParseComposition) {
  std::string error;
  auto c = parseComposition("1x1 + 3x4", error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->parts, (std::vector<int>{3, 3, 3, 3, 1}));
  EXPECT_EQ(c->text(), "3x4 + 1x1");
  c = parseComposition("4x1+3x3", error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->parts, (std::vector<int>{4, 3, 3, 3}));
  for (const char* bad : {"", "3", "x4", "3x", "3x0", "0x2", "3x4 +", "3*4", "-1x2", "3x1000000"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(parseComposition(bad, error));
    EXPECT_FALSE(error.empty());
  }
  EXPECT_FALSE(parseComposition("9x99999", error));
  EXPECT_EQ(error, "more than 100000 steps");
  // Too large however many digits (they were "not DEGREExCOUNT" past 6 digits); leading zeros
  // are digits.
  for (const char* large : {"1x1000000", "1000001x1", "1x99999999999999999999999"}) {
    EXPECT_FALSE(parseComposition(large, error)) << large;
    EXPECT_EQ(error, "more than 100000 steps") << large;
  }
  c = parseComposition("0000002x00000003", error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->text(), "2x3");
}

}  // namespace tessel
