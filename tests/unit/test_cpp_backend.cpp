// The C++/OpenMP backend: loop IR, emitter, lowering, build and run. Results are compared with
// hand-computed values and, bit for bit, with the reference interpreter.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/cpp_backend.h"
#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "exec/cpp_module.h"
#include "frontend/frontend.h"
#include "ir/loop_ir.h"
#include "lower/lower_cpp.h"
#include "runtime/data.h"
#include "runtime/errors.h"
#include "runtime/interpreter.h"
#include "unit/gpu_test_programs.h"

namespace fs = std::filesystem;
using namespace tessel;

namespace {

// Shared across runs of this test binary, so repeated runs reuse the compiled libraries.
CppBuildOptions testOptions() {
  CppBuildOptions o = CppBuildOptions::fromEnvironment();
  o.cacheRoot = fs::temp_directory_path() / fmt::format("tessel-test-cpp-{}", getuid());
  return o;
}

fs::path freshDir(const std::string& name) {
  fs::path d =
      fs::temp_directory_path() / fmt::format("tessel-test-cpp-{}-{}-{}", getuid(), name, getpid());
  fs::remove_all(d);
  return d;
}

/// Parses a program; the SourceFile is kept alive with it.
struct Parsed {
  std::unique_ptr<SourceFile> file;
  std::optional<Program> prog;
};

Parsed parse(const std::string& text) {
  Parsed p;
  p.file = std::make_unique<SourceFile>("test.tsl", text);
  DiagnosticEngine diags;
  p.prog = parseProgram(*p.file, diags);
  std::ostringstream os;
  diags.print(os);
  EXPECT_TRUE(p.prog.has_value()) << os.str();
  return p;
}

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

/// Runs `prog` with the interpreter and the C++ backend from the same seeded state and expects
/// every array to agree exactly.
void expectMatchesInterpreter(const Program& prog, const ParamValues& params, uint64_t seed = 7) {
  ProgramState ref = makeState(prog, params, seed), got = ref;
  interpret(prog, ref);
  CppModule m(prog, testOptions());
  m.run(got);
  for (size_t a = 0; a < prog.arrays.size(); ++a) {
    CompareResult r = compareArrays(got.arrays[a], ref.arrays[a], 0.0);
    EXPECT_TRUE(r.ok) << "array " << prog.arrays[a].name << ": " << r.mismatches
                      << " mismatches, worst got " << r.got << " expected " << r.expected
                      << "\nsource: " << m.sourcePath();
  }
}

// ---- a program built with the IR factories: b[i] = a[i-1] + a[i+1] ------------------------

Program blurProgram() {
  Program p;
  p.iterators = {{"i", {}}};
  p.params = {{"N", intLit(10), {}, false}};
  ExprPtr n = paramRef(0, "N");
  p.arrays.push_back({"a", ScalarType::Double, {n}, {}, {}});
  p.arrays.push_back({"b", ScalarType::Double, {n}, {}, {}});
  CallInst c;
  c.stencil = 0;
  c.name = "blur";
  c.actualNames = {"a", "b"};
  c.domain = {{intLit(0), binary(Op::Sub, n, intLit(1))}};
  Stmt st;
  st.lhs = arrayRef({false, 1}, "b", ScalarType::Double, {{0, 0}});
  st.rhs = binary(Op::Add, arrayRef({false, 0}, "a", ScalarType::Double, {{0, -1}}),
                  arrayRef({false, 0}, "a", ScalarType::Double, {{0, 1}}));
  c.stmts.push_back(st);
  p.calls.push_back(c);
  ExecNode call;
  call.kind = ExecNode::Kind::Call;
  call.call = 0;
  p.body.push_back(call);
  return p;
}

const char* kJacobi = R"(
parameter L=9, M=8, N=11;
iterator k, j, i;
double in[L,M,N], out[L,M,N];
double a, b, h2inv;
copyin in, out, a, b, h2inv;
stencil jacobi (B, A, h2inv, a, b) {
  double c = b * h2inv;
  B[k][j][i] = a*A[k][j][i] - c*(A[k][j][i+1] + A[k][j][i-1] + A[k][j+1][i]
             + A[k][j-1][i] + A[k+1][j][i] + A[k-1][j][i] - A[k][j][i]*6.0);
}
iterate 1:3 {
  jacobi (out, in, h2inv, a, b);
  jacobi (in, out, h2inv, a, b);
}
copyout in;
)";

}  // namespace

