// `tessel run --verify`: a backend that disagrees with the reference interpreter is caught,
// reported with where and by how much, and gives exit status 2.
#include <gtest/gtest.h>

#include <sstream>

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
