// Every command refuses what `check` refuses: the programs of tests/diagnostics that `check`
// rejects are rejected by analyze, emit (CUDA and C++), split, deep-tune and run with the same
// first error, as user errors (exit status 1): never an internal error, never output written
// for an invalid program. Before 2026-11-29 a division by zero in a call's domain was an
// internal error under analyze, emit --target cuda, resources, deep-tune and tune, emit
// --target cpp and split wrote code for it, analyze predicted a call whose domain leaves its
// arrays, and the model's choice replaced an invalid `#pragma block` without a word.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/command.h"
#include "support/files.h"

namespace fs = std::filesystem;
using namespace tessel::testing;

namespace {

/// The first line of `text` that holds "error", or "".
std::string firstError(const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find("error") != std::string::npos) return line;
    start = end + 1;
  }
  return "";
}

/// `tessel ARGS` exits with status 1 and says `says`; its output, for further checks.
std::string expectRefused(const std::string& args, const std::string& says) {
  const CommandResult r = runCommand(tesselBinary() + " " + args);
  EXPECT_EQ(r.exitCode, 1) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
  return r.output;
}

}  // namespace

TEST(CliBadPrograms, EveryCommandRefusesWhatCheckRefusesWithItsError) {
  const fs::path out = freshTempDir("cli-bad-programs", "out");
  const std::vector<std::string> commands = {
      "analyze --no-ptxas",
      "emit --target cuda -o " + (out / "cuda").string(),
      "emit --target cpp -o " + (out / "cpp").string(),
      "split -o " + (out / "split").string(),
      "deep-tune",
      "run --backend reference",
  };
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(sourceDir()) / "tests" / "diagnostics"))
    if (e.path().extension() == ".sten") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  size_t refused = 0;
  for (const fs::path& f : files) {
    const CommandResult c = runCommand(tesselBinary() + " check " + f.string());
    if (c.exitCode != 1) continue;  // accepted (warnings only), or another test's case
    ++refused;
    const std::string expected = firstError(c.output);
    ASSERT_FALSE(expected.empty()) << f << "\n" << c.output;
    for (const std::string& command : commands) {
      const CommandResult r = runCommand(tesselBinary() + " " + command + " " + f.string());
      EXPECT_EQ(r.exitCode, 1) << f.filename() << ": tessel " << command << "\n" << r.output;
      EXPECT_EQ(firstError(r.output), expected) << f.filename() << ": tessel " << command << "\n"
                                                << r.output;
    }
  }
  // tests/diagnostics holds about 150 programs check refuses: not a vacuous pass.
  EXPECT_GE(refused, 100u);
  EXPECT_FALSE(fs::exists(out / "cuda")) << "emit wrote code for an invalid program";
  EXPECT_FALSE(fs::exists(out / "cpp")) << "emit wrote code for an invalid program";
  EXPECT_FALSE(fs::exists(out / "split")) << "split wrote a program for an invalid one";
}

TEST(CliBadPrograms, ParameterValuesThatBreakARegionAreTheProgramsError) {
  // A domain that divides by a parameter: fine at its default, an error at --param K=0 under
  // every command that takes parameters, located at the call.
  const fs::path dir = freshTempDir("cli-bad-programs", "param");
  const std::string file = (dir / "k.sten").string();
  std::ofstream(file) << "parameter N=16, K=1;\n"
                         "iterator i;\n"
                         "double a[N], b[N];\n"
                         "stencil s (x, y) { x[i] = y[i]; }\n"
                         "[0:N/K-1] : s (b, a);\n";
  const CommandResult ok = runCommand(tesselBinary() + " analyze --no-ptxas " + file);
  EXPECT_EQ(ok.exitCode, 0) << ok.output;
  for (const char* command : {"analyze --no-ptxas", "deep-tune", "run --backend reference",
                              "run --backend opencl", "tune --show"}) {
    const std::string out = expectRefused(
        std::string(command) + " " + file + " --param K=0",
        "k.sten:5:1: error: the region of this call cannot be computed with these parameter "
        "values: division by zero");
    EXPECT_EQ(out.find("internal error"), std::string::npos) << command << "\n" << out;
  }
}

