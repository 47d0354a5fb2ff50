// `tessel info --fusion-plan` (issue 13; analysis/greedy_fusion.h, paper 004 VI): STENCILGEN's
// greedy resource-driven fusion of every call, as text and JSON, on every benchmark; the
// machine's shared memory decides; the rule order and the order bound are options; a bad rule
// order is a clear error.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "support/command.h"
#include "unit/gpu_test_util.h"

using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

nlohmann::json planOf(const std::string& bench, const std::string& flags = "") {
  auto r = runCommand(tesselBinary() + " info --json --fusion-plan " + flags + " " +
                      benchmarkPath(bench).string());
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return nlohmann::json::parse(r.output)["fusion_plan"];
}

}  // namespace

// Every call's kernels partition its statements; every fusion saves data movement (D_m > 0) and
// fits the H100's shared memory per block.
TEST(CliFusionPlan, EveryBenchmarkPartitionsItsStatements) {
  for (const std::string& b : benchmarkNames()) {
    SCOPED_TRACE(b);
    auto r = runCommand(tesselBinary() + " info --json --fusion-plan " + benchmarkPath(b).string());
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const nlohmann::json j = nlohmann::json::parse(r.output);
    ASSERT_EQ(j["fusion_plan"].size(), j["calls"].size());
    for (size_t c = 0; c < j["calls"].size(); ++c) {
      const nlohmann::json& p = j["fusion_plan"][c];
      std::multiset<size_t> seen;
      for (const auto& k : p["kernels"])
        for (const auto& s : k) seen.insert(s.get<size_t>());
      std::multiset<size_t> all;
      for (size_t s = 0; s < j["calls"][c]["statements"].size(); ++s) all.insert(s);
      EXPECT_EQ(seen, all) << p.dump();
      EXPECT_EQ(p["kernels"].size() + p["steps"].size(), p["operators"].size()) << p.dump();
      for (const auto& st : p["steps"]) {
        EXPECT_GT(st["D_m"].get<int>(), 0) << st.dump();
        EXPECT_LE(st["shared_bytes"].get<int64_t>(), 232448) << st.dump();
      }
    }
  }
}

// rhs4center (30 statements): one kernel within an H100's 227 KiB of shared memory per block;
// five within a K20c's 48 KiB, each refusal naming the bytes.
TEST(CliFusionPlan, MachineSharedMemoryDecides) {
  EXPECT_EQ(planOf("rhs4center")[0]["kernels"].size(), 1u);
  const nlohmann::json k20 = planOf("rhs4center", "--machine k20c");
  EXPECT_GT(k20[0]["kernels"].size(), 1u) << k20.dump();
  for (const auto& s : k20[0]["steps"]) EXPECT_LE(s["shared_bytes"].get<int64_t>(), 49152);
  ASSERT_FALSE(k20[0]["not_fused"].empty());
  EXPECT_NE(k20[0]["not_fused"][0].get<std::string>().find("> 49152 B per block"),
            std::string::npos);
  // A smaller tile needs less: one kernel again.
  EXPECT_EQ(planOf("rhs4center", "--machine k20c --fusion-tile 8,8")[0]["kernels"].size(), 1u);
}

TEST(CliFusionPlan, TextOrderBoundAndRules) {
  auto r = runCommand(tesselBinary() + " info --fusion-plan --fusion-max-order 2 " +
                      benchmarkPath("cosmo-hdiff").string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  for (const char* line :
       {"greedy fusion of call #0 (hdiff): 4 statements, 4 operators; rules abcdefgh, order <= 2",
        "  operator s0: 0 reg, 1 shm, order 1  {in@0: shm, lap@0: global}",
        "  result: 2 kernels: [s0-s2] [s3]",
        "  not fused: s0-s2 with s3: order 3 > 2 (too much recomputation)"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  EXPECT_EQ(planOf("cosmo-hdiff", "--fusion-rules bcdaefgh")[0]["steps"][0]["fused"]["statements"],
            nlohmann::json::parse("[1, 2]"));
  // Without --fusion-plan, no plan.
  auto plain = runCommand(tesselBinary() + " info " + benchmarkPath("cosmo-hdiff").string());
  EXPECT_EQ(plain.output.find("fusion plan"), std::string::npos);
}

TEST(CliFusionPlan, BadRuleOrderIsAClearError) {
  for (const char* rules : {"abc", "abcdefgg", "abcdefgz"}) {
    auto r = runCommand(tesselBinary() + " info --fusion-plan --fusion-rules " + rules + " " +
                        benchmarkPath("cosmo-hdiff").string());
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("is not a permutation of the rules a to h"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("hint: --fusion-rules takes each of the letters a to h once"),
              std::string::npos)
        << r.output;
  }
}