// ---- loop IR and emitter ------------------------------------------------------------------

TEST(LoopIr, FactoriesValidate) {
  EXPECT_THROW(
      lir::forLoop("i", floatLit(1.0, ScalarType::Double), intLit(3), lir::LoopKind::Serial, {}),
      std::logic_error);
  EXPECT_THROW(lir::store("", intLit(0), intLit(1)), std::logic_error);
  EXPECT_THROW(lir::localDecl(lir::CType::Double, "x", nullptr), std::logic_error);
  EXPECT_EQ(lir::indexAddConst(lir::indexAddConst(var("k", ScalarType::Int), 2), -3)->op, Op::Sub);
  CLikeEmitter em(cppDialect());
  EXPECT_EQ(em.emitExpr(lir::indexAddConst(var("k", ScalarType::Int), -1)), "k - 1");
  EXPECT_EQ(em.emitExpr(lir::indexMul(intLit(3), intLit(4))), "12");
  EXPECT_EQ(em.emitExpr(lir::indexMax(intLit(1), var("N", ScalarType::Int))),
            "std::max<int64_t>(1, N)");
}

TEST(Emitter, LiteralsAreExact) {
  CLikeEmitter em(cppDialect());
  EXPECT_EQ(em.emitExpr(floatLit(1.5, ScalarType::Float)), "1.5f");
  EXPECT_EQ(em.emitExpr(floatLit(6.0, ScalarType::Double)), "6.0");
  EXPECT_EQ(em.emitExpr(floatLit(0.1, ScalarType::Double)), "0.1");
  EXPECT_EQ(em.emitExpr(floatLit(1e20, ScalarType::Double)), "1e+20");
  EXPECT_EQ(em.emitExpr(floatLit(static_cast<float>(0.1), ScalarType::Float)), "0.1f");
  EXPECT_EQ(em.emitExpr(floatLit(1.0 / 3.0, ScalarType::Double)), "0.3333333333333333");
  EXPECT_EQ(em.emitExpr(floatLit(INFINITY, ScalarType::Float)), "INFINITY");
  EXPECT_EQ(em.emitExpr(boolLit(true)), "true");
  EXPECT_EQ(em.emitExpr(intLit(5000000000)), "5000000000LL");
  EXPECT_EQ(em.emitExpr(unary(Op::Neg, intLit(7))), "-7");
}

TEST(Emitter, ExactSemanticsOfOperators) {
  CLikeEmitter em(cppDialect());
  auto ld = [](const char* b, ScalarType t) { return load(b, var("i", ScalarType::Int), t); };
  ExprPtr x = ld("x", ScalarType::Float), d = ld("d", ScalarType::Double);
  ExprPtr m = ld("m", ScalarType::Int), bb = ld("b", ScalarType::Bool);
  // int * int of 32-bit operands is widened: the language's ints compute in 64 bits
  EXPECT_EQ(em.emitExpr(binary(Op::Mul, m, intLit(3))), "(int64_t)m[i] * 3");
  EXPECT_EQ(em.emitExpr(binary(Op::Pow, m, intLit(2))), "tessel_ipow(m[i], 2)");
  EXPECT_EQ(em.emitExpr(binary(Op::Pow, x, intLit(2))), "powf(x[i], (float)2)");
  EXPECT_EQ(em.emitExpr(binary(Op::Mod, d, x)), "fmod(d[i], (double)x[i])");
  EXPECT_EQ(em.emitExpr(binary(Op::Mod, m, intLit(4))), "m[i] % 4");
  EXPECT_EQ(em.emitExpr(binary(Op::Div, m, m)), "tessel_idiv(m[i], m[i])");
  EXPECT_EQ(em.emitExpr(binary(Op::And, bb, binary(Op::Gt, m, intLit(2)))), "b[i] && (m[i] > 2)");
  EXPECT_EQ(em.emitExpr(binary(Op::Or, m, intLit(1))), "m[i] | 1");
  EXPECT_EQ(em.emitExpr(call("sqrt", {x})), "sqrtf(x[i])");
  EXPECT_EQ(em.emitExpr(call("sqrt", {d})), "sqrt(d[i])");
  EXPECT_EQ(em.emitExpr(call("sqrt", {m})), "sqrt((double)m[i])");
  EXPECT_EQ(em.emitExpr(call("abs", {m})), "std::abs((int64_t)m[i])");
  EXPECT_EQ(em.emitExpr(call("min", {x, d})), "fmin((double)x[i], d[i])");
  EXPECT_EQ(em.emitExpr(select(bb, x, intLit(1))), "b[i] ? x[i] : (float)1");
  EXPECT_EQ(em.emitExpr(cast(ScalarType::Int, binary(Op::Add, var("q", ScalarType::Int), m))),
            "(int32_t)(q + m[i])");
  // parenthesisation keeps the evaluation order of non-associative float operations
  EXPECT_EQ(em.emitExpr(binary(Op::Sub, d, binary(Op::Sub, d, d))), "d[i] - (d[i] - d[i])");
  EXPECT_EQ(em.emitExpr(binary(Op::Mul, binary(Op::Add, d, d), d)), "(d[i] + d[i]) * d[i]");
}

