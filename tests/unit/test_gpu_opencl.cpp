// The OpenCL runtime on the default device (PoCL here: OpenCL on the CPU): generated kernels and
// host code run and agree with the reference interpreter, for every feature of the language;
// run-time errors, copy semantics, caching, device selection and timing.
#include <gtest/gtest.h>

#include "driver/gpu_backend_adapter.h"
#include "unit/gpu_test_programs.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

Config family(ScheduleFamily f, std::array<int, 3> block = {0, 0, 0}) {
  Config c;
  c.family = f;
  c.block = block;
  return c;
}

Config staged(ScheduleFamily f, std::array<int, 3> block, int chunk,
              std::array<int, 3> unroll = {1, 1, 1}, bool cyclic = false) {
  Config c = family(f, block);
  c.chunk = chunk;
  c.unroll = unroll;
  c.cyclic = cyclic;
  return c;
}

/// Every family, with the default block and odd ones; the staged families with odd blocks and
/// several points per thread along grid x, y, z (shared, blocked and cyclic) or chunks of 3 and
/// all planes (stream).
/// (Their defaults run on every benchmark: tests/e2e/test_gpu_staged_benchmarks.cpp.)
std::vector<Config> configs() {
  return {family(ScheduleFamily::Global),
          family(ScheduleFamily::GlobalStream),
          family(ScheduleFamily::Global, {5, 3, 2}),
          staged(ScheduleFamily::Shared, {5, 3, 2}, 16, {2, 3, 2}),
          staged(ScheduleFamily::Shared, {7, 2, 1}, 16, {1, 2, 3}, true),
          staged(ScheduleFamily::Stream, {7, 3, 1}, 3),
          staged(ScheduleFamily::Stream, {5, 2, 1}, 0)};
}

std::string describe(const Config& c) {
  return fmt::format("{} block {} chunk {} unroll {}{}", familyName(c.family),
                     fmt::join(c.block, "x"), c.chunk, fmt::join(c.unroll, "x"),
                     c.cyclic ? " cyclic" : "");
}

/// Expects the interpreter and the OpenCL module both to report a run-time error `what`.
void expectBothReport(const Program& prog, const ProgramState& st, const GpuModule& m,
                      const std::string& what) {
  ProgramState ref = st, got = st;
  try {
    interpret(prog, ref);
    ADD_FAILURE() << "the interpreter reports no error; expected " << what;
  } catch (const RuntimeError& e) {
    EXPECT_TRUE(contains(e.what(), what)) << e.what();
  }
  try {
    m.run(got);
    ADD_FAILURE() << "OpenCL reports no error; expected " << what << "\n" << m.sourcePath();
  } catch (const RuntimeError& e) {
    EXPECT_TRUE(contains(e.what(), what)) << e.what();
    EXPECT_TRUE(contains(e.what(), "generated OpenCL code of test.tsl")) << e.what();
  }
}

}  // namespace

TEST(OpenclModule, BlurMatchesHandComputedValuesAndLeavesTheRestAlone) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(R"(
parameter N=10;
iterator i;
double a[N], b[N], c[N];
copyin a, b, c;
copyout b;
stencil blur (b, a) { b[i] = a[i-1] + a[i+1]; c[i] = 1.0; }
blur (b, a);
)");
  ASSERT_TRUE(p.prog);
  OpenclModule m(*p.prog, resolved(*p.prog), testOptions());
  EXPECT_FALSE(m.deviceName().empty());
  ProgramState st = makeState(*p.prog, {10}, 1);
  for (int k = 0; k < 10; ++k) st.arrays[0].values[k] = k * k;
  st.arrays[1].values.assign(10, -1.0);
  st.arrays[2].values.assign(10, 5.0);
  double secs = m.run(st);
  EXPECT_GT(secs, 0.0) << "kernel time from profiling events";
  EXPECT_LT(secs, 10.0);
  EXPECT_EQ(st.arrays[1].values[0], -1.0);  // outside the region: copied in, untouched
  EXPECT_EQ(st.arrays[1].values[9], -1.0);
  for (int k = 1; k <= 8; ++k)
    EXPECT_EQ(st.arrays[1].values[k], (k - 1) * (k - 1) + (k + 1) * (k + 1)) << k;
  EXPECT_EQ(st.arrays[2].values, std::vector<double>(10, 5.0)) << "c is not in copyout";
}

