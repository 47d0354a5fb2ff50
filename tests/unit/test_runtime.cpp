// Runtime tests: value conversion, .npy files, seeded data, comparison, the reference
// interpreter (on IR built by hand and on parsed programs) and the bounds check.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "analysis/bounds.h"
#include "frontend/frontend.h"
#include "runtime/data.h"
#include "runtime/interpreter.h"
#include "runtime/npy.h"

using namespace tessel;
namespace fs = std::filesystem;

namespace {

// ---- helpers ----------------------------------------------------------------------------------

fs::path tempDir() {
  fs::path d = fs::temp_directory_path() / fmt::format("tessel_test_runtime_{}", ::getpid());
  fs::create_directories(d);
  return d;
}

/// A 1-D program builder: iterator i, parameter N (default n), arrays and calls by hand.
struct Builder {
  Program p;
  explicit Builder(int64_t n, int dims = 1) {
    const char* names[] = {"k", "j", "i"};
    for (int d = 0; d < dims; ++d) {
      p.iterators.push_back({names[3 - dims + d], {}});
      p.params.push_back({std::string("N") + std::to_string(d), intLit(n), {}, false});
    }
  }
  ExprPtr param(int d = 0) { return paramRef(d, p.params[d].name); }
  int array(const std::string& name, ScalarType t, std::vector<ExprPtr> ext, bool copyin) {
    ArrayDecl a;
    a.name = name;
    a.type = t;
    a.extents = std::move(ext);
    a.data.copyin = copyin;
    p.arrays.push_back(a);
    return static_cast<int>(p.arrays.size()) - 1;
  }
  int array(const std::string& name, ScalarType t = ScalarType::Double, bool copyin = true) {
    std::vector<ExprPtr> ext;
    for (int d = 0; d < p.dims(); ++d) ext.push_back(param(d));
    return array(name, t, ext, copyin);
  }
  int scalar(const std::string& name, ScalarType t = ScalarType::Double) {
    p.scalars.push_back({name, t, {}, {}});
    return static_cast<int>(p.scalars.size()) - 1;
  }
  ExprPtr ref(int a, std::vector<int64_t> offs) {
    std::vector<Subscript> subs;
    for (size_t d = 0; d < offs.size(); ++d) subs.push_back({static_cast<int>(d), offs[d]});
    return arrayRef({false, a}, p.arrays[a].name, p.arrays[a].type, subs);
  }
  ExprPtr ref(int a, int64_t off = 0) { return ref(a, std::vector<int64_t>{off}); }
  /// A call over [0 : N-1] per dimension (or the given domain), appended to the body.
  CallInst& call(const std::string& name, std::optional<Domain> dom = std::nullopt) {
    CallInst c;
    c.name = name;
    if (dom) {
      c.domain = *dom;
    } else {
      for (int d = 0; d < p.dims(); ++d)
        c.domain.push_back({intLit(0), binary(Op::Sub, param(d), intLit(1))});
    }
    p.calls.push_back(c);
    ExecNode n;
    n.kind = ExecNode::Kind::Call;
    n.call = static_cast<int>(p.calls.size()) - 1;
    p.body.push_back(n);
    return p.calls.back();
  }
  static void assign(CallInst& c, ExprPtr lhs, ExprPtr rhs, AssignOp op = AssignOp::Set) {
    Stmt s;
    s.lhs = std::move(lhs);
    s.rhs = std::move(rhs);
    s.op = op;
    c.stmts.push_back(s);
  }
};

ProgramState zeroState(const Program& p, ParamValues params) {
  ProgramState st = makeState(p, params, 7);
  for (auto& a : st.arrays) std::fill(a.values.begin(), a.values.end(), 0.0);
  return st;
}

std::optional<Program> parse(const std::string& text, std::unique_ptr<SourceFile>& file,
                             DiagnosticEngine& diags) {
  file = std::make_unique<SourceFile>("test.tsl", text);
  return parseProgram(*file, diags);
}

std::string renderAll(const DiagnosticEngine& d) {
  std::string s;
  for (auto& x : d.diagnostics()) s += DiagnosticEngine::render(x);
  return s;
}

// ---- convertTo --------------------------------------------------------------------------------

TEST(ConvertTo, DoubleIsIdentity) {
  EXPECT_EQ(convertTo(ScalarType::Double, 0.1), 0.1);
  EXPECT_TRUE(std::isnan(convertTo(ScalarType::Double, NAN)));
}

TEST(ConvertTo, FloatRounds) {
  EXPECT_EQ(convertTo(ScalarType::Float, 0.1), static_cast<double>(0.1f));
  EXPECT_NE(convertTo(ScalarType::Float, 0.1), 0.1);
  EXPECT_EQ(convertTo(ScalarType::Float, 1.0 + 0x1.0p-30), 1.0);
  EXPECT_TRUE(std::isinf(convertTo(ScalarType::Float, 1e300)));
}

TEST(ConvertTo, IntTruncatesTowardZeroAndWraps) {
  EXPECT_EQ(convertTo(ScalarType::Int, 2.9), 2);
  EXPECT_EQ(convertTo(ScalarType::Int, -2.9), -2);
  EXPECT_EQ(convertTo(ScalarType::Int, -0.5), 0);
  EXPECT_EQ(convertTo(ScalarType::Int, 2147483647.0), 2147483647);
  EXPECT_EQ(convertTo(ScalarType::Int, 2147483648.0), -2147483648.0);
  EXPECT_EQ(convertTo(ScalarType::Int, -2147483649.0), 2147483647);
  EXPECT_EQ(convertTo(ScalarType::Int, 4294967296.0 + 5.5), 5);
  EXPECT_EQ(convertTo(ScalarType::Int, 1e20), 1661992960);  // 10^20 mod 2^32, beyond int64
  EXPECT_EQ(convertTo(ScalarType::Int, NAN), 0);
  EXPECT_EQ(convertTo(ScalarType::Int, INFINITY), 0);
}

TEST(ConvertTo, Bool) {
  EXPECT_EQ(convertTo(ScalarType::Bool, 0.0), 0);
  EXPECT_EQ(convertTo(ScalarType::Bool, -0.0), 0);
  EXPECT_EQ(convertTo(ScalarType::Bool, 0.25), 1);
  EXPECT_EQ(convertTo(ScalarType::Bool, -3), 1);
}

// ---- npy --------------------------------------------------------------------------------------

TEST(Npy, RoundTripEveryType) {
  fs::path dir = tempDir();
  struct Case {
    ScalarType t;
    std::vector<double> v;
  };
  std::vector<Case> cases = {
      {ScalarType::Double, {0.1, -2.5, 1e300, -0.0, 3, 4, 5, 6, 7, 8, 9, 10}},
      {ScalarType::Float, {0.1, -2.5, 1e30, 0, 3, 4, 5, 6, 7, 8, 9, 10}},
      {ScalarType::Int, {1, -2, 2147483647, -2147483648.0, 0, 4, 5, 6, 7, 8, 9, 10}},
      {ScalarType::Bool, {1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1}},
  };
  for (auto& c : cases) {
    ArrayData a;
    a.type = c.t;
    a.shape = {2, 3, 2};
    a.values = c.v;
    fs::path f = dir / fmt::format("a_{}.npy", typeName(c.t));
    writeNpy(f.string(), a);
    // The data starts at a multiple of 64 bytes.
    auto size = fs::file_size(f);
    EXPECT_EQ((size - 12 * typeBytes(c.t)) % 64, 0u);
    ArrayData b = readNpy(f.string());
    EXPECT_EQ(b.type, c.t);
    EXPECT_EQ(b.shape, a.shape);
    ASSERT_EQ(b.values.size(), a.values.size());
    for (size_t k = 0; k < a.values.size(); ++k)
      EXPECT_EQ(b.values[k], convertTo(c.t, a.values[k])) << typeName(c.t) << " element " << k;
  }
  // 1-D and 0-d shapes.
  ArrayData one{ScalarType::Double, {3}, {1, 2, 3}};
  writeNpy((dir / "one.npy").string(), one);
  EXPECT_EQ(readNpy((dir / "one.npy").string()).shape, std::vector<int64_t>{3});
  ArrayData zero{ScalarType::Double, {}, {42}};
  writeNpy((dir / "zero.npy").string(), zero);
  ArrayData z = readNpy((dir / "zero.npy").string());
  EXPECT_TRUE(z.shape.empty());
  EXPECT_EQ(z.values, std::vector<double>{42});
  fs::remove_all(dir);
}

void writeRaw(const fs::path& f, const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  size_t pre = major == 1 ? 10 : 12;
  while ((pre + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::ofstream out(f, std::ios::binary);
  out.write("\x93NUMPY", 6);
  out.put(static_cast<char>(major));
  out.put(0);
  out.put(static_cast<char>(header.size() & 0xff));
  out.put(static_cast<char>(header.size() >> 8));
  if (major != 1) out.write("\0\0", 2);
  out << header << data;
}

TEST(Npy, ReadsInt64AndVersion2) {
  fs::path dir = tempDir();
  int64_t vals[3] = {-5, 7, 2000000000};
  writeRaw(dir / "i8.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
           std::string(reinterpret_cast<const char*>(vals), sizeof vals));
  ArrayData a = readNpy((dir / "i8.npy").string());
  EXPECT_EQ(a.type, ScalarType::Int);
  EXPECT_EQ(a.values, (std::vector<double>{-5, 7, 2000000000}));

  double d[2] = {1.5, 2.5};
  writeRaw(dir / "v2.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }",
           std::string(reinterpret_cast<const char*>(d), sizeof d), 2);
  ArrayData b = readNpy((dir / "v2.npy").string());
  EXPECT_EQ(b.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(b.values, (std::vector<double>{1.5, 2.5}));
  fs::remove_all(dir);
}

void expectNpyError(const fs::path& f, const std::string& needle) {
  try {
    readNpy(f.string());
    ADD_FAILURE() << "no error for " << f;
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find(f.string()), std::string::npos) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << m;
  }
}

TEST(Npy, ClearErrors) {
  fs::path dir = tempDir();
  expectNpyError(dir / "missing.npy", "cannot open");
  { std::ofstream(dir / "text.npy") << "hello, world"; }
  expectNpyError(dir / "text.npy", "not a NumPy");
  writeRaw(dir / "fortran.npy", "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
           std::string(48, '\0'));
  expectNpyError(dir / "fortran.npy", "Fortran");
  // A vector in Fortran order is laid out as in C order: read.
  writeRaw(dir / "fortran1.npy", "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 1), }",
           std::string(24, '\0'));
  EXPECT_EQ(readNpy((dir / "fortran1.npy").string()).values.size(), 3u);
  writeRaw(dir / "long.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
           std::string(9, '\0'));
  expectNpyError(dir / "long.npy", "more data than its header says");
  expectNpyError(dir, "is a directory");
  writeRaw(dir / "big.npy", "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
           std::string(8, '\0'));
  expectNpyError(dir / "big.npy", "big-endian");
  writeRaw(dir / "c16.npy", "{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }",
           std::string(16, '\0'));
  expectNpyError(dir / "c16.npy", "unsupported dtype");
  writeRaw(dir / "short.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
           std::string(8, '\0'));
  expectNpyError(dir / "short.npy", "truncated");
  int64_t huge = int64_t{1} << 40;
  writeRaw(dir / "huge.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
           std::string(reinterpret_cast<const char*>(&huge), 8));
  expectNpyError(dir / "huge.npy", "does not fit");
  fs::remove_all(dir);
}

// The first Python on this machine that has numpy (scripts/deps.sh installs Debian's).
static std::string pythonWithNumpy() {
  for (const char* py : {"python3", "/usr/bin/python3"})
    if (std::system(fmt::format("{} -c 'import numpy' >/dev/null 2>&1", py).c_str()) == 0)
      return py;
  return {};
}

TEST(Npy, InteroperatesWithNumpy) {
  std::string py = pythonWithNumpy();
  if (py.empty()) GTEST_SKIP() << "no python3 with numpy is available";
  fs::path dir = tempDir();
  std::string script = fmt::format(
      "{1} -c \"import numpy as np; "
      "np.save('{0}/f8.npy', np.arange(6, dtype='<f8').reshape(2, 3) / 4); "
      "np.save('{0}/f4.npy', np.array([0.1, 2], dtype='<f4')); "
      "np.save('{0}/i4.npy', np.array([[-3], [4]], dtype='<i4')); "
      "np.save('{0}/b1.npy', np.array([True, False, True])); "
      "np.save('{0}/i8.npy', np.array([1, -2], dtype='<i8'))\"",
      dir.string(), py);
  ASSERT_EQ(std::system(script.c_str()), 0);
  ArrayData f8 = readNpy((dir / "f8.npy").string());
  EXPECT_EQ(f8.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f8.values, (std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(readNpy((dir / "f4.npy").string()).values[0], static_cast<double>(0.1f));
  EXPECT_EQ(readNpy((dir / "i4.npy").string()).values, (std::vector<double>{-3, 4}));
  EXPECT_EQ(readNpy((dir / "b1.npy").string()).values, (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(readNpy((dir / "i8.npy").string()).values, (std::vector<double>{1, -2}));
  // And numpy reads ours.
  writeNpy((dir / "ours.npy").string(), ArrayData{ScalarType::Float, {2, 2}, {1, 2, 3, 4.5}});
  std::string check = fmt::format(
      "{} -c \"import numpy as np; a = np.load('{}/ours.npy'); "
      "assert a.dtype == np.float32 and a.shape == (2, 2) and a[1, 1] == 4.5\"",
      py, dir.string());
  EXPECT_EQ(std::system(check.c_str()), 0);
  fs::remove_all(dir);
}

// ---- compareArrays ----------------------------------------------------------------------------

TEST(Compare, EqualArrays) {
  ArrayData a{ScalarType::Double, {2, 2}, {1, 2, 3, NAN}};
  CompareResult r = compareArrays(a, a, 0);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.maxRelErr, 0);
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_TRUE(r.worstIndex.empty());
}

TEST(Compare, WorstElement) {
  ArrayData ref{ScalarType::Double, {2, 3}, {1, 2, 3, 4, 5, 6}};
  ArrayData got = ref;
  got.values[1] = 2 * (1 + 1e-13);
  got.values[4] = 5 * (1 + 1e-9);
  CompareResult r = compareArrays(got, ref, 1e-12);
  EXPECT_FALSE(r.ok);
  EXPECT_NEAR(r.maxRelErr, 1e-9, 1e-12);
  EXPECT_EQ(r.worstIndex, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(r.expected, 5);
  EXPECT_EQ(r.got, got.values[4]);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_TRUE(compareArrays(got, ref, 1e-8).ok);
}

TEST(Compare, NanAndZeroAndShape) {
  ArrayData ref{ScalarType::Double, {3}, {0, NAN, 1}};
  ArrayData got{ScalarType::Double, {3}, {0, 1, 1}};
  CompareResult r = compareArrays(got, ref, 1e-5);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(std::isinf(r.maxRelErr));
  EXPECT_EQ(r.worstIndex, std::vector<int64_t>{1});
  // Against an exact zero, any difference is a huge relative error.
  ArrayData z{ScalarType::Double, {1}, {0}}, g{ScalarType::Double, {1}, {1e-20}};
  EXPECT_FALSE(compareArrays(g, z, 1e-5).ok);
  ArrayData other{ScalarType::Double, {1, 3}, {0, 0, 1}};
  EXPECT_FALSE(compareArrays(other, ref, 1).ok);
}

TEST(Compare, DefaultTolerance) {
  EXPECT_EQ(defaultTolerance(ScalarType::Double), 1e-12);
  EXPECT_EQ(defaultTolerance(ScalarType::Float), 1e-5);
  EXPECT_EQ(defaultTolerance(ScalarType::Int), 0);
  EXPECT_EQ(defaultTolerance(ScalarType::Bool), 0);
}

// ---- makeState --------------------------------------------------------------------------------

TEST(MakeState, DeterministicAndOrderIndependent) {
  Builder b1(8), b2(8);
  b1.array("x");
  b1.array("y", ScalarType::Int);
  b1.array("z", ScalarType::Double, false);
  b1.scalar("s");
  b2.array("y", ScalarType::Int);
  b2.scalar("s");
  b2.array("x");
  ProgramState s1 = makeState(b1.p, {8}, 42), s1b = makeState(b1.p, {8}, 42);
  ProgramState s2 = makeState(b2.p, {8}, 42), s3 = makeState(b1.p, {8}, 43);
  EXPECT_EQ(s1.arrays[0].values, s1b.arrays[0].values);
  EXPECT_EQ(s1.arrays[0].values, s2.arrays[1].values);  // x
  EXPECT_EQ(s1.arrays[1].values, s2.arrays[0].values);  // y
  EXPECT_EQ(s1.scalars[0], s2.scalars[0]);
  EXPECT_NE(s1.arrays[0].values, s3.arrays[0].values);
  EXPECT_NE(s1.arrays[0].values, s1.arrays[2].values);
  for (double v : s1.arrays[0].values) {
    EXPECT_GE(v, 0.5);
    EXPECT_LT(v, 1.5);
  }
  for (double v : s1.arrays[1].values) {
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 9);
    EXPECT_EQ(v, std::trunc(v));
  }
  for (double v : s1.arrays[2].values) EXPECT_EQ(v, 0);  // in no data list: zero
  EXPECT_EQ(s1.arrays[0].shape, std::vector<int64_t>{8});
  EXPECT_GE(s1.scalars[0], 0.5);
  EXPECT_LT(s1.scalars[0], 1.5);
}

TEST(MakeState, FloatValuesAreRoundedAndConstantArraysSeeded) {
  Builder b(16);
  int f = b.array("f", ScalarType::Float);
  int c = b.array("c", ScalarType::Double, false);
  b.p.arrays[c].data.constant = true;
  int a = b.array("a", ScalarType::Double, false);
  b.p.arrays[a].data.allocin = true;
  ProgramState s = makeState(b.p, {16}, 3);
  for (double v : s.arrays[f].values) EXPECT_EQ(v, convertTo(ScalarType::Float, v));
  EXPECT_NE(s.arrays[c].values[0], 0);
  EXPECT_EQ(s.arrays[a].values[0], 0);
}

TEST(MakeState, RejectsNegativeExtents) {
  Builder b(4);
  b.array("x", ScalarType::Double, {binary(Op::Sub, b.param(), intLit(10))}, true);
  EXPECT_THROW(makeState(b.p, {4}, 1), RuntimeError);
}

// ---- the interpreter on hand-built IR ---------------------------------------------------------

// out[i] = (in[i-1] + in[i] + in[i+1]) / 3 on N = 6: region 1..4, out[0] and out[5] untouched.
TEST(Interpreter, ThreePointAverage) {
  Builder b(6);
  int in = b.array("in"), out = b.array("out");
  CallInst& c = b.call("avg");
  Builder::assign(
      c, b.ref(out),
      binary(Op::Div, binary(Op::Add, binary(Op::Add, b.ref(in, -1), b.ref(in)), b.ref(in, 1)),
             floatLit(3.0, ScalarType::Double)));
  ProgramState st = zeroState(b.p, {6});
  st.arrays[in].values = {3, 6, 9, 3, 0, 12};
  st.arrays[out].values = {-1, -1, -1, -1, -1, -1};
  interpret(b.p, st);
  EXPECT_EQ(st.arrays[out].values, (std::vector<double>{-1, 6, 6, 4, 5, -1}));
  EXPECT_EQ(st.arrays[in].values, (std::vector<double>{3, 6, 9, 3, 0, 12}));
}

// Compound assignment inside `iterate 1:3` and a nested `iterate 2:1` that never runs:
// x[i] += 1 three times.
TEST(Interpreter, IterateAndCompound) {
  Builder b(4);
  int x = b.array("x");
  CallInst& c = b.call("inc");
  Builder::assign(c, b.ref(x), intLit(1), AssignOp::Add);
  ExecNode callNode = b.p.body.back();
  ExecNode never;
  never.kind = ExecNode::Kind::Iterate;
  never.lo = intLit(2);
  never.hi = intLit(1);
  never.body = {callNode};
  ExecNode loop;
  loop.kind = ExecNode::Kind::Iterate;
  loop.lo = intLit(1);
  loop.hi = intLit(3);
  loop.body = {callNode, never};
  b.p.body = {loop};
  ProgramState st = zeroState(b.p, {4});
  st.arrays[x].values = {0.5, 1, 2, 3};
  interpret(b.p, st);
  EXPECT_EQ(st.arrays[x].values, (std::vector<double>{3.5, 4, 5, 6}));
}

// Float arithmetic is done in float: (a + b) - a with b tiny is 0 in float, b in double.
TEST(Interpreter, FloatOperationsRoundAsFloat) {
  Builder b(2);
  int a = b.array("a", ScalarType::Float), t = b.array("t", ScalarType::Float);
  int o1 = b.array("o1", ScalarType::Float), o2 = b.array("o2", ScalarType::Float);
  int o3 = b.array("o3", ScalarType::Double);
  CallInst& c = b.call("f");
  ExprPtr sum = binary(Op::Sub, binary(Op::Add, b.ref(a), b.ref(t)), b.ref(a));
  Builder::assign(c, b.ref(o1), sum);
  // 1.0 (a double literal) promotes the expression to double; rounded to float on store.
  ExprPtr dsum = binary(
      Op::Sub,
      binary(Op::Add, b.ref(a), binary(Op::Mul, b.ref(t), floatLit(1.0, ScalarType::Double))),
      b.ref(a));
  Builder::assign(c, b.ref(o2), dsum);
  // float / float stored into a double array keeps the float rounding: 1/3 as float.
  Builder::assign(
      c, b.ref(o3),
      binary(Op::Div, floatLit(1.0, ScalarType::Float), floatLit(3.0, ScalarType::Float)));
  ProgramState st = zeroState(b.p, {2});
  st.arrays[a].values = {1, 1};
  st.arrays[t].values = {0x1.0p-30, 0x1.0p-30};
  interpret(b.p, st);
  EXPECT_EQ(st.arrays[o1].values[0], 0.0);
  EXPECT_EQ(st.arrays[o2].values[0], 0x1.0p-30);
  EXPECT_EQ(st.arrays[o3].values[0], static_cast<double>(1.0f / 3.0f));
  EXPECT_NE(st.arrays[o3].values[0], 1.0 / 3.0);
}

TEST(Interpreter, IntegerSemantics) {
  Builder b(1);
  std::vector<int> outs;
  auto lit = [](int64_t v) { return intLit(v); };
  std::vector<std::pair<ExprPtr, double>> cases = {
      {binary(Op::Div, lit(-7), lit(2)), -3},
      {binary(Op::Mod, lit(-7), lit(2)), -1},
      {binary(Op::Mod, lit(7), lit(-2)), 1},
      {binary(Op::Pow, lit(2), lit(10)), 1024},
      {binary(Op::Pow, lit(-3), lit(3)), -27},
      {binary(Op::Pow, lit(0), lit(0)), 1},
      {binary(Op::Mod, floatLit(7.5, ScalarType::Double), lit(2)), 1.5},
      {binary(Op::Mod, floatLit(-7.5, ScalarType::Double), lit(2)), -1.5},
      {binary(Op::Pow, floatLit(2.0, ScalarType::Double), lit(-1)), 0.5},
      {binary(Op::And, lit(6), lit(3)), 2},
      {binary(Op::Or, lit(6), lit(3)), 7},
      {binary(Op::And, boolLit(true), binary(Op::Lt, lit(1), lit(2))), 1},
      {binary(Op::Or, boolLit(false), boolLit(false)), 0},
      {binary(Op::Add, boolLit(true), boolLit(true)), 2},
      {unary(Op::Neg, boolLit(true)), -1},
      {binary(Op::Eq, lit(3), floatLit(3.0, ScalarType::Double)), 1},
      {call("abs", {lit(-4)}), 4},
      {call("min", {lit(-4), lit(2)}), -4},
      {call("max", {floatLit(1.5, ScalarType::Double), lit(2)}), 2},
      {call("sqrt", {lit(2)}), std::sqrt(2.0)},
      {call("floor", {floatLit(-1.5, ScalarType::Double)}), -2},
      {select(binary(Op::Gt, iterRef(0, "i"), lit(0)), lit(1), floatLit(2.5, ScalarType::Double)),
       2.5},
      {cast(ScalarType::Int, floatLit(-2.7, ScalarType::Double)), -2},
      {binary(Op::Div, cast(ScalarType::Int, floatLit(7.9, ScalarType::Double)), lit(2)), 3},
      {binary(Op::Mul, paramRef(0, "N0"), lit(5)), 5},
  };
  CallInst& c = b.call("ints");
  for (size_t k = 0; k < cases.size(); ++k) {
    int o = b.array(fmt::format("o{}", k), ScalarType::Double, false);
    Builder::assign(c, b.ref(o), cases[k].first);
  }
  ProgramState st = zeroState(b.p, {1});
  interpret(b.p, st);
  for (size_t k = 0; k < cases.size(); ++k)
    EXPECT_EQ(st.arrays[k].values[0], cases[k].second)
        << k << ": " << toString(cases[k].first, {"i"});
}

TEST(Interpreter, IntStoresTruncateAndWrap) {
  Builder b(1);
  int o = b.array("o", ScalarType::Int, false), p = b.array("p", ScalarType::Int, false);
  int q = b.array("q", ScalarType::Bool, false);
  CallInst& c = b.call("s");
  Builder::assign(c, b.ref(o), floatLit(-3.99, ScalarType::Double));
  Builder::assign(c, b.ref(p), binary(Op::Pow, intLit(2), intLit(31)));
  Builder::assign(c, b.ref(q), floatLit(0.25, ScalarType::Double));
  ProgramState st = zeroState(b.p, {1});
  interpret(b.p, st);
  EXPECT_EQ(st.arrays[o].values[0], -3);
  EXPECT_EQ(st.arrays[p].values[0], -2147483648.0);
  EXPECT_EQ(st.arrays[q].values[0], 1);
}

TEST(Interpreter, RuntimeErrors) {
  auto run = [](ExprPtr e) {
    Builder b(2);
    int o = b.array("o", ScalarType::Int, false);
    CallInst& c = b.call("e");
    Builder::assign(c, b.ref(o), std::move(e));
    ProgramState st = zeroState(b.p, {2});
    interpret(b.p, st);
  };
  // Division by i: zero at i = 0.
  try {
    run(binary(Op::Div, intLit(1), iterRef(0, "i")));
    ADD_FAILURE() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("integer division by zero in '1 / i' at (i) = (0)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(run(binary(Op::Mod, intLit(1), intLit(0))), RuntimeError);
  EXPECT_THROW(run(binary(Op::Pow, intLit(2), unary(Op::Neg, intLit(1)))), RuntimeError);
  // A select evaluates only the chosen operand.
  EXPECT_NO_THROW(run(select(boolLit(true), intLit(1), binary(Op::Div, intLit(1), intLit(0)))));
}

// Local scalars are per point and C-like; initialised locals are evaluated once per call;
// local arrays are fresh (zero) at every call.
TEST(Interpreter, LocalsAndInits) {
  Builder b(4);
  int a = b.array("a"), r = b.array("r");
  int s = b.scalar("s");
  CallInst& c = b.call("loc");
  c.localScalars.push_back({"t", ScalarType::Double, {}});
  c.inits.push_back({"k",
                     ScalarType::Int,
                     binary(Op::Mul, scalarRef(ScalarKind::Global, s, "s", ScalarType::Double),
                            floatLit(2.5, ScalarType::Double)),
                     {}});
  c.localArrays.push_back({"tmp", ScalarType::Double, {b.param()}, {}, -1});
  ExprPtr t = scalarRef(ScalarKind::Local, 0, "t", ScalarType::Double);
  ExprPtr k = scalarRef(ScalarKind::Init, 0, "k", ScalarType::Int);
  ExprPtr tmp = arrayRef({true, 0}, "tmp", ScalarType::Double, {{0, 0}});
  Builder::assign(c, t, b.ref(a));                                            // t = a[i]
  Builder::assign(c, b.ref(a), binary(Op::Mul, intLit(2), b.ref(a)));         // a[i] = 2*a[i]
  Builder::assign(c, tmp, iterRef(0, "i"), AssignOp::Add);                    // tmp[i] += i
  Builder::assign(c, b.ref(r), binary(Op::Add, binary(Op::Add, t, k), tmp));  // r = t + k + tmp
  b.p.body.push_back(b.p.body.back());  // call twice: tmp starts at zero again
  ProgramState st = zeroState(b.p, {4});
  st.scalars[s] = 1.0;  // k = int(2.5) = 2
  st.arrays[a].values = {1, 2, 3, 4};
  interpret(b.p, st);
  EXPECT_EQ(st.arrays[a].values, (std::vector<double>{4, 8, 12, 16}));
  // Second call: t = old a = 2, 4, 6, 8; + k (2) + tmp (i).
  EXPECT_EQ(st.arrays[r].values, (std::vector<double>{4, 7, 10, 13}));
}

// A scratch local array starts as a copy of the global; the global is not written.
TEST(Interpreter, ScratchCopy) {
  Builder b(3);
  int g = b.array("g"), r = b.array("r");
  CallInst& c = b.call("scr");
  c.localArrays.push_back({"g", ScalarType::Double, {b.param()}, {}, g});
  ExprPtr gl = arrayRef({true, 0}, "g", ScalarType::Double, {{0, 0}});
  Builder::assign(c, gl, floatLit(10.0, ScalarType::Double), AssignOp::Add);
  Builder::assign(c, b.ref(r), gl);
  ProgramState st = zeroState(b.p, {3});
  st.arrays[g].values = {1, 2, 3};
  interpret(b.p, st);
  EXPECT_EQ(st.arrays[g].values, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(st.arrays[r].values, (std::vector<double>{11, 12, 13}));
}

// Arrays with fewer dimensions than iterators, fixed planes, and a statement domain in 2-D.
TEST(Interpreter, TwoDimensionsCoefficientsAndPlanes) {
  Builder b(4, 2);  // iterators j, i; N0 = N1 = 4
  int u = b.array("u"), o = b.array("o", ScalarType::Double, false);
  int cx = b.array("cx", ScalarType::Double, {b.param(1)}, true);
  Domain dom = {{intLit(1), intLit(2)}, {intLit(0), intLit(3)}};
  CallInst& c = b.call("two", dom);
  // o[j][i] = u[j][0] * cx[i] + u[j-1][i]
  ExprPtr plane = arrayRef({false, u}, "u", ScalarType::Double, {{0, 0}, {-1, 0}});
  ExprPtr coef = arrayRef({false, cx}, "cx", ScalarType::Double, {{1, 0}});
  Builder::assign(c, b.ref(o, {0, 0}),
                  binary(Op::Add, binary(Op::Mul, plane, coef), b.ref(u, {-1, 0})));
  ProgramState st = zeroState(b.p, {4, 4});
  for (int k = 0; k < 16; ++k) st.arrays[u].values[k] = k;
  st.arrays[cx].values = {1, 10, 100, 1000};
  interpret(b.p, st);
  std::vector<double> want(16, 0);
  // u[j-1][i] must stay inside the call domain (rule 5.4): the region is j = 2 only.
  for (int j = 2; j <= 2; ++j)
    for (int i = 0; i < 4; ++i)
      want[j * 4 + i] = (j * 4) * st.arrays[cx].values[i] + (j - 1) * 4 + i;
  EXPECT_EQ(st.arrays[o].values, want);
}

TEST(Interpreter, RejectsMismatchedState) {
  Builder b(4);
  b.array("x");
  b.call("c");
  ProgramState st = zeroState(b.p, {4});
  st.arrays[0].values.resize(3);
  EXPECT_THROW(interpret(b.p, st), RuntimeError);
}

// 7-point Jacobi sweep on 128^3: the interpreter must be usable as an oracle on real sizes.
TEST(Interpreter, SevenPointSpeed) {
  Builder b(128, 3);
  int in = b.array("in"), out = b.array("out", ScalarType::Double, false);
  CallInst& c = b.call("j3d7pt");
  ExprPtr sum = b.ref(in, {0, 0, 0});
  for (int d = 0; d < 3; ++d)
    for (int s : {-1, 1}) {
      std::vector<int64_t> off(3, 0);
      off[d] = s;
      sum = binary(Op::Add, sum, b.ref(in, off));
    }
  Builder::assign(c, b.ref(out, {0, 0, 0}),
                  binary(Op::Mul, floatLit(1.0 / 7, ScalarType::Double), sum));
  ProgramState st = makeState(b.p, {128, 128, 128}, 5);
  auto t0 = std::chrono::steady_clock::now();
  interpret(b.p, st);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("seconds", std::to_string(secs));
  std::printf("128^3 7-point sweep: %.3f s\n", secs);
  EXPECT_LT(secs, 2.0);
  auto at = [&](int a, int k, int j, int i) {
    return st.arrays[a].values[(k * 128 + j) * 128 + i];
  };
  double want = (1.0 / 7) * (at(in, 5, 6, 7) + at(in, 4, 6, 7) + at(in, 6, 6, 7) + at(in, 5, 5, 7) +
                             at(in, 5, 7, 7) + at(in, 5, 6, 6) + at(in, 5, 6, 8));
  EXPECT_EQ(at(out, 5, 6, 7), want);
  EXPECT_EQ(at(out, 0, 6, 7), 0);
}

// ---- bounds -----------------------------------------------------------------------------------

TEST(Bounds, HandBuiltViolation) {
  Builder b(6);
  int in = b.array("in", ScalarType::Double, {binary(Op::Sub, b.param(), intLit(1))}, true);
  int out = b.array("out");
  CallInst& c = b.call("shift");
  Builder::assign(c, b.ref(out), b.ref(in, 1));  // region 0..4, in[i+1] reaches 5, in has 5
  DiagnosticEngine d;
  EXPECT_FALSE(checkBounds(b.p, {6}, d));
  ASSERT_EQ(d.errorCount(), 1);
  EXPECT_EQ(d.diagnostics()[0].id, DiagId::out_of_bounds);
  EXPECT_EQ(d.diagnostics()[0].message,
            "access 'in[i+1]' reaches index 5 along i, outside 'in' (0..4 along i) in a call "
            "of 'shift'");
  ProgramState st = zeroState(b.p, {6});
  EXPECT_THROW(interpret(b.p, st), RuntimeError);
  // With a larger `in` everything fits.
  b.p.arrays[in].extents = {b.param()};
  DiagnosticEngine d2;
  EXPECT_TRUE(checkBounds(b.p, {6}, d2));
  EXPECT_EQ(d2.errorCount(), 0);
}

TEST(Bounds, NegativeExtentAndFixedPlane) {
  Builder b(6);
  b.array("neg", ScalarType::Double, {binary(Op::Sub, b.param(), intLit(10))}, false);
  int a = b.array("a"), o = b.array("o");
  CallInst& c = b.call("plane");
  Builder::assign(c, b.ref(o), arrayRef({false, a}, "a", ScalarType::Double, {{-1, 7}}));
  DiagnosticEngine d;
  EXPECT_FALSE(checkBounds(b.p, {6}, d));
  ASSERT_EQ(d.errorCount(), 2);
  EXPECT_EQ(d.diagnostics()[0].id, DiagId::bad_extent);
  EXPECT_EQ(d.diagnostics()[1].id, DiagId::out_of_bounds);
  EXPECT_NE(d.diagnostics()[1].message.find("reaches index 7 in dimension 1"), std::string::npos)
      << d.diagnostics()[1].message;
}

// ---- parsed programs (the frontend, where it agrees with the hand-built IR) ---------------------

TEST(Parsed, ChainAndRegionRule) {
  // 9.1: t on 1..N-2, y on 0..N-3.
  const char* src = R"(
parameter N=8;
iterator i;
double x[N], y[N];
copyin x, y;
stencil s (y, x) {
  double t[N];
  t[i] = x[i-1] + x[i+1];
  y[i] = t[i+1];
}
s (y, x);
)";
  std::unique_ptr<SourceFile> f;
  DiagnosticEngine d;
  auto prog = parse(src, f, d);
  ASSERT_TRUE(prog) << renderAll(d);
  ProgramState st = zeroState(*prog, {8});
  for (int k = 0; k < 8; ++k) st.arrays[0].values[k] = k * k;
  st.arrays[1].values.assign(8, -1);
  ASSERT_TRUE(checkBounds(*prog, {8}, d)) << renderAll(d);
  interpret(*prog, st);
  std::vector<double> want(8, -1);
  for (int i = 0; i <= 5; ++i) want[i] = (i * i) + (i + 2) * (i + 2);  // t[i+1] = x[i] + x[i+2]
  EXPECT_EQ(st.arrays[1].values, want);
}

TEST(Parsed, BoundsMessageNamesTheCall) {
  const char* src = R"(
parameter N=8;
iterator i;
double x[N], y[N+4];
copyin x, y;
stencil s (y, x) {
  y[i] = x[i];
}
[0:N+1] : s (y, x);
)";
  std::unique_ptr<SourceFile> f;
  DiagnosticEngine d;
  auto prog = parse(src, f, d);
  ASSERT_TRUE(prog) << renderAll(d);
  EXPECT_FALSE(checkBounds(*prog, {8}, d));
  ASSERT_EQ(d.errorCount(), 1) << renderAll(d);
  const Diagnostic& e = d.diagnostics().back();
  EXPECT_EQ(e.id, DiagId::out_of_bounds);
  EXPECT_EQ(e.loc.line(), 7);
  EXPECT_EQ(e.message,
            "access 'x[i]' reaches index 9 along i, outside 'x' (0..7 along i) in the call at "
            "test.tsl:9:1");
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_EQ(e.notes[0].first.line(), 9);
}

}  // namespace

namespace {

// 9.3 (local scalars per point, C-like), 9.5 (statement domains restrict iteration points), 6
// (`iterate lo:hi` inclusive).
TEST(Parsed, ScalarsStatementDomainsAndIterate) {
  const char* src = R"(
parameter N=6;
iterator i;
double A[N], B[N], C[N];
copyin A, B, C;
stencil s (A, B) {
  double r;
  r = A[i];
  A[i] = 2*A[i];
  B[i] = r;
}
stencil d (C, A) {
  [2:N-1] : C[i+1] = A[i];
}
iterate 1:2 {
  s (A, B);
}
d (C, A);
)";
  std::unique_ptr<SourceFile> f;
  DiagnosticEngine d;
  auto prog = parse(src, f, d);
  ASSERT_TRUE(prog) << renderAll(d);
  ProgramState st = zeroState(*prog, {6});
  st.arrays[0].values = {1, 2, 3, 4, 5, 6};
  st.arrays[2].values.assign(6, -1);
  ASSERT_TRUE(checkBounds(*prog, {6}, d)) << renderAll(d);
  interpret(*prog, st);
  EXPECT_EQ(st.arrays[0].values, (std::vector<double>{4, 8, 12, 16, 20, 24}));
  EXPECT_EQ(st.arrays[1].values, (std::vector<double>{2, 4, 6, 8, 10, 12}));  // A after one sweep
  // i in 2..4 (C[i+1] must stay inside [0:5]), writing C[3..5].
  EXPECT_EQ(st.arrays[2].values, (std::vector<double>{-1, -1, -1, 12, 16, 20}));
}

}  // namespace

// A literal prints as the shortest text that reads back as its value: a float literal as the
// float's (0.1f; before, the double 0.10000000149011612f that split and deep-tune -o wrote).
TEST(Literals, PrintShortestAndReadBack) {
  EXPECT_EQ(toString(floatLit(static_cast<float>(0.1), ScalarType::Float), {}), "0.1f");
  EXPECT_EQ(toString(floatLit(static_cast<float>(3.4028235e38), ScalarType::Float), {}),
            "3.4028235e+38f");
  EXPECT_EQ(toString(floatLit(0.1, ScalarType::Double), {}), "0.1");
  EXPECT_EQ(toString(floatLit(2.0, ScalarType::Double), {}), "2.0");
  for (float f : {0.1f, 1e-45f, 3.3333333f, 123456.79f}) {
    const std::string s = toString(floatLit(static_cast<double>(f), ScalarType::Float), {});
    EXPECT_EQ(static_cast<float>(std::strtod(s.c_str(), nullptr)), f) << s;
  }
}