TEST(Emitter, StatementsAndHelpers) {
  CLikeEmitter em(cppDialect());
  ExprPtr i = var("i", ScalarType::Int);
  auto loop =
      lir::forLoop("i", intLit(1), binary(Op::Sub, var("N", ScalarType::Int), intLit(2)),
                   lir::LoopKind::ParallelSimd,
                   {lir::store("b", i, binary(Op::Pow, load("m", i, ScalarType::Int), intLit(3)))});
  std::string s = em.emitStmt(loop, 1);
  EXPECT_TRUE(contains(s, "  #pragma omp parallel for simd schedule(static)\n")) << s;
  EXPECT_TRUE(contains(s, "  for (int64_t i = 1; i <= N - 2; ++i) {\n")) << s;
  EXPECT_TRUE(contains(s, "    b[i] = tessel_ipow(m[i], 3);\n")) << s;
  lir::Module mod;
  mod.header = {"a test"};
  mod.functions.push_back(
      {"f", "", lir::Linkage::Internal, {{"b", lir::CType::Int32, true}}, lir::block({loop})});
  std::string src = em.emitModule(mod);
  EXPECT_TRUE(contains(src, "// a test\n")) << src;
  EXPECT_TRUE(contains(src, "static inline int64_t tessel_ipow(int64_t b, int64_t e)")) << src;
  EXPECT_TRUE(contains(src, "static void f(int32_t* __restrict b) {")) << src;
}

