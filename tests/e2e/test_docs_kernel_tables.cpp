// docs/gpu.md's per-benchmark kernel tables (scripts/kernel_quality.py's output) against today's
// binary: for every row, the figures that need no ptxas (shared memory per block, barriers per
// plane or once, global elements per output point, shared loads per point) as `tessel info
// --json --no-ptxas` reports them for the row's main kernel (the script's choice: the first
// fused one, else the first). Section 13's "after" side (its "before" is commit ab00565);
// sections 14, 16 and 17's stream/2 tables and section 11's overlapped/2 one on both sides
// (without and with the option). A row
// that drifts fails with the command that regenerates its table.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/command.h"
#include "support/files.h"

using namespace tessel::testing;

namespace {

/// A table of docs/gpu.md: the text its header follows, the options of its "after" side (""
/// for section 13, whose "before" is another binary), and how it is regenerated.
struct DocTable {
  const char* anchor;
  const char* with;
  const char* regenerate;
};

const DocTable kTables[] = {
    {"## 13. Kernel quality before and after (issue 11)", "",
     "section 13's command (kernel_quality.py --before ab00565's tessel)"},
    {"The fused kernels, without and with `--retime`", "--retime",
     "kernel_quality.py --with=--retime --schedules stream/2,stream/4"},
    {"The fused kernels with and without `--unroll i=2`", "--unroll i=2",
     "kernel_quality.py --with=\"--unroll i=2\" --schedules stream/2"},
    {"The fused kernels with and without `--prefetch`", "--prefetch",
     "kernel_quality.py --with=--prefetch --schedules stream/2"},
    {"The overlapped kernels without\nand with `--register-values on`", "--register-values on",
     "kernel_quality.py --with=\"--register-values on\" --schedules overlapped/2"},
};

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream in(row.substr(1));
  std::string c;
  while (std::getline(in, c, '|')) {
    const size_t a = c.find_first_not_of(' '), b = c.find_last_not_of(' ');
    out.push_back(a == std::string::npos ? "" : c.substr(a, b - a + 1));
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

/// "a → b" -> {a, b}; "v" -> {v, v}; " once" dropped.
std::pair<std::string, std::string> sides(std::string cell) {
  if (const size_t once = cell.find(" once"); once != std::string::npos) cell.erase(once);
  const std::string arrow = " → ";
  const size_t at = cell.find(arrow);
  if (at == std::string::npos) return {cell, cell};
  return {cell.substr(0, at), cell.substr(at + arrow.size())};
}

/// The row's main kernel under `flags`, as kernel_quality.py picks it.
nlohmann::json mainKernel(const std::string& bench, const std::string& flags) {
  auto r = runCommand(tesselBinary() + " info --json --no-ptxas " + sourceDir() + "/benchmarks/" +
                      bench + ".sten " + flags + " 2>/dev/null");
  EXPECT_EQ(r.exitCode, 0) << bench << " " << flags << "\n" << r.output;
  if (r.exitCode != 0) return {};
  const nlohmann::json j = nlohmann::json::parse(r.output);
  for (const auto& k : j["kernels"])
    if (k["family"] == "overlapped" || k["family"] == "stream + time_tile") return k;
  return j["kernels"].empty() ? nlohmann::json() : j["kernels"][0];
}

std::string g3(double v) { return fmt::format("{:.3g}", v); }

/// The figures of `k` under the table's column names.
std::map<std::string, std::string> figures(const nlohmann::json& k) {
  std::map<std::string, std::string> f;
  f["shared B"] = std::to_string(k.value("shared_bytes", int64_t{0}));
  const int64_t perPlane = k.value("barriers_per_plane", int64_t{0});
  f["barriers per plane"] = std::to_string(perPlane ? perPlane : k.value("barriers_once", 0));
  f["elements per point"] = g3(k.value("loads_per_point", 0.0) + k.value("stores_per_point", 0.0));
  if (k.contains("traffic") && k["traffic"].contains("shared_loads"))
    f["shared loads per point"] = g3(k["traffic"]["shared_loads"].get<double>());
  return f;
}

std::string flagsOf(const std::string& schedule, const std::string& with) {
  const size_t slash = schedule.find('/');
  std::string f = "--schedule " + schedule.substr(0, slash);
  if (slash != std::string::npos) f += " --time-tile " + schedule.substr(slash + 1);
  return with.empty() ? f : f + " " + with;
}

}  // namespace

TEST(DocsKernelTables, GpuMdQuotesTodaysKernels) {
  const std::string doc = readText(std::filesystem::path(sourceDir()) / "docs/gpu.md");
  size_t rows = 0;
  for (const DocTable& t : kTables) {
    SCOPED_TRACE(t.anchor);
    const size_t anchor = doc.find(t.anchor);
    ASSERT_NE(anchor, std::string::npos);
    const size_t head = doc.find("\n| benchmark |", anchor);
    ASSERT_NE(head, std::string::npos);
    std::stringstream lines(doc.substr(head + 1));
    std::string line;
    std::getline(lines, line);
    const std::vector<std::string> header = cells(line);
    std::getline(lines, line);  // | --- | ...
    while (std::getline(lines, line) && line.rfind("| ", 0) == 0) {
      const std::vector<std::string> c = cells(line);
      ASSERT_EQ(c.size(), header.size()) << line;
      const std::string bench = c[0].substr(0, c[0].find(' '));
      const std::string schedule = c[1];
      const bool bothSides = *t.with != '\0';
      const auto after = figures(mainKernel(bench, flagsOf(schedule, t.with)));
      const auto before = bothSides ? figures(mainKernel(bench, flagsOf(schedule, "")))
                                    : std::map<std::string, std::string>{};
      for (size_t col = 2; col < header.size(); ++col) {
        std::string name = header[col];
        if (name == "shared B per block") name = "shared B";
        if (!after.count(name)) continue;
        const auto [was, is] = sides(c[col]);
        EXPECT_EQ(is, after.at(name))
            << bench << " " << schedule << ": " << name << " (the table says '" << c[col]
            << "'); regenerate with scripts/" << t.regenerate;
        if (bothSides) {
          EXPECT_EQ(was, before.at(name))
              << bench << " " << schedule << " without " << t.with << ": " << name
              << " (the table says '" << c[col] << "'); regenerate with scripts/" << t.regenerate;
        }
      }
      ++rows;
    }
  }
  EXPECT_GE(rows, 125u);  // section 13's 105 and the stream/2 tables' rows
}
