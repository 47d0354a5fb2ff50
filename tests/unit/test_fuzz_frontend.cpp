// In-process fuzzing of the frontend: every prefix of every benchmark and thousands of mutated
// programs are parsed and checked; nothing may throw, crash, or pass with errors reported.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "analysis/bounds.h"
#include "driver/params.h"
#include "frontend/frontend.h"

using namespace tessel;
namespace fs = std::filesystem;

namespace {

void compileNoThrow(const std::string& text) {
  SourceFile f("fuzz.sten", text);
  DiagnosticEngine d;
  std::optional<Program> p;
  ASSERT_NO_THROW(p = parseProgram(f, d));
  if (p) {
    EXPECT_FALSE(d.hasErrors());
    if (auto vals = defaultParams(*p)) {
      ASSERT_NO_THROW(checkBounds(*p, *vals, d));
    }
  } else {
    EXPECT_TRUE(d.hasErrors()) << "rejected without an error:\n" << text;
  }
}

std::vector<std::string> corpus() {
  std::vector<std::string> v;
  for (auto& e : fs::directory_iterator(fs::path(TESSEL_SOURCE_DIR) / "benchmarks")) {
    if (e.path().extension() != ".sten") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    v.push_back(ss.str());
  }
  return v;
}

}  // namespace

TEST(FuzzFrontend, EveryPrefixOfEveryBenchmark) {
  for (auto& text : corpus())
    for (size_t n = 0; n <= text.size(); n += 3) compileNoThrow(text.substr(0, n));
}

TEST(FuzzFrontend, MutatedPrograms) {
  std::mt19937 rng(2026);
  const std::string alphabet = "[](){};:,.+-*/%^<>=&|!#ijkNM01259 \n\tfe_xyz";
  auto programs = corpus();
  for (int it = 0; it < 4000; ++it) {
    std::string t = programs[rng() % programs.size()];
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits && !t.empty(); ++e) {
      size_t pos = rng() % t.size();
      switch (rng() % 3) {
        case 0:
          t[pos] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          t.erase(pos, 1 + rng() % 8);
          break;
        default:
          t.insert(pos, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    compileNoThrow(t);
  }
}

TEST(FuzzFrontend, RandomBytes) {
  std::mt19937 rng(7);
  for (int it = 0; it < 500; ++it) {
    std::string t(rng() % 400, '\0');
    for (auto& c : t) c = static_cast<char>(rng() & 0xff);
    compileNoThrow(t);
  }
}