TEST(Emitter, ErrorStatusAndReturns) {
  CLikeEmitter em(cppDialect());
  ExprPtr i = var("i", ScalarType::Int), m = load("m", i, ScalarType::Int);
  // A helper that can fail records its error through tessel_fail; a literal exponent cannot.
  lir::Function f{"g",
                  "",
                  lir::Linkage::Public,
                  {{"m", lir::CType::Int32, true}},
                  lir::block({lir::store("m", i, binary(Op::Div, intLit(7), m))})};
  lir::Function entry{"e",
                      "",
                      lir::Linkage::ExternC,
                      {},
                      lir::block({lir::resetStatus(), lir::callFn("g", {}), lir::returnStatus()}),
                      lir::CType::Int32};
  lir::Module mod;
  mod.functions = {f, entry};
  std::string src = em.emitModule(mod);
  EXPECT_TRUE(contains(src, "static std::atomic<int> tessel_status(0);\n")) << src;
  EXPECT_TRUE(contains(src,
                       "static inline void tessel_fail(int code) {\n"
                       "  int none = 0;\n"
                       "  tessel_status.compare_exchange_strong(none, code, "
                       "std::memory_order_relaxed);\n"
                       "}\n"))
      << src;
  EXPECT_TRUE(contains(src, "    tessel_fail(1);\n    return 0;\n")) << src;
  EXPECT_FALSE(contains(src, "tessel_imod")) << src;
  EXPECT_TRUE(contains(src,
                       "extern \"C\" int32_t e() {\n"
                       "  tessel_status.store(0, std::memory_order_relaxed);\n"
                       "  g();\n"
                       "  return tessel_status.load(std::memory_order_relaxed);\n"
                       "}\n"))
      << src;
  EXPECT_EQ(em.emitStmt(lir::returnValue(intLit(3))), "return 3;\n");
  EXPECT_EQ(em.emitStmt(lir::returnValue()), "return;\n");
  // A return must match the function's result type.
  lir::Function bad{"h", "", lir::Linkage::Internal, {}, lir::block({lir::returnStatus()})};
  EXPECT_THROW(em.emitFunction(bad), std::logic_error);
  bad.result = lir::CType::Double;
  EXPECT_THROW(em.emitFunction(bad), std::logic_error);
  bad.body = lir::block({lir::returnValue()});
  EXPECT_THROW(em.emitFunction(bad), std::logic_error);
  EXPECT_EQ(lir::statusMessage(static_cast<int>(lir::Status::IntDivisionByZero)),
            "integer division by zero");
  EXPECT_EQ(lir::statusMessage(0), "");
  EXPECT_EQ(lir::statusMessage(99), "");

  // Bool `&`/`|` evaluate both operands (as the interpreter does): no short circuit past a
  // helper that may record an error; C's `&&`/`||` where nothing can fail.
  ExprPtr bb = load("b", i, ScalarType::Bool);
  EXPECT_EQ(
      em.emitExpr(binary(Op::And, bb, binary(Op::Gt, binary(Op::Div, intLit(7), m), intLit(1)))),
      "b[i] & (tessel_idiv(7, m[i]) > 1)");
  EXPECT_EQ(em.emitExpr(binary(Op::Or, bb, binary(Op::Gt, binary(Op::Pow, m, m), intLit(1)))),
            "b[i] | (tessel_ipow(m[i], m[i]) > 1)");
  EXPECT_EQ(
      em.emitExpr(binary(Op::Or, bb, binary(Op::Gt, binary(Op::Pow, m, intLit(2)), intLit(1)))),
      "b[i] || (tessel_ipow(m[i], 2) > 1)");
  EXPECT_EQ(
      em.emitExpr(binary(Op::And, bb, binary(Op::Gt, binary(Op::Div, m, intLit(2)), intLit(1)))),
      "b[i] && (m[i] / 2 > 1)");
}

TEST(Emitter, BreaksLongLines) {
  CLikeEmitter em(cppDialect());
  ExprPtr sum = load("a", intLit(0), ScalarType::Double);
  for (int k = 1; k < 20; ++k)
    sum = binary(Op::Add, sum,
                 load("a", var("idx" + std::to_string(k), ScalarType::Int), ScalarType::Double));
  std::string s = em.emitStmt(lir::store("b", intLit(0), sum), 2);
  std::istringstream in(s);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_LE(line.size(), 100u) << line;
  }
  EXPECT_GT(lines, 1);
}

// ---- lowering and golden lines ------------------------------------------------------------

TEST(CppLowering, BlurGoldenLines) {
  std::string src = generateCpp(blurProgram());
  EXPECT_TRUE(contains(src, "static void call0_blur(")) << src;
  EXPECT_TRUE(contains(src, "  #pragma omp parallel for simd schedule(static)\n")) << src;
  EXPECT_TRUE(contains(src, "  for (int64_t i = 1; i <= N - 2; ++i) {\n")) << src;
  EXPECT_TRUE(contains(src, "    b[i] = a[i - 1] + a[i + 1];\n")) << src;
  EXPECT_TRUE(contains(src, "// Region: i in 1..N-2")) << src;
  EXPECT_TRUE(contains(src,
                       "void tessel_program(double* __restrict a, double* __restrict b, "
                       "const int64_t N) {"))
      << src;
  EXPECT_TRUE(contains(src, "extern \"C\" int32_t tessel_entry(")) << src;
  EXPECT_TRUE(contains(src, "static std::atomic<int> tessel_status(0);")) << src;
  EXPECT_TRUE(contains(src, "  tessel_status.store(0, std::memory_order_relaxed);\n")) << src;
  EXPECT_TRUE(contains(src, "  return tessel_status.load(std::memory_order_relaxed);\n}")) << src;
  EXPECT_FALSE(contains(src, "void tessel_fail(")) << src;  // no helper that could record an error
  EXPECT_TRUE(contains(src, "  double* __restrict a = (double*)arrays[0];")) << src;
  EXPECT_TRUE(contains(src, "-ffp-contract=off")) << src;
}

