// Every benchmark, end to end through the command line: it checks, `tessel info` reports the
// FLOPs per point its header states, and the C++ backend agrees with the reference interpreter
// at two sizes (one with a dimension smaller than 8 and not a power of two).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "support/command.h"

using namespace tessel::testing;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> benchmarks() {
  std::vector<std::string> v;
  for (auto& e : fs::directory_iterator(fs::path(sourceDir()) / "benchmarks"))
    if (e.path().extension() == ".sten") v.push_back(e.path().stem().string());
  std::sort(v.begin(), v.end());
  return v;
}

std::string path(const std::string& b) { return sourceDir() + "/benchmarks/" + b + ".sten"; }

std::string readFile(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Extent parameters by dimension count: the first size has a dimension < 8 and is no power of
// two; the second is a power of two in every dimension. hypterm reads i +- 4, so its unit-stride
// extent stays >= 9 and its small dimension is the slowest one.
std::vector<std::string> sizes(int dims, int which) {
  static const std::vector<std::vector<std::vector<int>>> table = {
      {{7}, {64}},
      {{6, 37}, {32, 64}},
      {{6, 11, 19}, {16, 16, 32}},
  };
  auto& s = table[dims - 1][which];
  std::vector<std::string> out;
  for (int v : s) out.push_back(std::to_string(v));
  return out;
}

class Benchmark : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Benchmark, Checks) {
  auto r = runCommand(tesselBinary() + " check " + path(GetParam()));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
}

TEST_P(Benchmark, InfoMatchesHeaderFlops) {
  std::string text = readFile(path(GetParam()));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(// FLOPs per point:\s*(.*))")))
      << "header has no FLOPs line";
  std::map<std::string, int> header;
  std::string list = m[1];
  std::regex pair(R"((\w+)\s*=\s*(\d+))");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), pair); it != std::sregex_iterator();
       ++it)
    header[(*it)[1]] = std::stoi((*it)[2]);
  ASSERT_FALSE(header.empty());

  auto r = runCommand(tesselBinary() + " info --json " + path(GetParam()));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["stencils"].size(), header.size()) << "header lists every stencil";
  for (auto& s : j["stencils"]) {
    std::string name = s["name"];
    ASSERT_TRUE(header.count(name)) << name << " missing from the header";
    ASSERT_TRUE(s.contains("flops_per_point")) << name << " is never called";
    EXPECT_EQ(s["flops_per_point"].get<int>(), header[name]) << name;
    EXPECT_GE(s["order"].get<int>(), 0);
  }
  // The text form shows the same figures and the regions.
  auto t = runCommand(tesselBinary() + " info " + path(GetParam()));
  ASSERT_EQ(t.exitCode, 0) << t.output;
  for (auto& [name, flops] : header)
    EXPECT_NE(t.output.find(std::to_string(flops) + " FLOPs per point"), std::string::npos)
        << t.output;
  EXPECT_NE(t.output.find("region "), std::string::npos);
}

TEST_P(Benchmark, CppBackendAgreesWithReferenceAtTwoSizes) {
  auto info = runCommand(tesselBinary() + " info --json " + path(GetParam()));
  ASSERT_EQ(info.exitCode, 0) << info.output;
  auto j = nlohmann::json::parse(info.output);
  int dims = static_cast<int>(j["iterators"].size());
  std::vector<std::string> extentParams;
  for (auto& p : j["parameters"])
    if (!p["from_iterate"].get<bool>() && static_cast<int>(extentParams.size()) < dims)
      extentParams.push_back(p["name"]);
  for (int which = 0; which < 2; ++which) {
    auto sz = sizes(dims, which);
    std::string cmd = tesselBinary() + " run " + path(GetParam()) +
                      " --backend cpp --verify --seed " + std::to_string(7 + which);
    for (int d = 0; d < dims; ++d) cmd += " --param " + extentParams[d] + "=" + sz[d];
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n" << r.output;
  }
}

INSTANTIATE_TEST_SUITE_P(All, Benchmark, ::testing::ValuesIn(benchmarks()), [](const auto& p) {
  std::string n = p.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
});

TEST(Benchmarks, SuiteIsComplete) {
  auto b = benchmarks();
  for (const char* want : {"j2d5pt", "j2d9pt", "j2d9pt-gol", "gaussian", "gradient", "j3d7pt",
                           "j3d13pt", "j3d17pt", "j3d27pt", "heat", "poisson", "helmholtz", "cheby",
                           "denoise", "jacobi1d-boundary", "cosmo-hdiff", "fdtd2d", "hypterm"})
    EXPECT_NE(std::find(b.begin(), b.end(), want), b.end()) << want;
  int iterating = 0;
  for (auto& x : b)
    iterating += std::regex_search(readFile(path(x)), std::regex(R"((^|\n)\s*iterate\b)"));
  EXPECT_GE(iterating, 4);
}
