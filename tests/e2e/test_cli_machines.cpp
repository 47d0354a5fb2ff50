// `tessel machines`: the machine descriptions --machine takes, as a table and as JSON with every
// figure's source; measured bandwidths kept apart from the datasheet's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/command.h"

using namespace tessel::testing;

TEST(CliMachines, ListsEveryMachineWithItsSources) {
  auto t = runCommand(tesselBinary() + " machines");
  ASSERT_EQ(t.exitCode, 0) << t.output;
  for (const char* id : {"a100", "h100", "h200", "k20c", "p100", "v100"})
    EXPECT_NE(t.output.find(std::string("\n") + id + " "), std::string::npos) << id << t.output;
  EXPECT_NE(t.output.find("3.35 TB/s (3 TB/s)"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("default: h100"), std::string::npos) << t.output;

  auto j = runCommand(tesselBinary() + " machines --json");
  ASSERT_EQ(j.exitCode, 0) << j.output;
  const nlohmann::json list = nlohmann::json::parse(j.output);
  ASSERT_EQ(list.size(), 6u);
  for (const auto& m : list) {
    EXPECT_TRUE(m["sources"].contains("measured_dram_bandwidth_bytes_per_s")) << m["id"];
    EXPECT_TRUE(m["sources"].contains("sm_clock_hz")) << m["id"];
    EXPECT_EQ(m["default"], m["id"] == "h100");
  }
  EXPECT_EQ(list[1]["id"], "h100");
  EXPECT_EQ(list[1]["measured_dram_bandwidth_bytes_per_s"], 3e12);
  EXPECT_EQ(list[1]["dram_bandwidth_bytes_per_s"], 3.35e12);
  EXPECT_TRUE(list[0]["measured_dram_bandwidth_bytes_per_s"].is_null());  // a100: none read
}