TEST(CppLowering, JacobiGoldenLines) {
  Parsed p = parse(kJacobi);
  ASSERT_TRUE(p.prog);
  std::string src = generateCpp(*p.prog);
  EXPECT_TRUE(contains(src, "  const double c = b * h2inv;\n")) << src;
  EXPECT_TRUE(contains(src,
                       "  #pragma omp parallel for schedule(static)\n"
                       "  for (int64_t k = 1; k <= L - 2; ++k) {\n"
                       "    for (int64_t j = 1; j <= M - 2; ++j) {\n"
                       "      #pragma omp simd\n"
                       "      for (int64_t i = 1; i <= N - 2; ++i) {\n"))
      << src;
  EXPECT_TRUE(contains(src, "out[(k * M + j) * N + i] = a * in[(k * M + j) * N + i]")) << src;
  EXPECT_TRUE(contains(src, "in[((k + 1) * M + j) * N + i]")) << src;
  EXPECT_TRUE(contains(src, "  for (int64_t t = 1; t <= 3; ++t) {\n")) << src;
  EXPECT_TRUE(contains(src, "    call0_jacobi(in, out, a, b, h2inv, L, M, N);\n")) << src;
}

TEST(CppLowering, ReservedNamesAreRenamed) {
  Parsed p = parse(R"(
parameter N=6;
iterator i;
double class[N], new[N], r_storage[N];
copyin class, r_storage;
stencil s (new, class) {
  double r;
  r = class[i] + r_storage[i];
  new[i] = r * 2.0;
}
s (new, class);
)");
  ASSERT_TRUE(p.prog);
  std::string src = generateCpp(*p.prog);
  EXPECT_TRUE(contains(src, "double* __restrict class_2 = (double*)arrays[0];")) << src;
  EXPECT_TRUE(contains(src, "double* __restrict r_2 = r_2_storage.get();")) << src;
  EXPECT_TRUE(contains(src, "new_2[i] = r_2[i - lo_i] * 2.0;")) << src;
  expectMatchesInterpreter(*p.prog, {6});
}

// ---- build and run ------------------------------------------------------------------------

TEST(CppModule, BlurMatchesHandComputedValues) {
  Program prog = blurProgram();
  ProgramState st;
  st.params = {10};
  st.arrays.push_back({ScalarType::Double, {10}, {}});
  st.arrays.push_back({ScalarType::Double, {10}, std::vector<double>(10, -1.0)});
  for (int k = 0; k < 10; ++k) st.arrays[0].values.push_back(k * k);
  CppModule m(prog, testOptions());
  double secs = m.run(st);
  EXPECT_GE(secs, 0.0);
  EXPECT_EQ(st.arrays[1].values[0], -1.0);  // outside the region: untouched
  EXPECT_EQ(st.arrays[1].values[9], -1.0);
  for (int k = 1; k <= 8; ++k)
    EXPECT_EQ(st.arrays[1].values[k], (k - 1) * (k - 1) + (k + 1) * (k + 1)) << k;
}

TEST(CppModule, JacobiMatchesReferenceLoopAndInterpreter) {
  Parsed p = parse(kJacobi);
  ASSERT_TRUE(p.prog);
  const Program& prog = *p.prog;
  ParamValues pv = {9, 8, 11};
  ProgramState st = makeState(prog, pv, 3);
  // A hand-written reference of the same computation.
  std::vector<double> in = st.arrays[0].values, out = st.arrays[1].values;
  double a = st.scalars[0], b = st.scalars[1], h2 = st.scalars[2], c = b * h2;
  auto at = [](int k, int j, int i) { return (k * 8 + j) * 11 + i; };
  auto sweep = [&](std::vector<double>& B, const std::vector<double>& A) {
    for (int k = 1; k <= 7; ++k)
      for (int j = 1; j <= 6; ++j)
        for (int i = 1; i <= 9; ++i)
          B[at(k, j, i)] = a * A[at(k, j, i)] -
                           c * (A[at(k, j, i + 1)] + A[at(k, j, i - 1)] + A[at(k, j + 1, i)] +
                                A[at(k, j - 1, i)] + A[at(k + 1, j, i)] + A[at(k - 1, j, i)] -
                                A[at(k, j, i)] * 6.0);
  };
  for (int t = 1; t <= 3; ++t) {
    sweep(out, in);
    sweep(in, out);
  }
  CppModule m(prog, testOptions());
  m.run(st);
  EXPECT_EQ(st.arrays[0].values, in);
  EXPECT_EQ(st.arrays[1].values, out);
  expectMatchesInterpreter(prog, pv);
  expectMatchesInterpreter(prog, {3, 3, 3});  // one interior point
  expectMatchesInterpreter(prog, {2, 5, 1});  // empty regions
}

