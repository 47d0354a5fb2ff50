// `tessel run --verify`: a backend that disagrees with the reference interpreter is caught,
// reported with where and by how much, and gives exit status 2.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/float_math.h"
#include "driver/backend.h"
#include "driver/run.h"
#include "frontend/frontend.h"
#include "runtime/interpreter.h"

using namespace tessel;

namespace {

const char* kProgram =
    "parameter M=5, N=7;\n"
    "iterator j, i;\n"
    "double a[M,N], b[M,N];\n"
    "copyin a;\n"
    "stencil avg (y, x) { y[j][i] = 0.25 * (x[j-1][i] + x[j+1][i] + x[j][i-1] + x[j][i+1]); }\n"
    "avg (b, a);\n"
    "copyout b;\n";

/// Runs the reference semantics, then changes one element by a relative `error`.
class PerturbingBackend : public Backend {
 public:
  PerturbingBackend(const Program& p, double error) : prog_(p), error_(error) {}
  std::string name() const override { return "perturbing"; }
  std::string description() const override { return "test backend"; }
  double run(ProgramState& st) override {
    interpret(prog_, st);
    auto& b = st.arrays[prog_.findArray("b")].values;
    b[2 * 7 + 3] *= 1 + error_;  // element [2, 3], inside the region
    return 1e-3;
  }

 private:
  const Program& prog_;
  double error_;
};

struct Outcome {
  int code;
  std::string text;
};

Outcome runWith(double error, double tolerance = -1) {
  SourceFile f("avg.sten", kProgram);
  DiagnosticEngine d;
  auto prog = parseProgram(f, d);
  EXPECT_TRUE(prog.has_value());
  PerturbingBackend backend(*prog, error);
  RunOptions opts;
  opts.verify = true;
  opts.tolerance = tolerance;
  std::ostringstream out;
  int code = runProgram(*prog, opts, backend, d, out);
  return {code, out.str()};
}

}  // namespace

TEST(RunVerify, AgreementPasses) {
  Outcome o = runWith(0);
  EXPECT_EQ(o.code, kExitOk) << o.text;
  EXPECT_NE(o.text.find("verification PASSED"), std::string::npos) << o.text;
}

TEST(RunVerify, MismatchIsReportedWithLocationAndExitsTwo) {
  Outcome o = runWith(1e-6);
  EXPECT_EQ(o.code, kExitVerifyFailed) << o.text;
  EXPECT_NE(o.text.find("verification FAILED"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("'b' differs at [2, 3]"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("1 element over tolerance"), std::string::npos) << o.text;
}

TEST(RunVerify, ErrorWithinToleranceOfTheTypePasses) {
  EXPECT_EQ(runWith(1e-14).code, kExitOk);  // below 1e-12 for double
  EXPECT_EQ(runWith(1e-9).code, kExitVerifyFailed);
  EXPECT_EQ(runWith(1e-9, 1e-8).code, kExitOk);  // --tolerance widens it
}

namespace {

// `d` takes a float sine's value through a local and an earlier call; `e` only double math; `g`
// a float function that rounds exactly (floor); `h` is fed by `d` in a loop (language.md 7.3).
const char* kFloatMath =
    "parameter N=8, T=2;\n"
    "iterator i;\n"
    "float x[N];\n"
    "double a[N], d[N], e[N], g[N], h[N];\n"
    "copyin x, a;\n"
    "stencil s1 (d, x) { double t; t = sin(x[i]) * 2.0; d[i] = t + 1.0; }\n"
    "stencil s2 (e, g, a, x) { e[i] = sin(a[i]); g[i] = floor(x[i]) + fabs(x[i]); }\n"
    "stencil s3 (h, d) { h[i] = d[i] * 0.5; }\n"
    "iterate 1:T { s3 (h, d); s1 (d, x); }\n"
    "s2 (e, g, a, x);\n"
    "copyout d, e, g, h;\n";

/// The reference semantics under a backend's name, with every result array changed by a relative
/// 1e-7 (a float ulp or so).
class NamedBackend : public Backend {
 public:
  NamedBackend(const Program& p, std::string name) : prog_(p), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return "test backend"; }
  double run(ProgramState& st) override {
    interpret(prog_, st);
    for (const char* a : {"d", "e", "g", "h"})
      for (double& v : st.arrays[prog_.findArray(a)].values) v *= 1 + 1e-7;
    return 1e-3;
  }

 private:
  const Program& prog_;
  std::string name_;
};

}  // namespace

TEST(RunVerify, FloatMathArraysFollowTheValue) {
  SourceFile f("fm.sten", kFloatMath);
  DiagnosticEngine d;
  auto prog = parseProgram(f, d);
  ASSERT_TRUE(prog.has_value()) << d.diagnostics().size();
  const std::vector<bool> carries = floatMathArrays(*prog);
  auto carried = [&](const char* a) { return static_cast<bool>(carries[prog->findArray(a)]); };
  EXPECT_TRUE(carried("d"));   // through the local t
  EXPECT_TRUE(carried("h"));   // from d, written by a later call of the loop
  EXPECT_FALSE(carried("e"));  // double sine
  EXPECT_FALSE(carried("g"));  // exact float functions
  EXPECT_FALSE(carried("x"));
}

// On a GPU backend a double array that carries a float math function's value is compared to
// float precision, and the report names it; elsewhere (and for the other arrays) as before.
TEST(RunVerify, FloatMathOnAGpuIsComparedToFloatPrecision) {
  SourceFile f("fm.sten", kFloatMath);
  DiagnosticEngine d;
  auto prog = parseProgram(f, d);
  ASSERT_TRUE(prog.has_value());
  for (const std::string name : {"opencl", "cuda", "cpp"}) {
    NamedBackend backend(*prog, name);
    RunOptions opts;
    opts.verify = true;
    std::ostringstream out;
    const int code = runProgram(*prog, opts, backend, d, out);
    EXPECT_EQ(code, kExitVerifyFailed) << name << "\n" << out.str();  // e and g: 1e-12
    const std::string text = out.str();
    if (name == "cpp") {
      EXPECT_NE(text.find("'d' differs"), std::string::npos) << text;
      EXPECT_EQ(text.find("float math functions"), std::string::npos) << text;
    } else {
      EXPECT_EQ(text.find("'d' differs"), std::string::npos) << text;
      EXPECT_EQ(text.find("'h' differs"), std::string::npos) << text;
      EXPECT_NE(text.find("'e' differs"), std::string::npos) << text;
      EXPECT_NE(text.find("'g' differs"), std::string::npos) << text;
      EXPECT_NE(text.find("(d, h computed from float math functions, which the " +
                          std::string(name == "cuda" ? "CUDA" : "OpenCL") +
                          " built-ins do not round correctly: compared to float precision, "
                          "1e-05; --tolerance sets another)"),
                std::string::npos)
          << text;
    }
  }
}
