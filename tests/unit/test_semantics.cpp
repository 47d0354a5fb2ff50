// The semantics of language.md, one test (or a few) per rule of section 5 and per decision of
// section 9, on tiny grids with hand-computed expected values.
//
// Every test sets its inputs to simple deterministic values after makeState, runs the reference
// interpreter and compares EVERY element of every output, including the points outside the
// regions (which must keep the values the test put there). Expected values are literal vectors
// or tiny formulas written here, never computed by Tessel code. Where a rule is about regions,
// the statement regions from analysis/regions.h are asserted too.
#include <gtest/gtest.h>

#include <cmath>

#include "unit/sten_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// a[i] = i*i + 1: distinct, integer, asymmetric, so a wrong offset shows.
double sq1(int64_t i) { return static_cast<double>(i * i + 1); }
// An "untouched" marker value distinct per element: -(100 + i).
double mark(int64_t i) { return -100.0 - static_cast<double>(i); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Section 5: what a program computes
// ---------------------------------------------------------------------------------------------

// 5.1: calls run in textual order, each to completion before the next; the second call reads
// the first's output.
TEST(Semantics, Rule5_1_CallsRunInTextualOrder) {
  Session r = load(R"(
parameter N=6;
iterator i;
double a[N], b[N], c[N];
copyin a, b, c;
stencil inc (x, y) { x[i] = y[i] + 1.0; }
stencil dbl (x, y) { x[i] = 2.0 * y[i]; }
inc (b, a);
dbl (c, b);
inc (b, c);
copyout b, c;
)");
  const int N = 6;
  r.set("a", gen(N, sq1));
  r.set("b", gen(N, mark));
  r.set("c", gen(N, mark));
  r.run();
  // c = 2*(a+1); then b = c + 1.
  expectArray(r, "a", {1, 2, 5, 10, 17, 26});
  expectArray(r, "c", {4, 6, 12, 22, 36, 54});
  expectArray(r, "b", {5, 7, 13, 23, 37, 55});
}

// 5.2: statements run in textual order, each over its whole region before the next starts. The
// second statement reads the first's result at offsets -1 and +1 and must see all of it; the
// third reads a[i-1] before the fourth zeroes a (a point-by-point fused execution would read
// zeros there).
TEST(Semantics, Rule5_2_StatementsRunSequentiallyEachOverItsWholeRegion) {
  Session r = load(R"(
parameter N=7;
iterator i;
double a[N], t[N], b[N], u[N];
copyin a, t, b, u;
stencil s (t, b, u, a) {
  t[i] = 10.0 * a[i];
  b[i] = t[i-1] + t[i+1];
  u[i] = a[i-1];
  a[i] = 0.0;
}
s (t, b, u, a);
)");
  const int N = 7;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26 37
  r.set("t", gen(N, mark));
  r.set("b", gen(N, mark));
  r.set("u", gen(N, mark));
  r.run();
  expectArray(r, "t", {10, 20, 50, 100, 170, 260, 370});
  // b[i] = 10*(a[i-1] + a[i+1]) on 1..5
  expectArray(r, "b",
              {mark(0), 10 * (1 + 5), 10 * (2 + 10), 10 * (5 + 17), 10 * (10 + 26), 10 * (17 + 37),
               mark(6)});
  // u[i] = old a[i-1] on 1..6
  expectArray(r, "u", {mark(0), 1, 2, 5, 10, 17, 26});
  expectArray(r, "a", {0, 0, 0, 0, 0, 0, 0});
  expectBox(r.iter(0, 0), {0}, {6}, "t");
  expectBox(r.iter(0, 1), {1}, {5}, "b");
  expectBox(r.iter(0, 2), {1}, {6}, "u");
  expectBox(r.iter(0, 3), {0}, {6}, "a");
}

// 5.3: call domains are inclusive; with no domain, dimension d is [0 : P_d - 1].
TEST(Semantics, Rule5_3_CallDomainsAreInclusive) {
  {
    SCOPED_TRACE("1-D [1:N-2] and default domain");
    Session r = load(R"(
parameter N=7;
iterator i;
double a[N], b[N], c[N];
copyin a, b, c;
stencil s (x, y) { x[i] = y[i] + 100.0; }
[1:N-2] : s (b, a);
s (c, a);
)");
    const int N = 7;
    r.set("a", gen(N, sq1));  // 1 2 5 10 17 26 37
    r.set("b", gen(N, mark));
    r.set("c", gen(N, mark));
    r.run();
    expectArray(r, "b", {mark(0), 102, 105, 110, 117, 126, mark(6)});
    expectArray(r, "c", {101, 102, 105, 110, 117, 126, 137});
    expectBox(r.iter(0, 0), {1}, {5}, "[1:N-2] call");
    expectBox(r.iter(1, 0), {0}, {6}, "default domain call");
  }
  {
    SCOPED_TRACE("2-D [1:M-2, 2:N-1]");
    Session r = load(R"(
parameter M=4, N=5;
iterator j, i;
double a[M,N], b[M,N];
copyin a, b;
stencil s (x, y) { x[j][i] = y[j][i] + 100.0; }
[1:M-2, 2:N-1] : s (b, a);
)");
    const int M = 4, N = 5;
    std::vector<double> a(M * N), b(M * N), want(M * N);
    for (int j = 0; j < M; ++j)
      for (int i = 0; i < N; ++i) {
        a[j * N + i] = 10 * j + i;
        b[j * N + i] = -1;
        bool in = j >= 1 && j <= 2 && i >= 2 && i <= 4;
        want[j * N + i] = in ? 10 * j + i + 100 : -1;
      }
    r.set("a", a);
    r.set("b", b);
    r.run();
    expectArray(r, "b", want);
    expectBox(r.iter(0, 0), {1, 2}, {2, 4}, "2-D call");
  }
}

// 5.4: a 7-point stencil in 3-D on 5x5x5 computes 1..3 in every dimension.
TEST(Semantics, Rule5_4_SevenPoint3DShrinksToInterior) {
  Session r = load(R"(
parameter L=5, M=5, N=5;
iterator k, j, i;
double in[L,M,N], out[L,M,N];
copyin in, out;
stencil s7 (B, A) {
  B[k][j][i] = A[k][j][i+1] + 2.0*A[k][j][i-1] + 3.0*A[k][j+1][i] + 4.0*A[k][j-1][i]
             + 5.0*A[k+1][j][i] + 6.0*A[k-1][j][i] - 7.0*A[k][j][i];
}
s7 (out, in);
)");
  const int n = 5;
  auto f = [](int k, int j, int i) { return 3.0 * k * k + 7.0 * j + i * i + k * j * i; };
  std::vector<double> in(n * n * n), out(n * n * n, -1.0), want(n * n * n);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        int p = (k * n + j) * n + i;
        in[p] = f(k, j, i);
        bool interior = k >= 1 && k <= 3 && j >= 1 && j <= 3 && i >= 1 && i <= 3;
        want[p] = interior ? f(k, j, i + 1) + 2.0 * f(k, j, i - 1) + 3.0 * f(k, j + 1, i) +
                                 4.0 * f(k, j - 1, i) + 5.0 * f(k + 1, j, i) +
                                 6.0 * f(k - 1, j, i) - 7.0 * f(k, j, i)
                           : -1.0;
      }
  r.set("in", in);
  r.set("out", out);
  r.run();
  expectArray(r, "out", want);
  expectBox(r.iter(0, 0), {1, 1, 1}, {3, 3, 3}, "7-point");
}