TEST(OpenclModule, TypesAndFunctionsMatchInterpreter) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kTypes);
  ASSERT_TRUE(p.prog);
  // e is double but sums float function values (exp, sin, tanh of a float): OpenCL's float
  // built-ins are accurate to a few ulp, not correctly rounded, so e agrees to float precision.
  std::map<std::string, double> tol = {{"e", 1e-6}};
  for (auto& c : configs()) {
    OpenclModule m(*p.prog, resolved(*p.prog, c), testOptions());
    expectAgrees(*p.prog, m, {13, 37}, 7, describe(c), tol);
    expectAgrees(*p.prog, m, {5, 4}, 99, describe(c), tol);
  }
}

TEST(OpenclModule, ConversionsMatchInterpreter) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kConversions);
  ASSERT_TRUE(p.prog);
  for (auto& c : configs()) {
    OpenclModule m(*p.prog, resolved(*p.prog, c), testOptions());
    expectAgrees(*p.prog, m, {11}, 7, describe(c));
    expectAgrees(*p.prog, m, {3}, 99, describe(c));
  }
}

TEST(OpenclModule, LocalsScratchPlanesAndNestedIterate) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kLocals);
  ASSERT_TRUE(p.prog);
  for (auto& c : configs()) {
    OpenclModule m(*p.prog, resolved(*p.prog, c), testOptions());
    std::string fam = describe(c);
    expectAgrees(*p.prog, m, {5, 40, 3}, 7, fam);
    expectAgrees(*p.prog, m, {4, 3, 2}, 8, fam);   // the plane condition fails
    expectAgrees(*p.prog, m, {5, 17, 0}, 9, fam);  // zero time steps
  }
}

TEST(OpenclModule, StatementDomainsChainsAndSeveralWriters) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(R"(
parameter L=7, M=9, N=12;
iterator k, j, i;
double x[L,M,N], y[L,M,N], z[L,M,N], f[L,M,N];
copyin x, f;
copyout y, z, f;
stencil chain (z, y, x) {
  double s[L,M,N];
  s[k][j][i] = x[k][j][i-1] + x[k][j+1][i] + x[k-1][j][i];
  [1:L-1, 0:M-3, 2:N-1] : y[k][j][i] = s[k][j][i+1] * 0.5;
  y[k][j][i] = 2 * s[k][j-1][i];
  z[k][j][i] = y[k][j][i+1] + s[k][j][i];
}
stencil flux (f, x) {
  f[k][j][i+1] = 10 * x[k][j][i];
  f[k][j][i] += x[k][j][i];
}
[0:L-1, 1:M-1, 0:N-2] : chain (z, y, x);
flux (f, x);
)");
  ASSERT_TRUE(p.prog);
  for (auto& c : configs()) {
    OpenclModule m(*p.prog, resolved(*p.prog, c), testOptions());
    expectAgrees(*p.prog, m, {7, 9, 12}, 3, describe(c));
    expectAgrees(*p.prog, m, {2, 3, 40}, 4, describe(c));
  }
}

TEST(OpenclModule, IntegerRunTimeErrorsAreReportedLikeTheInterpreter) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kIntErrors);
  ASSERT_TRUE(p.prog);
  const Program& prog = *p.prog;
  OpenclModule m(prog, resolved(prog), testOptions());
  ProgramState st = makeState(prog, {12}, 5);
  int d = prog.findScalar("d"), e = prog.findScalar("e"), a = prog.findArray("a");
  for (int k = 0; k < 12; ++k) st.arrays[a].values[k] = k % 2 ? -(k + 1) * 7 : (k + 1) * 13;
  st.scalars[e] = 2;
  st.scalars[d] = 0;
  expectBothReport(prog, st, m, "integer division by zero");
  // The status starts afresh on every run.
  for (double v : {3.0, -3.0, -1.0, 1.0}) {
    st.scalars[d] = v;
    ProgramState ref = st, got = st;
    interpret(prog, ref);
    m.run(got);
    for (int x : resultArrays(prog)) EXPECT_EQ(got.arrays[x].values, ref.arrays[x].values) << v;
  }
  st.scalars[e] = -1;
  expectBothReport(prog, st, m, "negative exponent");
  st.scalars[e] = 2;
  st.arrays[a].values[7] = 0;
  expectBothReport(prog, st, m, "integer remainder by zero");
}

TEST(OpenclModule, InitialisedLocalErrorsOnTheHostAreReported) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kHostError);
  ASSERT_TRUE(p.prog);
  OpenclModule m(*p.prog, resolved(*p.prog), testOptions());
  ProgramState st = makeState(*p.prog, {6}, 1);
  st.scalars[0] = 0;
  expectBothReport(*p.prog, st, m, "integer division by zero");
  st.scalars[0] = 2;
  expectAgrees(*p.prog, m, {6}, 1);
}