// Floating values out of the int range, NaN and infinities stored to ints, a floating select
// condition and min/max over mixed int widths (tests/unit/gpu_test_programs.h): the C++ casts
// clamped where the reference wraps.
TEST(CppModule, ConversionsMatchInterpreter) {
  Parsed p = parse(gputest::kConversions);
  ASSERT_TRUE(p.prog);
  expectMatchesInterpreter(*p.prog, {11});
  expectMatchesInterpreter(*p.prog, {3}, 99);
}

TEST(CppModule, TypesAndFunctionsMatchInterpreter) {
  Parsed p = parse(R"(
parameter M=13, N=37;
iterator j, i;
float x[M,N], y[M,N];
double d[M,N], e[M,N], coef[N];
int m[M,N], n2[M,N];
bool b[M,N];
float s;
int q;
copyin x, d, m, b, coef, s, q;
stencil types () {
  double t;
  int r;
  float w = s * 2.5f;
  int big = q * 1000000 * 1000;
  t = d[j][i] * 0.1 + x[j][i+1];
  r = m[j][i] * 3 + q + big;
  y[j][i] = x[j][i] * w + x[j][i-1] / 3.0f - t + 1.0 / 3.0;
  e[j][i] = sqrt(d[j][i]) + exp(x[j][i]) + pow(d[j][i], 1.5) + abs(m[j][i] - 5)
          + min(x[j][i], d[j][i]) + max(m[j][i], r) + fabs(-d[j][i]) + log(d[j][i] + 1)
          + sin(x[j][i]) + floor(d[j][i]*7) + ceil(x[j][i]*3) + sqrt(m[j][i]) + tanh(x[j][i]);
  n2[j][i] = m[j][i] ^ 3 + m[j][i] % 4 + m[j][i] / 3 + r / (m[j][i] + 1) - (m[j][i] & 6)
           + (m[j][i] | 1) + select(b[j][i], 7, -7) + (m[j][i] - 5) % 3 + (0 - m[j][i]) / 2;
  [1:M-2, 2:N-3] : e[j][i] += t ^ 2.0 + d[j][i] % 0.3 + select(b[j][i] & (m[j][i] > 4), 1.0, 0.5)
                   + coef[i] * i + j - m[j][i] * 2.5f;
  b[j][i] = (m[j][i] > 3) | b[j][i];
  y[j][i] *= 1.1;
  m[j][i] = r * 1000000 * 1000;
}
types ();
)");
  ASSERT_TRUE(p.prog);
  expectMatchesInterpreter(*p.prog, {13, 37});
  expectMatchesInterpreter(*p.prog, {5, 4}, 99);
}

TEST(CppModule, LocalsScratchPlanesAndNestedIterate) {
  Parsed p = parse(R"(
parameter K=5, N=40, T;
iterator k, i;
double u[K,N], v[K,N], w[K,N], out2[K,N], strx[N];
float f[K,N];
bool flag;
copyin u, v, strx, f, flag;
stencil chain (inout:v, u) {
  double tmp[K,N];
  double r;
  tmp[k][i] = u[k][i-1] + u[k][i+1];
  r = tmp[k][i+1] * strx[i-2];
  u[k][i] = tmp[k][i] * 2.0;
  v[k][i] = r + tmp[k][1] + select(flag, 1.0, 2.0);
}
stencil plane () {
  w[k][i] = u[0][i] + u[k][i];
  out2[k][i] = w[k][3] + w[k][i];
  f[k][i] += out2[k][i] * 0.5f;
}
iterate 1:T {
  [1:K-2, 0:N-1] : chain (v, u);
  iterate 2:1 { plane (); }
  iterate 0:1 { plane (); }
}
)");
  ASSERT_TRUE(p.prog);
  std::string src = generateCpp(*p.prog);
  EXPECT_TRUE(contains(src, "std::memcpy(")) << src;       // the scratch copy of u
  EXPECT_TRUE(contains(src, "if (3 <= N - 1) {")) << src;  // a fixed plane of w
  EXPECT_TRUE(contains(src, "for (int64_t t_2 = 2; t_2 <= 1; ++t_2) {")) << src;
  expectMatchesInterpreter(*p.prog, {5, 40, 3});
  expectMatchesInterpreter(*p.prog, {4, 3, 2});   // the plane condition fails
  expectMatchesInterpreter(*p.prog, {5, 17, 0});  // zero time steps
}