TEST(CliBadPrograms, AnInvalidPragmaBlockIsNotReplacedByTheModelsChoice) {
  // `check` refuses a `#pragma block` of 2048 threads; a GPU command that names no family (the
  // model would choose one, with its own block) refuses it too. A block given on the command
  // line replaces the pragma's, as under `check`.
  const fs::path dir = freshTempDir("cli-bad-programs", "pragma");
  const std::string file = (dir / "p.sten").string();
  std::ofstream(file) << "parameter M=64, N=64;\n"
                         "iterator j, i;\n"
                         "double a[M,N], b[M,N];\n"
                         "#pragma block (64, 32)\n"
                         "stencil s (x, y) { x[j][i] = y[j][i-1] + y[j][i+1]; }\n"
                         "s (b, a);\n";
  for (const std::string& command :
       std::vector<std::string>{"check", "emit --target cuda -o " + (dir / "o").string()}) {
    expectRefused(command + " " + file, "'block (64, 32)' has 2048 threads");
  }
  const CommandResult given = runCommand(tesselBinary() + " check " + file + " --block 32,8");
  EXPECT_EQ(given.exitCode, 0) << given.output;
}

TEST(CliBadPrograms, BadOptionValuesAreUserErrorsThatSayWhy) {
  // Found by a review of the command line (2026-11-29): each was accepted, wrapped around, or
  // ended in a raw library message.
  const fs::path dir = freshTempDir("cli-bad-programs", "options");
  const std::string file = (dir / "afile").string();
  std::ofstream(file) << "not a directory\n";
  const std::string heat = sourceDir() + "/benchmarks/heat.sten";
  const std::string small = " --param L=9 --param M=7 --param N=11";
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases = {
      {"run " + heat + small + " --verify --tolerance -1", "'-1' must not be negative"},
      {"run " + heat + small + " --verify --tolerance nan", "'nan' is not a finite number"},
      {"run " + heat + small + " --seed -1", "'-1' is not a whole number"},
      {"run " + heat + small + " --seed 99999999999999999999999", "is larger than"},
      {"check " + heat + " --max-registers 0", "--max-registers '0': not a register cap"},
      {"check " + heat + " --max-registers 4294967296",
       "--max-registers '4294967296': not a register cap"},
      {"check " + heat + " --block ''", "--block was given an empty value"},
      {"emit " + heat + " -o ''", "--output was given an empty value"},
      {"run " + heat + small + " --output " + file, "is a file, not a directory"},
      {"run " + heat + small + " --work-dir " + file, "is a file, not a directory"},
      {"emit " + heat + " -o " + file, "is a file, not a directory"},
      {"check " + dir.string(), "is a directory, not a program file"},
      {"check " + heat + " --machine " + dir.string(), "is a directory"},
      {"chek " + heat, "'chek' is not a tessel command"},
      {"info " + heat + " --fusion-plan --fusion-tile 2147483646,2147483646", "not in range"},
  };
  for (const Case& c : cases) {
    const std::string out = expectRefused(c.args, c.says);
    EXPECT_EQ(out.find("internal error"), std::string::npos) << c.args << "\n" << out;
  }
  // The unknown command's hint names the closest.
  EXPECT_NE(runCommand(tesselBinary() + " chek " + heat).output.find("did you mean 'check'?"),
            std::string::npos);
}

TEST(CliBadPrograms, ArraysBeyondTheMachinesMemoryAreRefusedBeforeTheRun) {
  // Before, std::bad_alloc ended the run as an internal error; now the arrays are sized first
  // and the largest named.
  const fs::path dir = freshTempDir("cli-bad-programs", "memory");
  const std::string global = (dir / "global.sten").string(), local = (dir / "local.sten").string();
  std::ofstream(global) << "parameter N=8; iterator i; double a[N], b[N], c[999999999999999];\n"
                           "stencil s (x, y) { x[i] = y[i]; }\ns (b, a);\n";
  std::ofstream(local)
      << "parameter N=8; iterator i; double a[N], b[N];\n"
         "stencil s (x, y) { double t[9999999999999]; t[i] = y[i]; x[i] = t[i]; }\n"
         "s (b, a);\n";
  for (const std::string& f : {global, local})
    for (const char* backend : {"cpp", "reference"}) {
      const CommandResult r = runCommand(tesselBinary() + " run " + f + " --backend " + backend);
      EXPECT_EQ(r.exitCode, 1) << f << " " << backend << "\n" << r.output;
      EXPECT_NE(r.output.find("more than this machine's"), std::string::npos)
          << f << " " << backend << "\n"
          << r.output;
      EXPECT_NE(r.output.find(f == global ? "(largest: 'c' 1e+15 elements)"
                                          : "(largest: 's's t' 1e+13 elements)"),
                std::string::npos)
          << r.output;
    }
}