// 5.4: a left-hand side written at an offset must stay inside the call domain too.
TEST(Semantics, Rule5_4_ShiftedLhsShrinksRegion) {
  Session r = load(R"(
parameter N=8;
iterator i;
double a[N], b[N], c[N];
copyin a, b, c;
stencil s (x, y, z) {
  x[i+1] = z[i];
  y[i-2] = z[i];
}
s (b, c, a);
)");
  const int N = 8;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26 37 50
  r.set("b", gen(N, mark));
  r.set("c", gen(N, mark));
  r.run();
  // b[i+1] = a[i] for i in 0..6: b[1..7] = a[0..6]
  expectArray(r, "b", {mark(0), 1, 2, 5, 10, 17, 26, 37});
  // c[i-2] = a[i] for i in 2..7: c[0..5] = a[2..7]
  expectArray(r, "c", {5, 10, 17, 26, 37, 50, mark(6), mark(7)});
  expectBox(r.iter(0, 0), {0}, {6}, "x[i+1] iteration");
  expectBox(r.written(0, 0), {1}, {7}, "x[i+1] written");
  expectBox(r.iter(0, 1), {2}, {7}, "y[i-2] iteration");
  expectBox(r.written(0, 1), {0}, {5}, "y[i-2] written");
}

// 5.4: a compound assignment reads its left-hand side: a `+=` on an array produced earlier is
// restricted to the producer's written region; on a fresh array it updates the old values.
TEST(Semantics, Rule5_4_CompoundAssignmentReadsItsLhs) {
  Session r = load(R"(
parameter N=8;
iterator i;
double a[N], t[N], u[N], v[N];
copyin a, t, u, v;
stencil s (t, u, v, y) {
  t[i] = y[i+1];
  t[i] += y[i];
  u[i] -= y[i-1];
  v[i] *= 3.0;
}
s (t, u, v, a);
)");
  const int N = 8;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26 37 50
  r.set("t", gen(N, mark));
  r.set("u", gen(N, [](int64_t i) { return 100.0 + i; }));
  r.set("v", gen(N, [](int64_t i) { return 1.0 + i; }));
  r.run();
  // t on 0..6 = a[i+1] + a[i]; t[7] never written
  expectArray(r, "t", {3, 7, 15, 27, 43, 63, 87, mark(7)});
  // u[i] = u[i] - a[i-1] on 1..7
  expectArray(r, "u", {100, 101 - 1, 102 - 2, 103 - 5, 104 - 10, 105 - 17, 106 - 26, 107 - 37});
  expectArray(r, "v", {3, 6, 9, 12, 15, 18, 21, 24});
  expectBox(r.iter(0, 0), {0}, {6}, "t = y[i+1]");
  expectBox(r.iter(0, 1), {0}, {6}, "t += y[i]");
  expectBox(r.iter(0, 2), {1}, {7}, "u -= y[i-1]");
  expectBox(r.iter(0, 3), {0}, {7}, "v *= 3");
}

// 5.4: the reads of the local scalars a statement uses count as its own reads.
TEST(Semantics, Rule5_4_LocalScalarReadsCountAsStatementReads) {
  Session r = load(R"(
parameter N=8;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (x, y) {
  double r;
  r = y[i-1] + y[i+2];
  x[i] = r * 2.0;
}
s (b, a);
)");
  const int N = 8;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26 37 50
  r.set("b", gen(N, mark));
  r.run();
  // b[i] = 2*(a[i-1] + a[i+2]) on 1..5
  expectArray(r, "b",
              {mark(0), 2 * (1 + 10), 2 * (2 + 17), 2 * (5 + 26), 2 * (10 + 37), 2 * (17 + 50),
               mark(6), mark(7)});
  expectBox(r.iter(0, 0), {1}, {5}, "r = ...");
  expectBox(r.iter(0, 1), {1}, {5}, "x[i] = r*2");
}

// 5.5: chains accumulate halos: two fused radius-1 steps compute the first on 1..N-2 and the
// second on 2..N-3.
TEST(Semantics, Rule5_5_ChainsAccumulateHalos) {
  Session r = load(R"(
parameter N=9;
iterator i;
double a[N], out[N];
copyin a, out;
stencil two (o, x) {
  double tmp[N];
  tmp[i] = x[i-1] + 2.0*x[i] + x[i+1];
  o[i] = tmp[i-1] + 2.0*tmp[i] + tmp[i+1];
}
two (out, a);
)");
  const int N = 9;
  auto a = gen(N, sq1);
  r.set("a", a);
  r.set("out", gen(N, mark));
  r.run();
  // Composition of (1,2,1) with itself is (1,4,6,4,1), on 2..6.
  std::vector<double> want = gen(N, mark);
  for (int i = 2; i <= 6; ++i)
    want[i] = a[i - 2] + 4 * a[i - 1] + 6 * a[i] + 4 * a[i + 1] + a[i + 2];
  expectArray(r, "out", want);
  expectBox(r.iter(0, 0), {1}, {7}, "tmp (first step)");
  expectBox(r.iter(0, 1), {2}, {6}, "out (second step)");
}

// 5.6: statement domains intersect the region; they never enlarge it.
TEST(Semantics, Rule5_6_StatementDomainsIntersectAndNeverEnlarge) {
  Session r = load(R"(
parameter N=8;
iterator i;
double a[N], b[N], c[N], d[N];
copyin a, b, c, d;
stencil s (x, y, z, w) {
  [0:N-1] : x[i] = w[i+1];
  [2:N-1] : y[i] = w[i+1];
  [0:3] : z[i] = w[i];
}
[1:N-2] : s (b, c, d, a);
)");
  const int N = 8;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26 37 50
  r.set("b", gen(N, mark));
  r.set("c", gen(N, mark));
  r.set("d", gen(N, mark));
  r.run();
  // call domain 1..6; reading w[i+1] inside it gives 1..5
  expectArray(r, "b", {mark(0), 5, 10, 17, 26, 37, mark(6), mark(7)});
  expectArray(r, "c", {mark(0), mark(1), 10, 17, 26, 37, mark(6), mark(7)});
  expectArray(r, "d", {mark(0), 2, 5, 10, mark(4), mark(5), mark(6), mark(7)});
  expectBox(r.iter(0, 0), {1}, {5}, "[0:N-1] statement domain");
  expectBox(r.iter(0, 1), {2}, {5}, "[2:N-1] statement domain");
  expectBox(r.iter(0, 2), {1}, {3}, "[0:3] statement domain");
}

// 5.7: points outside a statement's region are never written: copied-in outputs keep their
// values, allocin outputs stay zero.
TEST(Semantics, Rule5_7_PointsOutsideTheRegionAreNeverWritten) {
  Session r = load(R"(
parameter N=7;
iterator i;
double a[N], b[N], c[N];
copyin a, b;
allocin c;
stencil s (x, y) { x[i] = y[i-1] + y[i+1]; }
s (b, a);
s (c, a);
copyout b, c;
)");
  const int N = 7;
  expectArray(r, "c", std::vector<double>(N, 0.0));  // allocin starts at zero
  r.set("a", gen(N, sq1));                           // 1 2 5 10 17 26 37
  r.set("b", gen(N, [](int64_t i) { return 50.0 + i; }));
  r.run();
  expectArray(r, "b", {50, 1 + 5, 2 + 10, 5 + 17, 10 + 26, 17 + 37, 56});
  expectArray(r, "c", {0, 1 + 5, 2 + 10, 5 + 17, 10 + 26, 17 + 37, 0});
}