TEST(CppModule, CachesLibrariesAndWritesCMake) {
  Program prog = blurProgram();
  CppBuildOptions o = testOptions();
  o.directory = freshDir("cache");
  CppModule first(prog, o);
  EXPECT_FALSE(first.reused());
  EXPECT_TRUE(fs::exists(o.directory / "CMakeLists.txt"));
  EXPECT_TRUE(fs::exists(o.directory / "tessel_program.cpp"));
  EXPECT_TRUE(fs::exists(first.libraryPath()));
  CppModule second(prog, o);
  EXPECT_TRUE(second.reused());
  EXPECT_EQ(first.libraryPath(), second.libraryPath());
  CppModule moved = std::move(second);
  ProgramState st{{6},
                  {{ScalarType::Double, {6}, {1, 2, 3, 4, 5, 6}},
                   {ScalarType::Double, {6}, std::vector<double>(6, 0.0)}},
                  {}};
  moved.run(st);
  EXPECT_EQ(st.arrays[1].values, (std::vector<double>{0, 4, 6, 8, 10, 0}));
  fs::remove_all(o.directory);
}

TEST(CppModule, CompileFailureNamesTheLog) {
  CppBuildOptions o = testOptions();
  o.directory = freshDir("fail");
  o.extraFlags = {"-include", "/nonexistent/tessel_missing_header.h"};
  try {
    CppModule m(blurProgram(), o);
    FAIL() << "expected a compile failure";
  } catch (const std::runtime_error& e) {
    std::string msg = e.what();
    EXPECT_TRUE(contains(msg, (o.directory / "build.log").string())) << msg;
    EXPECT_TRUE(contains(msg, "tessel_missing_header.h")) << msg;
  }
  EXPECT_TRUE(fs::exists(o.directory / "build.log"));
  fs::remove_all(o.directory);
}

TEST(CppModule, RejectsMismatchedStateAndOutOfBoundsAccess) {
  // CppModule keeps a pointer to its Program: the program must outlive the module.
  Program prog = blurProgram();
  CppModule m(prog, testOptions());
  ProgramState wrong{{10},
                     {{ScalarType::Double, {9}, std::vector<double>(9)},
                      {ScalarType::Double, {10}, std::vector<double>(10)}},
                     {}};
  EXPECT_THROW(m.run(wrong), RuntimeError);

  Parsed p = parse(R"(
parameter N;
iterator i;
double a[N], c[5];
stencil s (a) { a[i] = c[i]; }
s (a);
)");
  ASSERT_TRUE(p.prog);
  CppModule m2(*p.prog, testOptions());
  ProgramState st = makeState(*p.prog, {9}, 1);
  EXPECT_THROW(m2.run(st), RuntimeError);
  ProgramState ok = makeState(*p.prog, {5}, 1);
  m2.run(ok);
  EXPECT_EQ(ok.arrays[0].values, ok.arrays[1].values);
}

// ---- run-time errors of the program --------------------------------------------------------

namespace {

/// Expects the interpreter and the C++ backend both to report a run-time error containing
/// `what` on `st`.
void expectBothReport(const Program& prog, const ProgramState& st, const CppModule& m,
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
    ADD_FAILURE() << "the C++ backend reports no error; expected " << what
                  << "\nsource: " << m.sourcePath();
  } catch (const RuntimeError& e) {
    EXPECT_TRUE(contains(e.what(), what)) << e.what();
    EXPECT_TRUE(contains(e.what(), "generated code of test.tsl")) << e.what();
  }
}

