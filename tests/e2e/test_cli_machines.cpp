// `tessel machines`: the machine descriptions --machine takes, as a table and as JSON with every
// figure's source; measured bandwidths kept apart from the datasheet's.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/command.h"
#include "support/files.h"

using namespace tessel::testing;

namespace {

/// The h100 file with `from` replaced by `to`, written as DIR/NAME.json (a fresh directory per
/// name); returns its path.
std::string editedH100(const std::string& name, const std::string& from, const std::string& to) {
  std::string text = readText(sourceDir() + "/machines/h100.json");
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  const std::filesystem::path file = freshTempDir("machines", name) / (name + ".json");
  std::ofstream(file) << text;
  return file.string();
}

}  // namespace

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
  ASSERT_EQ(list.size(), 7u);  // six GPUs, then the host CPU
  for (const auto& m : list) {
    if (m["kind"] == "cpu") continue;
    EXPECT_TRUE(m["sources"].contains("measured_dram_bandwidth_bytes_per_s")) << m["id"];
    EXPECT_TRUE(m["sources"].contains("sm_clock_hz")) << m["id"];
    EXPECT_EQ(m["default"], m["id"] == "h100");
  }
  EXPECT_EQ(list[1]["id"], "h100");
  EXPECT_EQ(list[1]["measured_dram_bandwidth_bytes_per_s"], 3e12);
  EXPECT_EQ(list[1]["dram_bandwidth_bytes_per_s"], 3.35e12);
  EXPECT_TRUE(list[0]["measured_dram_bandwidth_bytes_per_s"].is_null());  // a100: none read
}

TEST(CliMachines, TheHostIsMeasuredOnceThenCached) {
  // The host CPU is measured at first use (its caches, DRAM and L2 copy bandwidths, a
  // multiply-add rate) and cached; a second listing reads the cache. An empty cache directory
  // makes the first listing measure.
  const std::string dir = testing::TempDir() + "tessel-host-cache";
  std::filesystem::remove_all(dir);
  const std::string env = "XDG_CACHE_HOME=" + dir + " ";
  auto first = runCommand(env + tesselBinary() + " machines --json");
  ASSERT_EQ(first.exitCode, 0) << first.output;
  const nlohmann::json host = nlohmann::json::parse(first.output).back();
  EXPECT_EQ(host["id"], "host");
  EXPECT_EQ(host["kind"], "cpu");
  EXPECT_EQ(host["from_cache"], false);
  EXPECT_GT(host["cores"].get<int>(), 0);
  EXPECT_GT(host["dram_copy_bandwidth_bytes_per_s"].get<double>(), 1e8);
  EXPECT_GT(host["l2_copy_bandwidth_bytes_per_s"].get<double>(), 1e8);
  EXPECT_GT(host["fp64_flop_per_s"].get<double>(), 1e7);
  EXPECT_TRUE(host["sources"].contains("dram_copy_bandwidth_bytes_per_s"));
  EXPECT_EQ(host["cache_file"], dir + "/tessel/host.json");
  auto second = runCommand(env + tesselBinary() + " machines");
  ASSERT_EQ(second.exitCode, 0) << second.output;
  EXPECT_NE(second.output.find("\nhost   "), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("cached in " + dir + "/tessel/host.json"), std::string::npos)
      << second.output;
  // The GPU model cannot predict on it: a clear error naming what can.
  auto analyze = runCommand(tesselBinary() + " analyze " + sourceDir() +
                            "/benchmarks/j3d7pt.sten --no-ptxas --machine host");
  EXPECT_EQ(analyze.exitCode, 1);
  EXPECT_NE(analyze.output.find("'host' is this machine's CPU"), std::string::npos)
      << analyze.output;
  std::filesystem::remove_all(dir);
}

TEST(CliMachines, ACapabilityWithoutOccupancyRulesIsAUserError) {
  // Accepted before, and then analyze and info lost the occupancy without a word (one block per
  // SM assumed): every command that reads the machine refuses it, exit status 1.
  const std::string file =
      editedH100("cc95", "\"compute_capability\": \"9.0\"", "\"compute_capability\": \"9.5\"");
  for (const char* command : {"analyze --no-ptxas", "info --no-ptxas", "check"}) {
    auto r = runCommand(tesselBinary() + " " + command + " " + benchFile("j3d7pt") + " --machine " +
                        file);
    EXPECT_EQ(r.exitCode, 1) << command << r.output;
    EXPECT_NE(r.output.find("machine file '" + file +
                            "': field 'compute_capability' is \"9.5\", which the occupancy "
                            "calculator has no rules for (it knows 3.5, 3.7, 5.0, 5.2, 5.3, 6.0, "
                            "6.1, 6.2, 7.0, 7.2, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0)"),
              std::string::npos)
        << command << r.output;
  }
}

TEST(CliMachines, AnUnknownCalibrationFamilyIsAUserError) {
  // A misspelt family under calibration or calibration_time_tiles was accepted and its factor
  // never used; it is an error with the closest family, exit status 1.
  const std::string file =
      editedH100("calfamily", "\"calibration\": {\"global\"", "\"calibration\": {\"globl\"");
  auto r = runCommand(tesselBinary() + " analyze --no-ptxas " + benchFile("j3d7pt") +
                      " --machine " + file);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("machine file '" + file +
                          "': 'calibration' names 'globl', which is not a schedule family"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("hint: did you mean 'global'?"), std::string::npos) << r.output;
  const std::string tiles =
      editedH100("tilefamily", "\"stream + time_tile\": [2]", "\"stream+time_tile\": [2]");
  auto t = runCommand(tesselBinary() + " check " + benchFile("j3d7pt") + " --machine " + tiles);
  EXPECT_EQ(t.exitCode, 1) << t.output;
  EXPECT_NE(t.output.find("'calibration_time_tiles' names 'stream+time_tile'"), std::string::npos)
      << t.output;
  EXPECT_NE(t.output.find("hint: did you mean 'stream + time_tile'?"), std::string::npos)
      << t.output;
}

TEST(CliMachines, JsonHasEveryFigureOfTheFile) {
  // The docs say --json prints every figure with its source: each field `sources` names is in
  // the entry, with the file's value (warp_size, the block and grid limits, the registers, the
  // shared memory per block and the L2 bandwidth were left out).
  auto r = runCommand(tesselBinary() + " machines --json");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  size_t gpus = 0;
  for (const auto& m : nlohmann::json::parse(r.output)) {
    if (m["kind"] == "cpu") continue;
    ++gpus;
    const nlohmann::json file = nlohmann::json::parse(readText(m["file"].get<std::string>()));
    ASSERT_FALSE(m["sources"].empty()) << m["id"];
    for (auto& [field, _] : m["sources"].items()) {
      ASSERT_TRUE(m.contains(field)) << m["id"] << " lacks " << field;
      EXPECT_EQ(m[field], file[field]) << m["id"] << " " << field;
    }
    for (auto& [field, value] : file.items()) {
      if (field != "sources" && field != "notes") {
        EXPECT_TRUE(m.contains(field)) << m["id"] << " lacks " << field;
      }
    }
  }
  EXPECT_EQ(gpus, 6u);
}