// 5.8: reading and writing the same array at different offsets in one statement is rejected,
// with a hint towards ping-pong buffers.
TEST(Semantics, Rule5_8_SelfDependenceAtAnOffsetIsRejected) {
  Compiled c = compileText(R"(
parameter N=8;
iterator i;
double a[N];
copyin a;
stencil s (x) { x[i] = x[i-1] + x[i]; }
s (a);
)");
  EXPECT_FALSE(c.prog.has_value());
  EXPECT_TRUE(c.has("offset_self_dependence")) << c.diagText();
  std::string t = c.textOf("offset_self_dependence");
  EXPECT_NE(t.find("ping"), std::string::npos) << "no ping-pong suggestion in: " << t;
}

// 5.8: reading it at the same point is fine (also with a shifted left-hand side).
TEST(Semantics, Rule5_8_SelfReadAtTheSamePointIsAccepted) {
  Session r = load(R"(
parameter N=6;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (a) { a[i] = 2*a[i]; }
stencil t (x) { x[i+1] = 3.0 * x[i+1]; }
s (a);
t (b);
)");
  const int N = 6;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26
  r.set("b", gen(N, sq1));
  r.run();
  expectArray(r, "a", {2, 4, 10, 20, 34, 52});
  expectArray(r, "b", {1, 6, 15, 30, 51, 78});
  expectBox(r.iter(1, 0), {0}, {4}, "x[i+1] = 3*x[i+1]");
}

// 5.9: no implicit time loop or buffer swap: repeating a call recomputes the same output;
// time stepping is written with swapped arguments.
TEST(Semantics, Rule5_9_NoImplicitTimeLoopOrBufferSwap) {
  Session r = load(R"(
parameter N=5;
iterator i;
double a[N], b[N], c[N], d[N];
copyin a, b, c, d;
stencil inc (x, y) { x[i] = y[i] + 1.0; }
iterate 1:3 { inc (b, a); }
iterate 1:3 { inc (d, c); inc (c, d); }
)");
  const int N = 5;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17
  r.set("b", gen(N, mark));
  r.set("c", gen(N, sq1));
  r.set("d", gen(N, mark));
  r.run();
  expectArray(r, "a", {1, 2, 5, 10, 17});
  expectArray(r, "b", {2, 3, 6, 11, 18});
  expectArray(r, "c", {7, 8, 11, 16, 23});  // +6 after three ping-pong pairs
  expectArray(r, "d", {6, 7, 10, 15, 22});
}

// ---------------------------------------------------------------------------------------------
// Section 9: decisions on corner cases
// ---------------------------------------------------------------------------------------------

// 9.1: the example, exactly: t on 1..N-2 and y on 0..N-3.
TEST(Semantics, Decision9_1_RegionRuleExample) {
  Session r = load(R"(
parameter N=8;
iterator i;
double x[N], t[N], y[N];
copyin x, t, y;
stencil s (t, y, x) {
  t[i] = x[i-1] + x[i+1];
  y[i] = t[i+1];
}
[0:N-1] : s (t, y, x);
)");
  const int N = 8;
  r.set("x", gen(N, sq1));  // 1 2 5 10 17 26 37 50
  r.set("t", gen(N, mark));
  r.set("y", gen(N, mark));
  r.run();
  // t[i] = x[i-1] + x[i+1] on 1..6
  expectArray(r, "t", {mark(0), 6, 12, 22, 36, 54, 76, mark(7)});
  // y[i] = t[i+1] = x[i] + x[i+2] on 0..5
  expectArray(r, "y", {6, 12, 22, 36, 54, 76, mark(6), mark(7)});
  expectBox(r.iter(0, 0), {1}, {6}, "t");
  expectBox(r.iter(0, 1), {0}, {5}, "y");
}

// 9.2: with several writers, the region that counts is the written region of the latest one
// (smaller or larger than an earlier writer's).
TEST(Semantics, Decision9_2_LatestWriterCounts) {
  Session r = load(R"(
parameter N=8;
iterator i;
double a[N], t[N], b[N], u[N], c[N];
copyin a, t, b, u, c;
stencil s1 (t, b, y) {
  t[i] = y[i];
  t[i] = 10.0 * y[i+1];
  b[i] = t[i+1];
}
stencil s2 (u, c, y) {
  u[i] = y[i+1];
  u[i] = 3.0 * y[i];
  c[i] = u[i+1];
}
s1 (t, b, a);
s2 (u, c, a);
)");
  const int N = 8;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26 37 50
  for (auto n : {"t", "b", "u", "c"}) r.set(n, gen(N, mark));
  r.run();
  expectArray(r, "t", {20, 50, 100, 170, 260, 370, 500, 50});
  // latest writer of t wrote 0..6, so b[i] = t[i+1] runs on 0..5
  expectArray(r, "b", {50, 100, 170, 260, 370, 500, mark(6), mark(7)});
  expectArray(r, "u", {3, 6, 15, 30, 51, 78, 111, 150});
  // latest writer of u wrote 0..7, so c[i] = u[i+1] runs on 0..6
  expectArray(r, "c", {6, 15, 30, 51, 78, 111, 150, mark(7)});
  expectBox(r.iter(0, 0), {0}, {7}, "s1 t = y");
  expectBox(r.iter(0, 1), {0}, {6}, "s1 t = 10*y[i+1]");
  expectBox(r.iter(0, 2), {0}, {5}, "s1 b");
  expectBox(r.iter(1, 0), {0}, {6}, "s2 u = y[i+1]");
  expectBox(r.iter(1, 1), {0}, {7}, "s2 u = 3*y");
  expectBox(r.iter(1, 2), {0}, {6}, "s2 c");
}

// 9.3: local scalars are C-like per point: the example stores the old A; a reassigned scalar
// holds its latest value.
TEST(Semantics, Decision9_3_LocalScalarsAreCLikePerPoint) {
  Session r = load(R"(
parameter N=6;
iterator i;
double A[N], B[N], x[N], y[N], z[N];
copyin A, B, x, y, z;
stencil s (A, B) {
  double r;
  r = A[i];
  A[i] = 2*A[i];
  B[i] = r;
}
stencil t (x, z, y) {
  double r;
  r = y[i];
  x[i] = r;
  r = 10.0 * y[i];
  z[i] = r + x[i];
}
s (A, B);
t (x, z, y);
)");
  const int N = 6;
  r.set("A", gen(N, sq1));  // 1 2 5 10 17 26
  r.set("B", gen(N, mark));
  r.set("x", gen(N, mark));
  r.set("y", gen(N, sq1));
  r.set("z", gen(N, mark));
  r.run();
  expectArray(r, "A", {2, 4, 10, 20, 34, 52});
  expectArray(r, "B", {1, 2, 5, 10, 17, 26});
  expectArray(r, "x", {1, 2, 5, 10, 17, 26});
  expectArray(r, "z", {11, 22, 55, 110, 187, 286});
}

