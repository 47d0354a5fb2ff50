// The overlapped family on the corner cases its design names (lower_gpu_overlapped.cpp,
// schedule/resolve.h, planFusion): step counts T does not divide (5 calls), T larger than the step
// count, a written array other blocks read (ping-pong), points outside a stage's region, scratch
// copies of `inout:` stencils, int arrays with run-time division, nested loops, a fixed plane of
// a written array (not fused: per-statement kernels, with a note), and domains smaller than one
// tile. Each runs on PoCL against the reference interpreter.
#include <gtest/gtest.h>

#include "schedule/resolve.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

Config overlapped(int t, std::array<int, 3> block = {0, 0, 0},
                  std::array<int, 3> unroll = {1, 1, 1}) {
  Config c;
  c.family = ScheduleFamily::Overlapped;
  c.timeTile = t;
  c.block = block;
  c.unroll = unroll;
  return c;
}

int fusedKernels(const std::vector<GpuKernelInfo>& ks) {
  int n = 0;
  for (auto& k : ks) n += k.family == ScheduleFamily::Overlapped ? 1 : 0;
  return n;
}

// Ping-pong over an iterate loop plus one more call: 2*T + 1 calls (5 for T = 2). Statement
// domains make the written region stop short of the array (its edges keep their values).
const char* kFiveCalls = R"(
parameter M=20, N=30, T=2;
iterator j, i;
double a[M,N], b[M,N];
copyin a, b;
stencil s (out, in) {
  [1:M-2, 2:N-2] : out[j][i] = 0.25*in[j-1][i] + 0.5*in[j][i] + 0.125*(in[j][i-1] + in[j+1][i])
                             + 0.0625*in[j][i+1];
}
iterate 1:T {
  s (b, a);
  s (a, b);
}
s (b, a);
copyout a, b;
)";

TEST(OverlappedCases, FiveCallsForEveryTimeTile) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kFiveCalls);
  ASSERT_TRUE(p.prog);
  for (int t : {1, 2, 3, 4, 8}) {
    Config c = overlapped(t, {8, 6, 1});
    OpenclModule m(*p.prog, resolved(*p.prog, c), testOptions());
    for (ParamValues pv : {ParamValues{20, 30, 2}, ParamValues{5, 9, 2}, ParamValues{13, 41, 3}})
      expectAgrees(*p.prog, m, pv, 3, fmt::format("T={} at {}", t, fmt::join(pv, ",")));
  }
}

