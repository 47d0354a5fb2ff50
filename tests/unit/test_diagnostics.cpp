// Diagnostics tests: every file in tests/diagnostics/ is a program with expectations written in
// comments:
//   // expect: error ID LINE:COL message substring
//   // expect: warning ID LINE:COL message substring
//   // expect-hint: substring          (the hint of the preceding expectation)
//   // params: NAME=V NAME=V           (bind these values and run the run-time checks)
//   // options: --FLAG VALUE ...       (schedule options, as on the command line)
// After the frontend and the bounds check, every stencil's Schedule is built from its hints and
// the options, and validated against the machine (--machine, default h100), as the command line
// does. An error without a location is expected at 0:0.
// The test checks each expectation against the diagnostics the compiler reports, that nothing
// else is reported as an error, and that together the files exercise every error identifier.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/bounds.h"
#include "driver/params.h"
#include "frontend/frontend.h"
#include "model/machine.h"
#include "schedule/schedule.h"

using namespace tessel;
namespace fs = std::filesystem;

namespace {

struct Expectation {
  std::string severity, id;
  int line = 0, col = 0;
  std::string message, hint;
};

struct Case {
  std::string path;
  std::string text;
  std::vector<Expectation> expects;
  std::map<std::string, int64_t> params;
  bool hasParams = false;
  std::vector<std::pair<std::string, std::string>> options;  // --flag value
};

Case loadCase(const fs::path& p) {
  Case c;
  c.path = p.string();
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  c.text = ss.str();
  std::regex ex(R"(//\s*expect:\s*(error|warning)\s+(\w+)\s+(\d+):(\d+)\s*(.*))");
  std::regex hint(R"(//\s*expect-hint:\s*(.*))");
  std::regex params(R"(//\s*params:(.*))");
  std::regex options(R"(//\s*options:(.*))");
  std::istringstream lines(c.text);
  std::string l;
  while (std::getline(lines, l)) {
    std::smatch m;
    if (std::regex_search(l, m, ex)) {
      c.expects.push_back({m[1], m[2], std::stoi(m[3]), std::stoi(m[4]), m[5], ""});
    } else if (std::regex_search(l, m, hint) && !c.expects.empty()) {
      c.expects.back().hint = m[1];
    } else if (std::regex_search(l, m, params)) {
      c.hasParams = true;
      std::istringstream ps(m[1]);
      std::string kv;
      while (ps >> kv) {
        auto eq = kv.find('=');
        c.params[kv.substr(0, eq)] = std::stoll(kv.substr(eq + 1));
      }
    } else if (std::regex_search(l, m, options)) {
      std::istringstream os(m[1]);
      std::string flag, value;
      while (os >> flag >> value) c.options.emplace_back(flag, value);
    }
  }
  for (auto& e : c.expects)
    while (!e.message.empty() && std::isspace(static_cast<unsigned char>(e.message.back())))
      e.message.pop_back();
  return c;
}

/// Runs the compiler's checks the way `tessel check` / `tessel run` would.
DiagnosticEngine compile(const Case& c, const SourceFile& file) {
  DiagnosticEngine d;
  auto prog = parseProgram(file, d);
  if (!prog) return d;
  // `// params:` binds like `tessel run --param`; otherwise like `tessel check`.
  std::optional<ParamValues> vals =
      c.hasParams ? bindParams(*prog, c.params, d) : paramsForCheck(*prog, {}, d).values;
  if (vals) checkBounds(*prog, *vals, d);
  if (d.hasErrors()) return d;
  ScheduleOptions so;
  bool ok = true;
  for (auto& [flag, value] : c.options) ok = setScheduleOption(so, flag, value, d) && ok;
  if (!ok) return d;
  if (auto machine = loadMachine(so.machine.value_or(kDefaultMachine), d))
    buildSchedules(*prog, so, *machine, d);
  return d;
}

std::vector<fs::path> caseFiles() {
  std::vector<fs::path> v;
  for (auto& e : fs::directory_iterator(fs::path(TESSEL_SOURCE_DIR) / "tests" / "diagnostics"))
    if (e.path().extension() == ".sten") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST(Diagnostics, EveryCaseReportsWhatItExpects) {
  auto files = caseFiles();
  ASSERT_GE(files.size(), 40u) << "the suite should hold at least 40 bad programs";
  for (auto& p : files) {
    SCOPED_TRACE(p.string());
    Case c = loadCase(p);
    ASSERT_FALSE(c.expects.empty()) << "no '// expect:' line";
    SourceFile file(p.filename().string(), c.text);
    DiagnosticEngine d;
    EXPECT_NO_THROW(d = compile(c, file)) << "the compiler threw on this input";
    std::string all;
    for (auto& diag : d.diagnostics()) all += DiagnosticEngine::render(diag);
    for (auto& e : c.expects) {
      bool found = false;
      for (auto& diag : d.diagnostics()) {
        const char* sev = diag.severity == Severity::Error ? "error" : "warning";
        if (e.severity == sev && e.id == diagIdName(diag.id) && e.line == diag.loc.line() &&
            e.col == diag.loc.col() && diag.message.find(e.message) != std::string::npos &&
            diag.hint.find(e.hint) != std::string::npos)
          found = true;
      }
      EXPECT_TRUE(found) << "expected " << e.severity << " " << e.id << " at " << e.line << ":"
                         << e.col << " containing '" << e.message << "'"
                         << (e.hint.empty() ? "" : " with hint '" + e.hint + "'") << "\nreported:\n"
                         << all;
    }
    // No error that the file does not expect.
    for (auto& diag : d.diagnostics()) {
      if (diag.severity != Severity::Error) continue;
      bool expected = false;
      for (auto& e : c.expects)
        expected = expected || (e.id == diagIdName(diag.id) && e.line == diag.loc.line());
      EXPECT_TRUE(expected) << "unexpected error:\n" << DiagnosticEngine::render(diag);
    }
  }
}

TEST(Diagnostics, RenderedWithLocationLineCaretAndHint) {
  SourceFile f("bad.sten",
               "parameter N=8;\niterator i;\ndouble a[N], b[N];\n"
               "stencil s (x, y) { x[i] = y[i] + ot[i]; }\ns (a, b);\n");
  DiagnosticEngine d;
  EXPECT_FALSE(parseProgram(f, d).has_value());
  ASSERT_EQ(d.errorCount(), 1);
  std::string r = DiagnosticEngine::render(d.diagnostics()[0]);
  EXPECT_NE(r.find("bad.sten:4:34: error: use of undeclared array 'ot'"), std::string::npos) << r;
  EXPECT_NE(r.find("  stencil s (x, y) { x[i] = y[i] + ot[i]; }\n"), std::string::npos) << r;
  EXPECT_NE(r.find("\n" + std::string(35, ' ') + "^\n"), std::string::npos) << r;
}

TEST(Diagnostics, EveryErrorIdentifierIsExercised) {
  std::set<std::string> covered;
  for (auto& p : caseFiles())
    for (auto& e : loadCase(p).expects) covered.insert(e.id);
  for (DiagId id : allDiagIds()) {
    if (diagIdSeverity(id) != Severity::Error) continue;
    EXPECT_TRUE(covered.count(diagIdName(id)))
        << "no diagnostics test exercises '" << diagIdName(id) << "'";
  }
}