// 9.3: a statement that uses a scalar is restricted to the points where the scalar's (latest)
// assignment was evaluated.
TEST(Semantics, Decision9_3_ScalarUseRestrictsTheRegion) {
  Session r = load(R"(
parameter N=8;
iterator i;
double a[N], x[N], z[N];
copyin a, x, z;
stencil s (x, z, y) {
  double r;
  [2:N-1] : r = y[i];
  x[i] = r + 1.0;
  r = y[i+1];
  z[i] = r;
}
s (x, z, a);
)");
  const int N = 8;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26 37 50
  r.set("x", gen(N, mark));
  r.set("z", gen(N, mark));
  r.run();
  expectArray(r, "x", {mark(0), mark(1), 6, 11, 18, 27, 38, 51});
  expectArray(r, "z", {2, 5, 10, 17, 26, 37, 50, mark(7)});
  expectBox(r.iter(0, 0), {2}, {7}, "[2:N-1] : r = y[i]");
  expectBox(r.iter(0, 1), {2}, {7}, "x[i] = r + 1");
  expectBox(r.iter(0, 2), {0}, {6}, "r = y[i+1]");
  expectBox(r.iter(0, 3), {0}, {6}, "z[i] = r");
}

// 9.3 / 9.6 / 5.8: the self-dependence check sees through local scalars; a same-point read
// through a scalar is fine. Reading a scalar before any assignment is an error.
TEST(Semantics, Decision9_3_SelfDependenceThroughLocalScalar) {
  {
    Compiled c = compileText(R"(
parameter N=8;
iterator i;
double a[N];
copyin a;
stencil s (x) {
  double r;
  r = x[i-1];
  x[i] = r;
}
s (a);
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("offset_self_dependence")) << c.diagText();
  }
  {
    Session r = load(R"(
parameter N=5;
iterator i;
double a[N];
copyin a;
stencil s (x) {
  double r;
  r = x[i];
  x[i] = r * 2.0;
}
s (a);
)");
    r.set("a", gen(5, sq1));
    r.run();
    expectArray(r, "a", {2, 4, 10, 20, 34});
  }
  {
    Compiled c = compileText(R"(
parameter N=8;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (x, y) {
  double r;
  x[i] = r + y[i];
}
s (b, a);
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("scalar_before_assignment")) << c.diagText();
  }
}

// 9.4: with an inout: mark, other arrays written in the body are scratch: not stored back. Each
// call starts its scratch copy afresh from the global. Without marks, every write is stored.
TEST(Semantics, Decision9_4_InoutMakesOtherWrittenArraysScratch) {
  Session r = load(R"(
parameter N=6;
iterator i;
double a[N], t[N], b[N], t2[N], b2[N];
copyin a, t, b, t2, b2;
stencil marked (inout:b, t, a) {
  b[i] = t[i] + a[i];
  t[i] = 5.0 * a[i];
}
stencil unmarked (b, t, a) {
  b[i] = t[i] + a[i];
  t[i] = 5.0 * a[i];
}
iterate 1:2 { marked (b, t, a); }
iterate 1:2 { unmarked (b2, t2, a); }
)");
  EXPECT_FALSE(r.c.has("scratch_read_later")) << r.c.diagText();
  const int N = 6;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26
  r.set("t", gen(N, [](int64_t i) { return 100.0 * i; }));
  r.set("b", gen(N, mark));
  r.set("t2", gen(N, [](int64_t i) { return 100.0 * i; }));
  r.set("b2", gen(N, mark));
  r.run();
  // marked: t is scratch, so the global t never changes and both calls compute t0 + a
  expectArray(r, "t", {0, 100, 200, 300, 400, 500});
  expectArray(r, "b", {1, 102, 205, 310, 417, 526});
  // unmarked: the first call stores t = 5a, the second computes 5a + a
  expectArray(r, "t2", {5, 10, 25, 50, 85, 130});
  expectArray(r, "b2", {6, 12, 30, 60, 102, 156});
}

// 9.4: Tessel warns when a scratch array is later read by another call or copied out.
TEST(Semantics, Decision9_4_ScratchReadLaterWarns) {
  {
    Session r = load(R"(
parameter N=5;
iterator i;
double a[N], t[N], b[N], c[N];
copyin a, t, b, c;
stencil s (inout:b, t, a) { t[i] = 2.0 * a[i]; b[i] = t[i] + 1.0; }
stencil cp (x, y) { x[i] = y[i]; }
s (b, t, a);
cp (c, t);
)");
    EXPECT_TRUE(r.c.has("scratch_read_later")) << r.c.diagText();
    r.set("a", gen(5, sq1));  // 1 2 5 10 17
    r.set("t", gen(5, mark));
    r.set("b", gen(5, mark));
    r.set("c", gen(5, mark));
    r.run();
    expectArray(r, "b", {3, 5, 11, 21, 35});
    expectArray(r, "t", gen(5, mark));
    expectArray(r, "c", gen(5, mark));
  }
  {
    Compiled c = compileText(R"(
parameter N=5;
iterator i;
double a[N], t[N], b[N];
copyin a, t, b;
stencil s (inout:b, t, a) { t[i] = 2.0 * a[i]; b[i] = t[i] + 1.0; }
s (b, t, a);
copyout b, t;
)");
    EXPECT_TRUE(c.prog.has_value()) << c.diagText();
    EXPECT_TRUE(c.has("scratch_read_later")) << c.diagText();
  }
}

// 9.5: statement domains restrict iteration points, not written points.
TEST(Semantics, Decision9_5_StatementDomainRestrictsIterationPoints) {
  Session r = load(R"(
parameter N=8;
iterator i;
double A[N], B[N];
copyin A, B;
stencil s (B, A) {
  [2:N-1] : B[i+1] = A[i];
}
s (B, A);
)");
  const int N = 8;
  r.set("A", gen(N, sq1));  // 1 2 5 10 17 26 37 50
  r.set("B", gen(N, mark));
  r.run();
  expectArray(r, "A", {1, 2, 5, 10, 17, 26, 37, 50});
  expectArray(r, "B", {mark(0), mark(1), mark(2), 5, 10, 17, 26, 37});
  expectBox(r.iter(0, 0), {2}, {6}, "iteration points");
  expectBox(r.written(0, 0), {3}, {7}, "written points");
}

// 9.6: fixed planes add no constraint on arrays not written earlier in the body.
TEST(Semantics, Decision9_6_FixedPlanesOfInputsAddNoConstraint) {
  Session r = load(R"(
parameter M=4, N=5;
iterator j, i;
double a[M,N], b[M,N];
copyin a, b;
stencil s (x, y) { x[j][i] = y[j][0] + y[0][i] + y[3][4]; }
s (b, a);
)");
  const int M = 4, N = 5;
  std::vector<double> a(M * N), want(M * N);
  for (int j = 0; j < M; ++j)
    for (int i = 0; i < N; ++i) a[j * N + i] = 10 * j + i * i;
  for (int j = 0; j < M; ++j)
    for (int i = 0; i < N; ++i) want[j * N + i] = (10 * j) + (i * i) + (30 + 16);
  r.set("a", a);
  r.set("b", std::vector<double>(M * N, -1.0));
  r.run();
  expectArray(r, "b", want);
  expectBox(r.iter(0, 0), {0, 0}, {3, 4}, "fixed planes of an input");
}

