// Small helpers for tests that compile a stencil program from a string, bind its parameters,
// set its data by hand, run the reference interpreter and compare arrays element by element.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/bounds.h"
#include "analysis/regions.h"
#include "driver/params.h"
#include "frontend/frontend.h"
#include "runtime/data.h"
#include "runtime/interpreter.h"

namespace tessel::test {

/// The result of the frontend on one source text. The SourceFile lives on the heap so that the
/// Program and the diagnostics may point at it after a move.
struct Compiled {
  std::unique_ptr<SourceFile> file;
  DiagnosticEngine diags;
  std::optional<Program> prog;

  std::string diagText() const {
    std::string s;
    for (auto& d : diags.diagnostics()) s += DiagnosticEngine::render(d);
    return s;
  }
  /// Number of diagnostics with this identifier (diag_ids.def name).
  int count(const std::string& id) const {
    int n = 0;
    for (auto& d : diags.diagnostics())
      if (id == diagIdName(d.id)) ++n;
    return n;
  }
  bool has(const std::string& id) const { return count(id) > 0; }
  /// The first diagnostic with this identifier (message + hint), for substring checks.
  std::string textOf(const std::string& id) const {
    for (auto& d : diags.diagnostics())
      if (id == diagIdName(d.id)) return d.message + "\n" + d.hint;
    return {};
  }
};

inline Compiled compileText(const std::string& text, const std::string& name = "test.sten") {
  Compiled c;
  c.file = std::make_unique<SourceFile>(name, text);
  c.prog = parseProgram(*c.file, c.diags);
  return c;
}

/// The text of benchmarks/NAME.sten of the source tree.
inline std::string benchmarkText(const std::string& name) {
  std::ifstream in(std::string(TESSEL_SOURCE_DIR) + "/benchmarks/" + name + ".sten");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// benchmarks/NAME.sten compiled; a test failure if it does not compile.
inline Compiled compileBenchmark(const std::string& name) {
  Compiled c = compileText(benchmarkText(name), name + ".sten");
  EXPECT_TRUE(c.prog.has_value()) << c.diagText();
  return c;
}

/// A compiled program with parameter values and a state, ready to run.
struct Session {
  Compiled c;
  ParamValues params;
  ProgramState state;

  const Program& prog() const { return *c.prog; }

  int arrayIndex(const std::string& name) const {
    int a = prog().findArray(name);
    if (a < 0) throw std::runtime_error("test: no array '" + name + "'");
    return a;
  }
  std::vector<double>& values(const std::string& name) {
    return state.arrays[arrayIndex(name)].values;
  }
  void set(const std::string& name, const std::vector<double>& v) {
    auto& dst = values(name);
    if (dst.size() != v.size())
      throw std::runtime_error("test: array '" + name + "' holds " + std::to_string(dst.size()) +
                               " values, the test gives " + std::to_string(v.size()));
    dst = v;
  }
  void setScalar(const std::string& name, double v) {
    int s = prog().findScalar(name);
    if (s < 0) throw std::runtime_error("test: no scalar '" + name + "'");
    state.scalars[s] = v;
  }
  void run() { interpret(*c.prog, state); }

  CallRegions regions(int call) const { return analyzeRegions(prog(), prog().calls.at(call)); }
  Box iter(int call, int stmt) const { return evalIter(regions(call).stmts.at(stmt), params); }
  Box written(int call, int stmt) const {
    CallRegions all = regions(call);
    const StmtRegion& r = all.stmts.at(stmt);
    return evalBox(r.written, r.conditions, params);
  }
};

/// Compiles (must succeed without errors), binds `given` parameters (must succeed), makes a
/// state with seed 1. Throws after recording a failure, which aborts the calling test.
inline Session load(const std::string& text, const std::map<std::string, int64_t>& given = {}) {
  Session r;
  r.c = compileText(text);
  if (!r.c.prog || r.c.diags.hasErrors()) {
    ADD_FAILURE() << "program does not compile:\n" << r.c.diagText() << "\nprogram:\n" << text;
    throw std::runtime_error("compilation failed");
  }
  DiagnosticEngine d;
  auto p = bindParams(*r.c.prog, given, d);
  if (!p) {
    std::string all;
    for (auto& x : d.diagnostics()) all += DiagnosticEngine::render(x);
    ADD_FAILURE() << "parameters do not bind:\n" << all;
    throw std::runtime_error("bindParams failed");
  }
  r.params = *p;
  r.state = makeState(*r.c.prog, r.params, 1);
  return r;
}

/// Compares every element; reports each differing element with its flat index.
inline void expectValues(const std::vector<double>& got, const std::vector<double>& want,
                         const std::string& what, double relTol = 1e-12) {
  ASSERT_EQ(got.size(), want.size()) << what << ": wrong number of elements";
  std::ostringstream bad;
  int n = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    double g = got[k], w = want[k];
    bool ok = (std::isnan(g) && std::isnan(w)) ||
              std::fabs(g - w) <= relTol * std::max(1.0, std::fabs(w));
    if (!ok) {
      bad << "  [" << k << "] got " << g << ", expected " << w << "\n";
      ++n;
    }
  }
  EXPECT_EQ(n, 0) << what << ": " << n << " element(s) differ:\n" << bad.str();
}

inline void expectArray(Session& r, const std::string& name, const std::vector<double>& want,
                        double relTol = 1e-12) {
  expectValues(r.values(name), want, "array '" + name + "'", relTol);
}

inline void expectBox(const Box& b, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi,
                      const std::string& what) {
  EXPECT_FALSE(b.empty) << what << ": region is empty";
  EXPECT_EQ(b.lo, lo) << what << ": lower bounds";
  EXPECT_EQ(b.hi, hi) << what << ": upper bounds";
}

/// v[i] = f(i) for i in 0..n-1.
template <typename F>
std::vector<double> gen(int64_t n, F f) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = f(i);
  return v;
}

}  // namespace tessel::test
