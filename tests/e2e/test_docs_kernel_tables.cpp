// docs/gpu.md's per-benchmark kernel tables (scripts/kernel_quality.py's output) against today's
// binary: for every row, the figures that need no ptxas (shared memory per block, barriers per
// plane or once, global elements per output point, shared loads per point) as `tessel info
// --json --no-ptxas` reports them for the row's main kernel (the script's choice: the first
// fused one, else the first). Section 13's "after" side (its "before" is commit ab00565); the
// tables of one option (section 11's register values, 14's retiming, 16's unrolling, 17's
// prefetching, 18's folding, 19's perspectives) on both sides, without and with the option, and
// a row they mark refused is checked to be refused. A row that drifts fails with the command
// that regenerates its table. The figures that need nvcc (ptxas's registers for sm_90 and the model's GStencil/s
// predicted with them, `tessel info --json` and `tessel analyze --json` as the script runs
// them) are checked by `Full/DocsPtxasFigures`, per benchmark: some 40 nvcc runs each, so it
// runs under scripts/test.sh --full, not in CI.
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
#include "support/nvcc.h"
#include "unit/gpu_test_util.h"

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
    {"kernel_quality.py --with=--retime --schedules stream,global-stream", "--retime",
     "kernel_quality.py --with=--retime --schedules stream,global-stream"},
    {"kernel_quality.py --with=\"--unroll i=2\" --schedules global,stream", "--unroll i=2",
     "kernel_quality.py --with=\"--unroll i=2\" --schedules global,stream"},
    {"kernel_quality.py --with=--prefetch --schedules stream \\", "--prefetch",
     "kernel_quality.py --with=--prefetch --schedules stream"},
    {"kernel_quality.py --with=--fold --schedules shared,stream", "--fold",
     "kernel_quality.py --with=--fold --schedules shared,stream"},
    {"`--perspective input`:", "--perspective input",
     "kernel_quality.py --with=\"--perspective input\" --schedules shared"},
    {"`--perspective mixed`:", "--perspective mixed",
     "kernel_quality.py --with=\"--perspective mixed\" --schedules shared"},
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

/// The row's main kernel under `flags`, as kernel_quality.py picks it (with ptxas's registers
/// when `ptxas`).
nlohmann::json mainKernel(const std::string& bench, const std::string& flags, bool ptxas = false) {
  auto r = runCommand(tesselBinary() + " info --json " + (ptxas ? "" : "--no-ptxas ") +
                      sourceDir() + "/benchmarks/" + bench + ".sten " + flags + " 2>/dev/null");
  EXPECT_EQ(r.exitCode, 0) << bench << " " << flags << "\n" << r.output;
  if (r.exitCode != 0) return {};
  const nlohmann::json j = nlohmann::json::parse(r.output);
  for (const auto& k : j["kernels"])
    if (k["family"] == "overlapped" || k["family"] == "stream + time_tile") return k;
  return j["kernels"].empty() ? nlohmann::json() : j["kernels"][0];
}