// 9.6: on an array written earlier, 9.1 applies to the fixed element too: outside the
// producer's written region the statement's region is empty; inside, no shrinking.
TEST(Semantics, Decision9_6_FixedPlanesOfProducedArrays) {
  Session r = load(R"(
parameter M=4, N=5;
iterator j, i;
double a[M,N], t[M,N], b[M,N], u[M,N];
copyin a, t, b, u;
stencil p (t, x, w, y) {
  t[j][i] = y[j][i] * 2.0;
  x[j][i] = t[j][0];
  w[j][i] = t[j][2] + t[1][i];
}
[1:M-2][1:N-2] : p (t, b, u, a);
)");
  const int M = 4, N = 5;
  auto A = [](int j, int i) { return 10.0 * j + i * i; };
  std::vector<double> a(M * N), tw(M * N), uw(M * N);
  for (int j = 0; j < M; ++j)
    for (int i = 0; i < N; ++i) {
      a[j * N + i] = A(j, i);
      bool in = j >= 1 && j <= 2 && i >= 1 && i <= 3;
      tw[j * N + i] = in ? 2 * A(j, i) : -1;
      uw[j * N + i] = in ? 2 * A(j, 2) + 2 * A(1, i) : -3;
    }
  r.set("a", a);
  r.set("t", std::vector<double>(M * N, -1.0));
  r.set("b", std::vector<double>(M * N, -2.0));
  r.set("u", std::vector<double>(M * N, -3.0));
  r.run();
  expectArray(r, "t", tw);
  expectArray(r, "b", std::vector<double>(M * N, -2.0));  // t[j][0] is outside t's region
  expectArray(r, "u", uw);
  expectBox(r.iter(0, 0), {1, 1}, {2, 3}, "t");
  EXPECT_TRUE(r.iter(0, 1).empty) << "x[j][i] = t[j][0] should have an empty region";
  expectBox(r.iter(0, 2), {1, 1}, {2, 3}, "w = t[j][2] + t[1][i]");
}

// 9.6: self-dependence through fixed planes and through aliased actual arguments is rejected;
// aliased arguments read at the same point are fine. Fixed planes are checked against extents.
TEST(Semantics, Decision9_6_SelfDependenceThroughFixedPlanesAndAliases) {
  {
    SCOPED_TRACE("fixed plane");
    Compiled c = compileText(R"(
parameter M=4, N=5;
iterator j, i;
double a[M,N];
copyin a;
stencil s (x) { x[j][i] = x[j][0] + 1.0; }
s (a);
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("offset_self_dependence")) << c.diagText();
  }
  {
    SCOPED_TRACE("aliased actual arguments s(a, a)");
    Compiled c = compileText(R"(
parameter N=8;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (x, y) { x[i] = y[i-1]; }
s (b, a);
s (a, a);
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("offset_self_dependence")) << c.diagText();
  }
  {
    SCOPED_TRACE("aliased arguments at the same point");
    Session r = load(R"(
parameter N=5;
iterator i;
double a[N];
copyin a;
stencil d (x, y) { x[i] = 2.0 * y[i]; }
d (a, a);
)");
    r.set("a", gen(5, sq1));
    r.run();
    expectArray(r, "a", {2, 4, 10, 20, 34});
  }
  {
    SCOPED_TRACE("fixed plane outside the extent");
    Compiled c = compileText(R"(
parameter M=4, N=5;
iterator j, i;
double a[M,N], b[M,N];
copyin a, b;
stencil s (x, y) { x[j][i] = y[j][7]; }
s (b, a);
)");
    bool rejected = !c.prog.has_value() || c.diags.hasErrors();
    if (!rejected) {
      auto p = defaultParams(*c.prog);
      ASSERT_TRUE(p.has_value());
      rejected = !checkBounds(*c.prog, *p, c.diags);
    }
    EXPECT_TRUE(rejected);
    EXPECT_TRUE(c.has("out_of_bounds")) << c.diagText();
  }
}

// 9.7: names in bodies: globals not passed as formals, formals shadowing globals, iterators and
// parameters as int values; a 1-D coefficient array is read by iterator name.
TEST(Semantics, Decision9_7_NamesInBodies) {
  Session r = load(R"(
parameter N=6;
iterator i;
double a[N], b[N], g[N], out1[N], out2[N], out3[N];
double sc;
copyin a, b, g, sc, out1, out2, out3;
stencil useglobal (x) { x[i] = g[i] * sc; }
stencil shadow (b, a) { b[i] = a[i] + 1000.0; }
stencil iters (x, y) { x[i] = select(i == 0, 100.0, y[i]) + i * N + i / 4; }
useglobal (out1);
shadow (out2, b);
iters (out3, a);
)");
  const int N = 6;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26
  r.set("b", gen(N, [](int64_t i) { return 7.0 * i; }));
  r.set("g", gen(N, [](int64_t i) { return 2.0 + i; }));
  r.setScalar("sc", 2.5);
  for (auto n : {"out1", "out2", "out3"}) r.set(n, gen(N, mark));
  r.run();
  expectArray(r, "out1", {5, 7.5, 10, 12.5, 15, 17.5});
  // formal 'a' is bound to global b: out2 = b + 1000; globals a and b untouched
  expectArray(r, "out2", {1000, 1007, 1014, 1021, 1028, 1035});
  expectArray(r, "a", {1, 2, 5, 10, 17, 26});
  expectArray(r, "b", {0, 7, 14, 21, 28, 35});
  // select(i == 0, 100, a[i]) + 6*i + i/4 (integer division)
  expectArray(r, "out3", {100, 2 + 6, 5 + 12, 10 + 18, 17 + 24 + 1, 26 + 30 + 1});
}

// 9.7: a 1-D coefficient array in a 2-D program is read by iterator name (its offset shrinks the
// region along that iterator) and cannot be written; global scalars cannot be assigned.
TEST(Semantics, Decision9_7_CoefficientArraysAndForbiddenAssignments) {
  {
    Session r = load(R"(
parameter M=3, N=4;
iterator j, i;
double a[M,N], b[M,N], cf[N];
copyin a, b, cf;
stencil s (x, y, c) { x[j][i] = y[j][i] * c[i-1]; }
s (b, a, cf);
)");
    const int M = 3, N = 4;
    std::vector<double> a(M * N), want(M * N);
    std::vector<double> cf = {2, 3, 5, 7};
    for (int j = 0; j < M; ++j)
      for (int i = 0; i < N; ++i) {
        a[j * N + i] = 10 * j + i;
        want[j * N + i] = i >= 1 ? (10 * j + i) * cf[i - 1] : -1;
      }
    r.set("a", a);
    r.set("cf", cf);
    r.set("b", std::vector<double>(M * N, -1.0));
    r.run();
    expectArray(r, "b", want);
    expectBox(r.iter(0, 0), {0, 1}, {2, 3}, "coefficient read c[i-1]");
  }
  {
    SCOPED_TRACE("writing a 1-D coefficient array in a 2-D program");
    Compiled c = compileText(R"(
parameter M=3, N=4;
iterator j, i;
double a[M,N], cf[N];
copyin a, cf;
stencil s (c, y) { c[i] = y[0][i]; }
s (cf, a);
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("bad_lhs")) << c.diagText();
  }
  {
    SCOPED_TRACE("fixed plane on a left-hand side");
    Compiled c = compileText(R"(
parameter M=3, N=4;
iterator j, i;
double a[M,N], b[M,N];
copyin a, b;
stencil s (x, y) { x[0][i] = y[j][i]; }
s (b, a);
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("bad_lhs")) << c.diagText();
  }
  {
    SCOPED_TRACE("assigning a global scalar");
    Compiled c = compileText(R"(
parameter N=4;
iterator i;
double a[N];
double sc;
copyin a, sc;
stencil s (x) { sc = x[i]; }
s (a);
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("assign_global_scalar")) << c.diagText();
  }
}

