// `tessel info --dag` and `--dot FILE` (issue 13; analysis/dag.h): the stencil DAG as text, as
// JSON and as a Graphviz file, on every benchmark; Graphviz's `dot` (scripts/deps.sh installs
// it) must accept every file; an unwritable file is a clear error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/command.h"
#include "support/files.h"
#include "unit/gpu_test_util.h"

using namespace tessel::testing;
using namespace tessel::gputest;

TEST(CliDag, CosmoHorizontalDiffusionAsText) {
  auto r = runCommand(tesselBinary() + " info --dag " + benchmarkPath("cosmo-hdiff").string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  for (const char* line :
       {"stencil DAG: 4 nodes (statements, program order), 4 dependences (offsets per iterator "
        "(k,j,i))",
        "  n0  #0 hdiff s0 (lap)", "  n0 -> n1  flow   lap  (0,0,0) (0,0,1)",
        "  n2 -> n3  flow   flj  (0,-1,0) (0,0,0)"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  // Without --dag, no DAG.
  auto plain = runCommand(tesselBinary() + " info " + benchmarkPath("cosmo-hdiff").string());
  EXPECT_EQ(plain.output.find("stencil DAG"), std::string::npos);
}

TEST(CliDag, EveryBenchmarkAsJsonAndDot) {
  const bool haveDot = runCommand("dot -V").exitCode == 0;
  const fs::path dir = freshTempDir("dag", "every");
  for (const std::string& b : benchmarkNames()) {
    SCOPED_TRACE(b);
    const fs::path dot = dir / (b + ".dot");
    auto r = runCommand(tesselBinary() + " info --json --dag --dot " + dot.string() + " " +
                        benchmarkPath(b).string());
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const nlohmann::json j = nlohmann::json::parse(r.output);
    // A node per statement of every call, in program order; edges forward unless carried.
    size_t statements = 0;
    for (const auto& c : j["calls"]) statements += c["statements"].size();
    ASSERT_EQ(j["dag"]["nodes"].size(), statements);
    for (const auto& e : j["dag"]["edges"]) {
      EXPECT_EQ(e["from"].get<int>() < e["to"].get<int>(), !e["carried"].get<bool>()) << e;
      EXPECT_FALSE(e["offsets"].empty()) << e;
      for (const auto& o : e["offsets"]) EXPECT_EQ(o.size(), j["iterators"].size()) << e;
    }
    std::ifstream in(dot);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("digraph stencil_dag {"), std::string::npos) << text.str();
    if (haveDot) {
      auto svg = runCommand("dot -Tsvg " + dot.string() + " -o " + (dir / (b + ".svg")).string());
      EXPECT_EQ(svg.exitCode, 0) << svg.output << "\n" << text.str();
    }
  }
  if (!haveDot) GTEST_SKIP() << "the dot files were not drawn: Graphviz's dot is not installed";
}

TEST(CliDag, AnUnwritableDotFileIsAClearError) {
  auto r = runCommand(tesselBinary() + " info --dot /nonexistent/dir/dag.dot " +
                      benchmarkPath("j3d7pt").string());
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("tessel: error: cannot write the stencil DAG to "
                          "'/nonexistent/dir/dag.dot'"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("hint: "), std::string::npos) << r.output;
}