/// The program's GStencil/s that `tessel analyze --json` predicts on the H100 with ptxas's
/// figures, as kernel_quality.py prints it.
std::string predicted(const std::string& bench, const std::string& flags) {
  auto r = runCommand(tesselBinary() + " analyze --json --machine h100 " + sourceDir() +
                      "/benchmarks/" + bench + ".sten " + flags + " 2>/dev/null");
  EXPECT_EQ(r.exitCode, 0) << bench << " " << flags << "\n" << r.output;
  if (r.exitCode != 0) return "?";
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  return fmt::format("{:.1f}", j["gstencils_per_s"].get<double>());
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

/// A row of one of kTables: its table, benchmark, schedule, column names and cells.
struct Row {
  const DocTable* table;
  std::string bench, schedule;
  std::vector<std::string> header, cells;
  bool refused = false;  // "refused (why)": the option does not apply to the row's schedule
};

/// Every row of every table of kTables in docs/gpu.md (a missing table fails the test).
std::vector<Row> docRows() {
  const std::string doc = readText(std::filesystem::path(sourceDir()) / "docs/gpu.md");
  std::vector<Row> rows;
  for (const DocTable& t : kTables) {
    const size_t anchor = doc.find(t.anchor);
    EXPECT_NE(anchor, std::string::npos) << t.anchor;
    if (anchor == std::string::npos) continue;
    const size_t head = doc.find("\n| benchmark |", anchor);
    EXPECT_NE(head, std::string::npos) << t.anchor;
    if (head == std::string::npos) continue;
    std::stringstream lines(doc.substr(head + 1));
    std::string line;
    std::getline(lines, line);
    const std::vector<std::string> header = cells(line);
    std::getline(lines, line);  // | --- | ...
    while (std::getline(lines, line) && line.rfind("| ", 0) == 0) {
      Row r{&t, "", "", header, cells(line)};
      if (r.cells.size() >= 3) {
        r.bench = r.cells[0].substr(0, r.cells[0].find(' '));
        r.schedule = r.cells[1];
        r.refused = r.cells[2].rfind("refused", 0) == 0;
      }
      EXPECT_TRUE(r.refused || r.cells.size() == header.size()) << line;
      if (r.refused || r.cells.size() == header.size()) rows.push_back(std::move(r));
    }
  }
  return rows;
}

/// The column of `row` named `name` (-1 where the table has none).
int column(const Row& row, const std::string& name) {
  for (size_t c = 2; c < row.header.size(); ++c)
    if (row.header[c].rfind(name, 0) == 0) return static_cast<int>(c);
  return -1;
}

class DocsPtxasFigures : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST(DocsKernelTables, GpuMdQuotesTodaysKernels) {
  size_t count = 0;
  for (const Row& row : docRows()) {
    const DocTable& t = *row.table;
    if (row.refused) {  // the table says the option is refused there: it is (exit status 1)
      auto r = runCommand(tesselBinary() + " info --json --no-ptxas " + sourceDir() +
                          "/benchmarks/" + row.bench + ".sten " + flagsOf(row.schedule, t.with));
      EXPECT_EQ(r.exitCode, 1) << row.bench << " " << row.schedule << " " << t.with
                               << ": the table says '" << row.cells[2] << "'\n"
                               << r.output;
      ++count;
      continue;
    }
    const bool bothSides = *t.with != '\0';
    const auto after = figures(mainKernel(row.bench, flagsOf(row.schedule, t.with)));
    const auto before = bothSides ? figures(mainKernel(row.bench, flagsOf(row.schedule, "")))
                                  : std::map<std::string, std::string>{};
    for (size_t col = 2; col < row.header.size(); ++col) {
      std::string name = row.header[col];
      if (name == "shared B per block") name = "shared B";
      if (!after.count(name)) continue;
      const auto [was, is] = sides(row.cells[col]);
      EXPECT_EQ(is, after.at(name))
          << row.bench << " " << row.schedule << ": " << name << " (the table says '"
          << row.cells[col] << "'); regenerate with scripts/" << t.regenerate;
      if (bothSides) {
        EXPECT_EQ(was, before.at(name)) << row.bench << " " << row.schedule << " without " << t.with
                                        << ": " << name << " (the table says '" << row.cells[col]
                                        << "'); regenerate with scripts/" << t.regenerate;
      }
    }
    ++count;
  }
  EXPECT_GE(count, 300u);  // section 13's 105 and the option tables' rows
}

// The figures of the benchmark's rows that need nvcc: ptxas's registers of the main kernel and
// the predicted GStencil/s, both sides where the table's "before" is today's binary without the
// option, the "after" side of section 13 (whose "before" is commit ab00565's binary and model).
TEST_P(DocsPtxasFigures, GpuMdQuotesTodaysRegistersAndPredictions) {
  TESSEL_REQUIRE_NVCC();
  size_t count = 0;
  for (const Row& row : docRows()) {
    if (row.bench != GetParam() || row.refused) continue;
    const DocTable& t = *row.table;
    SCOPED_TRACE(row.schedule + " " + t.with);
    const bool bothSides = *t.with != '\0';
    const std::string withFlags = flagsOf(row.schedule, t.with);
    const std::string withoutFlags = flagsOf(row.schedule, "");
    const auto why = [&](int col) {
      return fmt::format(
          "{} {}: {} (the table says '{}'); refresh with python3 scripts/refresh_kernel_tables.py",
          row.bench, row.schedule, row.header[col], row.cells[col]);
    };
    if (const int col = column(row, "registers"); col >= 0) {
      const auto [was, is] = sides(row.cells[col]);
      EXPECT_EQ(is, std::to_string(mainKernel(row.bench, withFlags, true).value("registers", 0)))
          << why(col);
      if (bothSides) {
        EXPECT_EQ(was,
                  std::to_string(mainKernel(row.bench, withoutFlags, true).value("registers", 0)))
            << "without " << t.with << ": " << why(col);
      }
    }
    if (const int col = column(row, "predicted GStencil/s"); col >= 0) {
      std::string cell = row.cells[col];
      if (const size_t ratio = cell.find(" ("); ratio != std::string::npos) cell.erase(ratio);
      const auto [was, is] = sides(cell);
      EXPECT_EQ(is, predicted(row.bench, withFlags)) << why(col);
      if (bothSides) {
        EXPECT_EQ(was, predicted(row.bench, withoutFlags))
            << "without " << t.with << ": " << why(col);
      }
    }
    ++count;
  }
  EXPECT_GE(count, 5u) << "section 13 has a row per schedule of every benchmark";
}

INSTANTIATE_TEST_SUITE_P(Full, DocsPtxasFigures,
                         ::testing::ValuesIn(tessel::gputest::benchmarkNames()),
                         tessel::gputest::benchmarkTestName);