TEST(OverlappedCases, VariantsPerStartingPhase) {
  Parsed p = parse(kFiveCalls);
  ASSERT_TRUE(p.prog);
  // n = 2 calls per iteration: T = 3 starts at body positions 0 and 1 (two variants), T = 2
  // always at 0 (one). The trailing call is a straight run of one call, fewer than T: fused as
  // it is (one more kernel, and a note says so).
  GpuSources t3 = generate(*p.prog, GpuApi::OpenCL, overlapped(3));
  EXPECT_EQ(fusedKernels(t3.kernels), 3);
  EXPECT_EQ(fusedKernels(generate(*p.prog, GpuApi::OpenCL, overlapped(2)).kernels), 2);
  bool noted = false;
  for (auto& n : t3.notes) noted = noted || n.find("the run has 1 call: fused as 1 step") != n.npos;
  EXPECT_TRUE(noted) << fmt::format("{}", fmt::join(t3.notes, "\n"));
  EXPECT_EQ(fusedKernels(generate(*p.prog, GpuApi::OpenCL, overlapped(1)).kernels), 3);
  GridShape grid;  // overlapped, T = 3, 16x16 threads over (i, j)
  grid.family = ScheduleFamily::Overlapped;
  grid.iters = {1, 0};
  grid.block = {16, 16, 1};
  grid.timeTile = 3;
  auto groups = planFusion(*p.prog, {grid});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_NE(groups[0].iterate, nullptr);
  ASSERT_EQ(groups[0].variants.size(), 2u);
  EXPECT_EQ(groups[0].variants[1].phase, 1);
  EXPECT_EQ(groups[0].variants[1].seq.calls, (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(groups[0].variants[0].tile, (std::vector<int64_t>{12, 12}));  // 16 - 2*1*(3-1)
  // 1 call < T: fused as one step.
  ASSERT_EQ(groups[1].variants.size(), 1u);
  EXPECT_EQ(groups[1].timeTile, 1);
  EXPECT_EQ(groups[1].variants[0].seq.calls.size(), 1u);
}

// `inout:` marks make the unmarked written array a scratch copy; an int array with a run-time
// division (the device error status); a local array and a local scalar; nested loops.
const char* kMixed = R"(
parameter M=12, N=20, T=2, K=3;
iterator j, i;
double u[M,N], v[M,N], w[M,N];
int c[M,N];
double s;
copyin u, v, w, c, s;
stencil step (inout:v, u, w, c, s) {
  double t[M,N];
  double r;
  w[j][i] = u[j][i+1] - u[j][i-1];
  t[j][i] = w[j-1][i] + w[j+1][i] + s;
  r = t[j][i] * 0.5;
  v[j][i] = r + u[j][i] + (c[j][i] / K);
}
stencil back (u, v) {
  u[j][i] = 0.2*(v[j][i] + v[j-1][i] + v[j+1][i] + v[j][i-1] + v[j][i+1]);
}
iterate 1:T {
  iterate 1:2 {
    step (v, u, w, c, s);
    back (u, v);
  }
  back (v, u);
}
copyout u, v, w;
)";

TEST(OverlappedCases, ScratchCopiesIntDivisionLocalsAndNestedLoops) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(kMixed);
  ASSERT_TRUE(p.prog);
  for (int t : {1, 2, 3}) {
    OpenclModule m(*p.prog, resolved(*p.prog, overlapped(t, {16, 8, 1})), testOptions());
    for (ParamValues pv :
         {ParamValues{12, 20, 2, 3}, ParamValues{7, 5, 1, 2}, ParamValues{19, 33, 3, 5}})
      expectAgrees(*p.prog, m, pv, 5, fmt::format("T={} at {}", t, fmt::join(pv, ",")));
  }
}

TEST(OverlappedCases, FixedPlaneOfAWrittenArrayRunsPerStatement) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(R"(
parameter M=10, N=10;
iterator j, i;
double a[M,N], b[M,N], d[M,N];
copyin a;
stencil s (d, b, a) {
  b[j][i] = a[j][i] * 2.0;
  d[j][i] = b[0][i] + b[j][i];
}
s (d, b, a);
copyout b, d;
)");
  ASSERT_TRUE(p.prog);
  GpuSources src = generate(*p.prog, GpuApi::OpenCL, overlapped(1));
  EXPECT_EQ(fusedKernels(src.kernels), 0);
  bool noted = false;
  for (auto& n : src.notes) noted = noted || contains(n, "fixed plane of 'b'");
  EXPECT_TRUE(noted) << fmt::format("{}", fmt::join(src.notes, "\n"));
  OpenclModule m(*p.prog, resolved(*p.prog, overlapped(1)), testOptions());
  expectAgrees(*p.prog, m, {10, 10});
}

// 1-D, several blocks: a tile of 256 - 2*1*(8-1) = 242 points per block at T = 8.
TEST(OverlappedCases, OneDimensionalManyBlocksTimeTile8) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(R"(
parameter N=1000, T=9;
iterator i;
double A[N], B[N];
copyin A;
stencil f (out, in) { out[i] = 0.25*in[i-1] + 0.5*in[i] + 0.25*in[i+1]; }
iterate 1:T {
  f (B, A);
  f (A, B);
}
copyout A;
)");
  ASSERT_TRUE(p.prog);
  OpenclModule m(*p.prog, resolved(*p.prog, overlapped(8)), testOptions());
  expectAgrees(*p.prog, m, {1000, 9});  // 18 steps: 2 fused kernels and 2 remaining steps
  expectAgrees(*p.prog, m, {3, 1});     // smaller than one tile, fewer steps than T
}

}  // namespace