/// Expects the interpreter and the C++ backend to agree exactly on `st`, without errors.
void expectBothAgree(const Program& prog, const ProgramState& st, const CppModule& m) {
  ProgramState ref = st, got = st;
  interpret(prog, ref);
  m.run(got);
  for (size_t a = 0; a < prog.arrays.size(); ++a)
    EXPECT_EQ(got.arrays[a].values, ref.arrays[a].values) << "array " << prog.arrays[a].name;
}

}  // namespace

TEST(CppModule, IntegerDivisionByRunTimeZeroIsAnError) {
  Parsed p = parse(R"(
parameter N=12;
iterator i;
int q[N], r[N], a[N];
int d;
copyin a, d;
stencil s (q, r, a) {
  q[i] = a[i] / d;
  r[i] = 100 / a[i];
}
s (q, r, a);
)");
  ASSERT_TRUE(p.prog);
  const Program& prog = *p.prog;
  CppModule m(prog, testOptions());
  EXPECT_TRUE(contains(m.source(), "tessel_fail(1);")) << m.source();
  ProgramState st = makeState(prog, {12}, 5);
  int d = prog.findScalar("d"), a = prog.findArray("a");
  std::vector<double> nonzero;
  for (int k = 0; k < 12; ++k) nonzero.push_back(k % 2 ? -(k + 1) * 7 : (k + 1) * 13);
  st.arrays[a].values = nonzero;

  // Division by a scalar that is zero at run time.
  st.scalars[d] = 0;
  expectBothReport(prog, st, m, "integer division by zero");
  // The status starts afresh on every run: the same module now runs without an error, and
  // ordinary int division (truncating, negative operands, -1) agrees with the interpreter.
  for (double v : {3.0, -3.0, -1.0, 1.0, 7.0}) {
    st.scalars[d] = v;
    expectBothAgree(prog, st, m);
  }
  // Division by an array element that is zero.
  st.scalars[d] = 2;
  st.arrays[a].values[7] = 0;
  expectBothReport(prog, st, m, "integer division by zero");
}

TEST(CppModule, RemainderByZeroAndNegativeExponentAreErrors) {
  Parsed p = parse(R"(
parameter N=9;
iterator i;
int q[N], a[N];
int d, e;
copyin a, d, e;
stencil s (q, a) {
  [0:N-2] : q[i] = a[i] % d + a[i] ^ e;
}
s (q, a);
)");
  ASSERT_TRUE(p.prog);
  const Program& prog = *p.prog;
  CppModule m(prog, testOptions());
  ProgramState st = makeState(prog, {9}, 11);
  int d = prog.findScalar("d"), e = prog.findScalar("e");
  st.scalars[d] = 3;
  st.scalars[e] = 2;
  expectBothAgree(prog, st, m);
  st.scalars[e] = -1;
  expectBothReport(prog, st, m, "negative exponent");
  st.scalars[e] = 0;
  expectBothAgree(prog, st, m);
  st.scalars[d] = 0;
  expectBothReport(prog, st, m, "integer remainder by zero");
}

TEST(CppModule, BoolAndEvaluatesBothOperands) {
  // A false left operand of `&` does not skip the division on the right (no short circuit).
  Parsed p = parse(R"(
parameter N=9;
iterator i;
int a[N];
bool b[N];
int d;
copyin a, b, d;
stencil t () { b[i] = b[i] & (a[i] / d > 1); }
t ();
)");
  ASSERT_TRUE(p.prog);
  const Program& prog = *p.prog;
  CppModule m(prog, testOptions());
  EXPECT_TRUE(contains(m.source(), "b[i] & (tessel_idiv(")) << m.source();
  ProgramState st = makeState(prog, {9}, 3);
  st.arrays[prog.findArray("b")].values.assign(9, 0.0);
  st.scalars[prog.findScalar("d")] = 0;
  expectBothReport(prog, st, m, "integer division by zero");
  st.scalars[prog.findScalar("d")] = 2;
  expectBothAgree(prog, st, m);
  st.arrays[prog.findArray("b")].values.assign(9, 1.0);
  expectBothAgree(prog, st, m);
}