TEST(OpenclModule, AProgramWithoutKernelsRuns) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kNoKernels);
  ASSERT_TRUE(p.prog);
  OpenclModule m(*p.prog, resolved(*p.prog), testOptions());
  EXPECT_TRUE(m.sources().kernels.empty());
  EXPECT_TRUE(contains(m.sources().hostSource, "// Never runs: its region is empty."));
  expectAgrees(*p.prog, m, {6});
}

TEST(OpenclModule, CachesLibrariesAndWritesTheProject) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kLocals);
  ASSERT_TRUE(p.prog);
  GpuBuildOptions o = testOptions();
  o.directory = freshDir("cache");
  OpenclModule first(*p.prog, resolved(*p.prog), o);
  EXPECT_FALSE(first.reused());
  for (const char* f : {"tessel_host.cpp", "tessel_kernels.cl", "CMakeLists.txt"})
    EXPECT_TRUE(fs::exists(o.directory / f)) << f;
  EXPECT_EQ(first.sourcePath(), o.directory / "tessel_host.cpp");
  OpenclModule second(*p.prog, resolved(*p.prog), o);
  EXPECT_TRUE(second.reused());
  EXPECT_EQ(first.libraryPath(), second.libraryPath());
  OpenclModule moved = std::move(second);
  expectAgrees(*p.prog, moved, {5, 9, 1});
  fs::remove_all(o.directory);
}

TEST(OpenclModule, DeviceSelectionAndStateChecks) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(
      "parameter N;\niterator i;\ndouble a[N], c[5];\nstencil s (a) { a[i] = c[i]; }"
      "\ns (a);\n");
  ASSERT_TRUE(p.prog);
  GpuBuildOptions o = testOptions();
  o.device = "0";
  OpenclModule byIndex(*p.prog, resolved(*p.prog), o);
  o.device = "no-such-device-anywhere";
  try {
    OpenclModule m(*p.prog, resolved(*p.prog), o);
    FAIL() << "expected no device";
  } catch (const EnvironmentError& e) {
    EXPECT_TRUE(contains(e.what(), "no OpenCL device matches 'no-such-device-anywhere'"))
        << e.what();
    EXPECT_TRUE(contains(e.what(), byIndex.deviceName())) << e.what();  // the list
  }
  ProgramState bad = makeState(*p.prog, {9}, 1);  // c[5..8] would be read
  EXPECT_THROW(byIndex.run(bad), RuntimeError);
  ProgramState ok = makeState(*p.prog, {5}, 1);
  byIndex.run(ok);
  EXPECT_EQ(ok.arrays[0].values, ok.arrays[1].values);
}

TEST(OpenclModule, HostCompileFailureNamesTheLog) {
  Parsed p = parse(
      "parameter N=4;\niterator i;\ndouble a[N];\nstencil s (a) { a[i] = 1.0; }\n"
      "s (a);\n");
  ASSERT_TRUE(p.prog);
  GpuBuildOptions o = testOptions();
  o.directory = freshDir("fail");
  o.hostCompiler = "false";  // "compiles" nothing and fails
  try {
    OpenclModule m(*p.prog, resolved(*p.prog), o);
    FAIL() << "expected a compile failure";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), (o.directory / "build.log").string())) << e.what();
  }
  fs::remove_all(o.directory);
}

TEST(OpenclModule, BehindTheBackendInterface) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kLocals);
  ASSERT_TRUE(p.prog);
  Config c;
  c.family = ScheduleFamily::GlobalStream;
  BackendOptions bo;
  bo.workDir = freshDir("backend").string();
  bo.schedule = resolved(*p.prog, c);
  auto b = makeGpuBackend(GpuApi::OpenCL, *p.prog, bo);
  EXPECT_EQ(b->name(), "opencl");
  EXPECT_TRUE(contains(b->description(), "generated OpenCL on ")) << b->description();
  EXPECT_TRUE(contains(b->generatedCode(), bo.workDir)) << b->generatedCode();
  ProgramState ref = makeState(*p.prog, {5, 12, 2}, 4), got = ref;
  interpret(*p.prog, ref);
  EXPECT_GT(b->run(got), 0.0);
  for (int a : resultArrays(*p.prog))
    EXPECT_TRUE(compareArrays(got.arrays[a], ref.arrays[a], 1e-5).ok) << p.prog->arrays[a].name;
  fs::remove_all(bo.workDir);
}