// 9.8: allocin arrays and arrays in no list start at zero; copyin and constant arrays take host
// values; a name in both copyin and allocin is copied in (warning); scalars in copyout are
// ignored (warning); constant arrays cannot be written.
TEST(Semantics, Decision9_8_Data) {
  Session r = load(R"(
parameter N=5;
iterator i;
double a[N], b[N], c[N], k[N], d[N], e[N];
double s;
copyin a, e;
allocin b, e;
constant k;
copyout s, d;
stencil mul (x, y) { x[i] = y[i] * k[i]; }
mul (d, a);
)");
  EXPECT_TRUE(r.c.has("copyin_and_allocin")) << r.c.diagText();
  EXPECT_TRUE(r.c.has("copyout_scalar")) << r.c.diagText();
  const int N = 5;
  expectArray(r, "b", std::vector<double>(N, 0.0));  // allocin
  expectArray(r, "c", std::vector<double>(N, 0.0));  // no list
  expectArray(r, "d", std::vector<double>(N, 0.0));  // only copyout
  // copied-in and constant arrays hold host values (makeState: seeded, in [0.5, 1.5))
  for (auto n : {"a", "e", "k"})
    for (double v : r.values(n)) EXPECT_TRUE(v >= 0.5 && v < 1.5) << n << " holds " << v;
  r.set("a", gen(N, sq1));
  r.set("k", {2, 3, 4, 5, 6});
  r.run();
  expectArray(r, "d", {2, 6, 20, 50, 102});
  expectArray(r, "k", {2, 3, 4, 5, 6});

  Compiled c = compileText(R"(
parameter N=5;
iterator i;
double a[N], k[N];
copyin a;
constant k;
stencil w (x, y) { x[i] = y[i]; }
w (k, a);
)");
  EXPECT_FALSE(c.prog.has_value());
  EXPECT_TRUE(c.has("assign_constant")) << c.diagText();
}

// 9.9: types: int / and % truncate toward zero, % on floating operands is fmod, int ^ int is an
// integer power, bool -> int in arithmetic, comparisons give bool, conversion on store.
TEST(Semantics, Decision9_9_IntegerAndComparisonTypes) {
  Session r = load(R"(
parameter N=5;
iterator i;
int p[N], q[N], idiv[N], imod[N], ipow[N], bsum[N], itrunc[N];
double x[N], y[N], dmod[N], dpow[N], dint[N], dcmp[N], dsq[N];
bool bb[N];
copyin p, q, x, y;
stencil ints (p, q, x, y, idiv, imod, ipow, bsum, itrunc, dmod, dpow, dint, dcmp, dsq, bb) {
  idiv[i] = p[i] / q[i];
  imod[i] = p[i] % q[i];
  ipow[i] = p[i] ^ 3;
  dpow[i] = (p[i] ^ 2) / 10;
  dint[i] = p[i] / q[i] + 0.5;
  dmod[i] = x[i] % y[i];
  itrunc[i] = x[i];
  bsum[i] = (p[i] > 0) + (q[i] > 0) + (x[i] < y[i]);
  dcmp[i] = (p[i] == 7) * 1.0 + (p[i] != 7) * 10.0 + (x[i] <= y[i]) * 100.0 + (x[i] >= 7.5) * 1000.0;
  bb[i] = p[i] > q[i];
  dsq[i] = sqrt(q[i] * q[i] + 1);
}
ints (p, q, x, y, idiv, imod, ipow, bsum, itrunc, dmod, dpow, dint, dcmp, dsq, bb);
)");
  r.set("p", {7, -7, 7, -7, 9});
  r.set("q", {2, 2, -2, -2, 3});
  r.set("x", {7.5, -7.5, 7.5, -7.5, 1.25});
  r.set("y", {2, 2, -2, -2, 0.5});
  r.run();
  expectArray(r, "idiv", {3, -3, -3, 3, 3});
  expectArray(r, "imod", {1, -1, 1, -1, 0});
  expectArray(r, "ipow", {343, -343, 343, -343, 729});
  expectArray(r, "dpow", {4, 4, 4, 4, 8});  // (49 or 81) / 10 in int
  expectArray(r, "dint", {3.5, -2.5, -2.5, 3.5, 3.5});
  expectArray(r, "dmod", {1.5, -1.5, 1.5, -1.5, 0.25});
  expectArray(r, "itrunc", {7, -7, 7, -7, 1});
  expectArray(r, "bsum", {2, 2, 1, 1, 2});
  expectArray(r, "dcmp", {1001, 110, 1001, 110, 10});
  expectArray(r, "bb", {1, 0, 1, 0, 1});
  expectArray(r, "dsq",
              {std::sqrt(5.0), std::sqrt(5.0), std::sqrt(5.0), std::sqrt(5.0), std::sqrt(10.0)});
}

// 9.9: a float program is evaluated in double by the reference and rounded on store; a float
// local scalar is rounded at each assignment.
TEST(Semantics, Decision9_9_FloatRoundingOnStore) {
  Session r = load(R"(
parameter N=5;
iterator i;
double z[N], fr[N];
float f[N], h[N], g[N];
copyin z, h, fr, f, g;
stencil s (f, fr, g, z, h) {
  float r;
  r = z[i] / 3.0;
  f[i] = z[i] / 3.0;
  fr[i] = r * 3.0;
  g[i] = h[i] * 0.1;
}
s (f, fr, g, z, h);
)");
  std::vector<double> z = {1, 2, 5, 7, 10};
  std::vector<double> h = {1, 3, 7, 11, 13};  // exactly representable in float
  r.set("z", z);
  r.set("h", h);
  r.run();
  std::vector<double> f, fr, g;
  for (int k = 0; k < 5; ++k) {
    f.push_back(static_cast<double>(static_cast<float>(z[k] / 3.0)));
    fr.push_back(static_cast<double>(static_cast<float>(z[k] / 3.0)) * 3.0);
    g.push_back(static_cast<double>(static_cast<float>(h[k] * 0.1)));
  }
  expectArray(r, "f", f, 0.0);
  expectArray(r, "fr", fr, 0.0);
  expectArray(r, "g", g, 0.0);
}

// 9.9: a negative integer power is an error (at run time here).
TEST(Semantics, Decision9_9_NegativeIntegerPowerIsAnError) {
  Session r = load(R"(
parameter N=3;
iterator i;
int p[N], q[N], o[N];
copyin p, q, o;
stencil s (o, p, q) { o[i] = p[i] ^ q[i]; }
s (o, p, q);
)");
  r.set("p", {2, 2, 2});
  r.set("q", {1, -1, 2});
  EXPECT_THROW(r.run(), RuntimeError);
}

// 9.10: initialised locals are evaluated once per call, in declaration order (each may use the
// earlier ones, converted to the declared type); each call evaluates its own.
TEST(Semantics, Decision9_10_InitialisedLocalsPerCall) {
  Session r = load(R"(
parameter N=5;
iterator i;
double a[N], b[N], c[N];
double p, q;
copyin a, b, c, p, q;
stencil s (x, y, sc) {
  double c1 = sc * 2.0;
  double c2 = c1 + 1.0;
  int m = sc * 2.5;
  x[i] = y[i] * c2 + m;
}
s (b, a, p);
s (c, a, q);
)");
  r.set("a", gen(5, sq1));  // 1 2 5 10 17
  r.set("b", gen(5, mark));
  r.set("c", gen(5, mark));
  r.setScalar("p", 1.5);  // c2 = 4, m = int(3.75) = 3
  r.setScalar("q", 3.0);  // c2 = 7, m = int(7.5) = 7
  r.run();
  expectArray(r, "b", {7, 11, 23, 43, 71});
  expectArray(r, "c", {14, 21, 42, 77, 126});
}