namespace {

// The brief's example: j2d5pt with its iterate parameter T = 3 runs 6 calls; a time tile of 4
// runs one fused kernel (steps 1-4) and the 2 remaining steps per statement.
TEST(OverlappedCases, J2d5ptSixCallsTimeTile4) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parseFile(fs::path(TESSEL_SOURCE_DIR) / "benchmarks" / "j2d5pt.sten");
  ASSERT_TRUE(p.prog);
  OpenclModule m(*p.prog, resolved(*p.prog, overlapped(4, {16, 12, 1})), testOptions());
  expectAgrees(*p.prog, m, {23, 45, 3}, 9, "T=4, 6 calls");
  expectAgrees(*p.prog, m, {23, 45, 1}, 9, "T=4, 2 calls (all remaining)");
}

}  // namespace

namespace {

// bool and int values written and read at offsets in shared memory.
TEST(OverlappedCases, BoolAndIntValuesInSharedMemory) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parse(R"(
parameter M=20, N=24;
iterator j, i;
double in[M,N], out[M,N];
bool m[M,N];
int c[M,N];
copyin in;
stencil s (out, m, c, in) {
  m[j][i] = in[j][i] > 0.0;
  c[j][i] = select(m[j][i], 3, -2) * (i - j);
  out[j][i] = select(m[j][i-1] & m[j+1][i], in[j][i] + c[j-1][i], 0.5 * c[j][i+1]);
}
s (out, m, c, in);
copyout out, m, c;
)");
  ASSERT_TRUE(p.prog);
  OpenclModule m(*p.prog, resolved(*p.prog, overlapped(1, {8, 4, 1})), testOptions());
  expectAgrees(*p.prog, m, {20, 24});
  expectAgrees(*p.prog, m, {3, 50});
}

// The key lines of a fused kernel and its host code, in both dialects: shared buffers, the
// declared block, barriers between stages, the write-back to the second buffer and the swap.
TEST(OverlappedCases, KeyLinesInBothDialects) {
  Parsed p = parseFile(fs::path(TESSEL_SOURCE_DIR) / "benchmarks" / "j2d5pt.sten");
  ASSERT_TRUE(p.prog);
  GpuSources cl = generate(*p.prog, GpuApi::OpenCL, overlapped(2));
  GpuSources cu = generate(*p.prog, GpuApi::Cuda, overlapped(2));
  // Block 32x16 covers stage 1 (tile + 1 each side): tile 14x30; `in` over tile + 2 = 18x34.
  for (const char* want :
       {"__kernel __attribute__((reqd_work_group_size(32, 16, 1))) void fused0_p0_j2d5pt(",
        "__local double sh_in[612];", "__local double sh_out[512];",
        "const long t0_j = (long)get_group_id(1) * 14;",
        "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
        "in_next[j * N + i] = sh_in[(j - (t0_j - 2)) * 34 + (i - (t0_i - 2))];"})
    EXPECT_TRUE(contains(cl.kernelSource, want)) << want << "\n" << cl.kernelSource;
  for (const char* want :
       {"__global__ void __launch_bounds__(512, 1) fused0_p0_j2d5pt(",
        "__shared__ double sh_in[612];", "__syncthreads();", "tessel_swap(in, in_next);"})
    EXPECT_TRUE(contains(cu.hostSource, want)) << want;
  // `out` is dead after each launch (the next one writes it first; it is not copied out): no
  // write-back, no second buffer, no swap (analysis/dead_stores.h).
  EXPECT_FALSE(contains(cu.hostSource, "out_next")) << cu.hostSource;
  // 8 calls, T = 2: four fused launches and no remaining step, in a loop over the fused kernels.
  EXPECT_TRUE(contains(cu.hostSource, "const int64_t fused_kernels = steps / 2;")) << cu.hostSource;
}

}  // namespace