// 9.10: locals the body never uses are warned about once each (not once per call) and left out
// of every instance, so no backend emits them; an initialised local read only by unused ones is
// unused too. Locals a statement assigns are used (their statements run), and results are those
// of the program without the unused locals. A local assigned but never read is warned about
// too (its statements compute values nothing reads; they still run).
TEST(Semantics, Decision9_10_UnusedLocalsAreWarnedOnceAndLeftOut) {
  Session r = load(R"(
parameter N=5;
iterator i;
double a[N], b[N], c[N];
double p;
copyin a, b, c, p;
stencil s (x, y, sc) {
  double u1 = 0.5;
  double c1 = sc * 2.0;
  double u2 = c1 * 4.0;
  double u3 = u2 + 1.0;
  double c2 = c1 + 1.0;
  double ur;
  double ut[N];
  double r;
  double t[N];
  t[i] = y[i] * c2;
  r = t[i];
  x[i] = t[i] + 1.0;
}
s (b, a, p);
s (c, b, p);
)");
  EXPECT_EQ(r.c.count("unused_local"), 6) << r.c.diagText();
  for (const char* name :
       {"'u1' is never used", "'u2' is used only by unused local 'u3'", "'u3' is never used",
        "local scalar 'ur' is never used", "local array 'ut' is never used",
        "local scalar 'r' is assigned but never read in stencil 's'"}) {
    int n = 0;
    for (auto& d : r.c.diags.diagnostics())
      n += d.id == DiagId::unused_local && d.message.find(name) != std::string::npos;
    EXPECT_EQ(n, 1) << name << "\n" << r.c.diagText();
  }
  ASSERT_EQ(r.prog().calls.size(), 2u);
  for (auto& call : r.prog().calls) {
    std::vector<std::string> inits, scalars, arrays;
    for (auto& x : call.inits) inits.push_back(x.name);
    for (auto& x : call.localScalars) scalars.push_back(x.name);
    for (auto& x : call.localArrays) arrays.push_back(x.name);
    EXPECT_EQ(inits, (std::vector<std::string>{"c1", "c2"}));
    EXPECT_EQ(scalars, std::vector<std::string>{"r"});
    EXPECT_EQ(arrays, std::vector<std::string>{"t"});
  }
  r.set("a", gen(5, sq1));  // 1 2 5 10 17
  r.setScalar("p", 1.5);    // c2 = 4
  r.run();
  expectArray(r, "b", {5, 9, 21, 41, 69});
  expectArray(r, "c", {21, 37, 85, 165, 277});
}

// 9.10: local arrays are fresh at every call: written only in part, they are read only where
// this call wrote them, whatever an earlier call left; reading one before any write is an error.
TEST(Semantics, Decision9_10_LocalArraysAreFreshAtEveryCall) {
  Session r = load(R"(
parameter N=6;
iterator i;
double a[N], b[N], c[N], d[N], e[N];
copyin a, b, c, d, e;
stencil s (x, y) {
  double tmp[N];
  [1:3] : tmp[i] = y[i];
  tmp[i] += 1.0;
  x[i] = tmp[i];
}
stencil full (x, y) {
  double tmp[N];
  tmp[i] = 10.0 * y[i];
  x[i] = tmp[i];
}
iterate 1:2 { full (c, a); s (b, a); }
[2:3] : full (d, e);
)");
  const int N = 6;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26
  r.set("e", gen(N, [](int64_t i) { return 3.0 + i; }));
  r.set("b", gen(N, mark));
  r.set("c", gen(N, mark));
  r.set("d", gen(N, mark));
  r.run();
  expectArray(r, "b", {mark(0), 3, 6, 11, mark(4), mark(5)});
  expectArray(r, "c", {10, 20, 50, 100, 170, 260});
  // the third call writes its tmp on 2..3 only and stores just those points
  expectArray(r, "d", {mark(0), mark(1), 50, 60, mark(4), mark(5)});
  expectBox(r.iter(2, 0), {2}, {3}, "partial call: tmp");
  expectBox(r.iter(2, 1), {2}, {3}, "partial call: x = tmp");
  expectBox(r.iter(1, 1), {1}, {3}, "tmp += 1");
  expectBox(r.iter(1, 2), {1}, {3}, "x = tmp");

  for (const char* body : {"x[i] = tmp[i]; tmp[i] = y[i];", "tmp[i] += y[i]; x[i] = tmp[i];"}) {
    SCOPED_TRACE(body);
    Compiled c = compileText(std::string(R"(
parameter N=6;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (x, y) {
  double tmp[N];
  )") + body + R"(
}
s (b, a);
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("local_before_write")) << c.diagText();
  }
}

namespace {
// Runs `iterate` variants around a counter stencil; returns c[0] after the run (c starts at 0).
double countIterations(const std::string& loops, bool expectBareWarning) {
  Session r = load(R"(
parameter N=4;
iterator i;
double c[N];
copyin c;
stencil inc (x) { x[i] += 1.0; }
)" + loops + "\n");
  EXPECT_EQ(r.c.has("bare_iterate"), expectBareWarning) << loops << "\n" << r.c.diagText();
  r.set("c", {0, 0, 0, 0});
  r.run();
  auto& v = r.values("c");
  for (double x : v) EXPECT_EQ(x, v[0]) << "every point counts the same";
  return v[0];
}
}  // namespace

// 9.11 and section 6: iterate bounds are inclusive; the bare form means 0..n with a warning;
// hi < lo runs zero times; nesting multiplies; bounds may be expressions over parameters.
TEST(Semantics, Decision9_11_Iterate) {
  EXPECT_EQ(countIterations("iterate 1:3 { inc (c); }", false), 3);
  EXPECT_EQ(countIterations("iterate 3 { inc (c); }", true), 4);
  EXPECT_EQ(countIterations("iterate 3:1 { inc (c); }", false), 0);
  EXPECT_EQ(countIterations("iterate 0:0 { inc (c); }", false), 1);
  EXPECT_EQ(countIterations("iterate 1:2 { iterate 0:2 { inc (c); } inc (c); }", false), 8);
  EXPECT_EQ(countIterations("iterate (1:3) { inc (c); }", false), 3);
  EXPECT_EQ(countIterations("iterate 2:N { inc (c); }", false), 3);
  EXPECT_EQ(countIterations("inc (c); iterate 1:2 { inc (c); } inc (c);", false), 4);
}

// 9.12: declared before use is textual: a stencil called before its definition and a global
// used in a body before its declaration are errors; copyout may appear anywhere.
TEST(Semantics, Decision9_12_DeclaredBeforeUse) {
  {
    SCOPED_TRACE("call before the stencil's definition");
    Compiled c = compileText(R"(
parameter N=4;
iterator i;
double a[N], b[N];
copyin a, b;
s (b, a);
stencil s (x, y) { x[i] = y[i]; }
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("unknown_stencil")) << c.diagText();
  }
  {
    SCOPED_TRACE("global used in a body before its declaration");
    Compiled c = compileText(R"(
parameter N=4;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (x, y) { x[i] = y[i] + g[i]; }
double g[N];
s (b, a);
)");
    EXPECT_FALSE(c.prog.has_value());
    EXPECT_TRUE(c.has("undeclared")) << c.diagText();
  }
  {
    SCOPED_TRACE("copyout before the calls; items in another order");
    Session r = load(R"(
iterator i;
parameter N=4;
double a[N], b[N];
copyout b;
copyin a;
stencil s (x, y) { x[i] = y[i] * 2.0; }
s (b, a);
)");
    EXPECT_TRUE(r.prog().arrays[r.arrayIndex("b")].data.copyout);
    r.set("a", {1, 2, 3, 4});
    r.run();
    expectArray(r, "b", {2, 4, 6, 8});
  }
}

// 9.13: every element a statement accesses must lie within the array's extent at the given
// sizes; regions are never clipped. Compile-time check (checkBounds) and run-time check.
TEST(Semantics, Decision9_13_BoundsAreCheckedNeverClipped) {
  const char* text = R"(
parameter N=8, M=8;
iterator i;
double a[M], b[N];
copyin a, b;
stencil s (x, y) { x[i] = y[i]; }
s (b, a);
)";
  {
    SCOPED_TRACE("M = N: in bounds");
    Session r = load(text);
    DiagnosticEngine d;
    EXPECT_TRUE(checkBounds(r.prog(), r.params, d));
    r.set("a", gen(8, sq1));
    r.set("b", gen(8, mark));
    r.run();
    expectArray(r, "b", gen(8, sq1));
  }
  {
    SCOPED_TRACE("M = 4 < N: out of bounds");
    Session r = load(text, {{"M", 4}});
    DiagnosticEngine d;
    EXPECT_FALSE(checkBounds(r.prog(), r.params, d));
    bool found = false;
    for (auto& x : d.diagnostics())
      found = found || std::string(diagIdName(x.id)) == "out_of_bounds";
    EXPECT_TRUE(found);
    EXPECT_THROW(r.run(), RuntimeError);
  }
  {
    SCOPED_TRACE("call domain past the extent is not clipped");
    Compiled c = compileText(R"(
parameter N=8;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (x, y) { x[i] = y[i]; }
[0:N] : s (b, a);
)");
    bool rejected = !c.prog.has_value() || c.diags.hasErrors();
    if (!rejected) {
      auto p = defaultParams(*c.prog);
      ASSERT_TRUE(p.has_value());
      rejected = !checkBounds(*c.prog, *p, c.diags);
    }
    EXPECT_TRUE(rejected);
    EXPECT_TRUE(c.has("out_of_bounds")) << c.diagText();
  }
}

// 9.14: no trimming of point-wise producers: a producer writing a global array runs over its
// whole region even where no later statement reads it.
TEST(Semantics, Decision9_14_NoTrimmingOfPointWiseProducers) {
  Session r = load(R"(
parameter N=7;
iterator i;
double a[N], t[N], b[N];
copyin a, t, b;
stencil s (t, b, a) {
  t[i] = 2.0 * a[i];
  b[i] = t[i+1] + t[i+2];
}
s (t, b, a);
)");
  const int N = 7;
  r.set("a", gen(N, sq1));  // 1 2 5 10 17 26 37
  r.set("t", gen(N, mark));
  r.set("b", gen(N, mark));
  r.run();
  expectArray(r, "t", {2, 4, 10, 20, 34, 52, 74});
  expectArray(r, "b", {14, 30, 54, 86, 126, mark(5), mark(6)});
  expectBox(r.iter(0, 0), {0}, {6}, "producer t");
  expectBox(r.iter(0, 1), {0}, {4}, "consumer b");
}

// 9.15: repeated parameter/iterator lists append; defaults may use earlier parameters.
TEST(Semantics, Decision9_15_RepeatedListsAndDefaults) {
  const char* text = R"(
parameter M=3;
iterator j;
parameter N=M+2;
iterator i;
parameter K=2*N-1;
double a[M,N], b[M,N];
copyin a, b;
stencil s (x, y) { x[j][i] = y[j][i] + K; }
s (b, a);
)";
  {
    Session r = load(text);
    ASSERT_EQ(r.prog().params.size(), 3u);
    EXPECT_EQ(r.prog().params[0].name, "M");
    EXPECT_EQ(r.prog().params[1].name, "N");
    EXPECT_EQ(r.prog().params[2].name, "K");
    ASSERT_EQ(r.prog().dims(), 2);
    EXPECT_EQ(r.prog().iterators[0].name, "j");
    EXPECT_EQ(r.prog().iterators[1].name, "i");
    EXPECT_EQ(r.params, (ParamValues{3, 5, 9}));
    std::vector<double> a(15), want(15);
    for (int k = 0; k < 15; ++k) {
      a[k] = k;
      want[k] = k + 9;
    }
    r.set("a", a);
    r.run();
    expectArray(r, "b", want);
  }
  {
    Session r = load(text, {{"M", 2}});
    EXPECT_EQ(r.params, (ParamValues{2, 4, 7}));
    r.set("a", {0, 1, 2, 3, 4, 5, 6, 7});
    r.run();
    expectArray(r, "b", {7, 8, 9, 10, 11, 12, 13, 14});
  }
}

// 9.15: every parameter without a default must be given, even if unused; a name introduced by
// an iterate bound is a run-time parameter, not an extent; an unknown placement name warns.
TEST(Semantics, Decision9_15_MissingAndIterateParameters) {
  {
    SCOPED_TRACE("unused parameter without a default");
    Compiled c = compileText(R"(
parameter N=4, T;
iterator i;
double a[N];
copyin a;
stencil s (x) { x[i] = 2.0 * x[i]; }
s (a);
)");
    ASSERT_TRUE(c.prog.has_value()) << c.diagText();
    DiagnosticEngine d;
    EXPECT_FALSE(bindParams(*c.prog, {}, d).has_value());
    bool found = false;
    for (auto& x : d.diagnostics())
      found = found || std::string(diagIdName(x.id)) == "missing_parameter";
    EXPECT_TRUE(found);
    DiagnosticEngine d2;
    EXPECT_TRUE(bindParams(*c.prog, {{"T", 1}}, d2).has_value());
  }
  {
    SCOPED_TRACE("iterate bound introduces a run-time parameter");
    const char* text = R"(
parameter N=4;
iterator i;
double c[N];
copyin c;
stencil inc (x) { shmem nosuch; x[i] += 1.0; }
iterate 1:T { inc (c); }
)";
    Compiled c = compileText(text);
    ASSERT_TRUE(c.prog.has_value()) << c.diagText();
    EXPECT_TRUE(c.has("unknown_placement_name")) << c.diagText();
    int t = c.prog->findParam("T");
    ASSERT_GE(t, 0) << "T should be a parameter";
    EXPECT_TRUE(c.prog->params[t].fromIterate);
    EXPECT_EQ(c.prog->dims(), 1);
    DiagnosticEngine d;
    EXPECT_FALSE(bindParams(*c.prog, {}, d).has_value());
    for (int64_t T : {5, 0}) {
      SCOPED_TRACE(T);
      Session r = load(text, {{"T", T}});
      r.set("c", {0, 0, 0, 0});
      r.run();
      expectArray(r, "c", std::vector<double>(4, static_cast<double>(T)));
    }
  }
}
