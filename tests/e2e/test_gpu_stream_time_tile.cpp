// stream + time_tile (lower_gpu_overlapped_stream.cpp, analysis/stream_fusion.h) on every
// benchmark it applies to: T fused steps streamed along the slowest iterator, overlapped tiles
// in the other dimensions. The OpenCL code runs on the default OpenCL device (PoCL here) and
// agrees with the reference interpreter for three settings (T = 2 serial; T = 3 in chunks of 3
// planes; T = 2 in chunks of 3 with a block that is no power of two) at two sizes: one smaller
// than a tile in the plane and with fewer planes (3) than T*r+1, one spanning several
// tiles, not a multiple of the chunk. Iteration counts are at most 4; j3d7pt's 8 calls are no
// multiple of T = 3, so its remainder steps run per statement, and T = 3 on a ping-pong body
// makes two phase variants. Benchmarks it does not apply
// to (1-D, local arrays) fall back with a note, checked too. The CUDA code of every variant
// compiles with nvcc for sm_90 without a warning; ptxas's shared memory equals the lowering's
// and the default setting does not spill.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

// By dimension count: a first size smaller than one tile in the plane with few planes, a
// second spanning several tiles (hypterm reads i +- 4: the unit-stride extent stays >= 9).
std::vector<int64_t> sizes(int dims, int which) {
  static const std::vector<std::vector<std::vector<int64_t>>> table = {
      {{7}, {300}},
      {{3, 11}, {29, 53}},
      {{3, 7, 11}, {11, 23, 37}},
  };
  return table[static_cast<size_t>(dims - 1)][static_cast<size_t>(which)];
}

ParamValues params(const Program& prog, int which) {
  // Time-step parameters stay small (jacobi1d-boundary's default 64 would make 384 calls).
  return extentParams(prog, sizes(prog.dims(), which), 4);
}

struct TestSetting {
  const char* what;
  int timeTile;
  int chunk;                                // 0: serial (one block sweeps every plane)
  std::array<std::array<int, 3>, 3> block;  // by dimension count - 1
};

const TestSetting kSettings[] = {
    {"T=2 serial default block", 2, 0, {{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}}},
    {"T=3 chunk 3 block 48 / 16x12", 3, 3, {{{48, 1, 1}, {48, 1, 1}, {16, 12, 1}}}},
    {"T=2 chunk 3 block 20 / 13x10", 2, 3, {{{20, 1, 1}, {20, 1, 1}, {13, 10, 1}}}},
};

Config config(const Program& prog, const TestSetting& s) {
  Config c;
  c.family = ScheduleFamily::Stream;
  c.streamDim = 0;
  c.chunk = s.chunk;
  c.timeTile = s.timeTile;
  c.block = s.block[static_cast<size_t>(prog.dims() - 1)];
  return c;
}

bool fusedAny(const GpuSources& src) {
  for (auto& k : src.kernels)
    if (!k.fusedCalls.empty()) return true;
  return false;
}

class StreamTimeTile : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(StreamTimeTile, OpenclAgreesWithReferenceForThreeSettings) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parseFile(benchmarkPath(GetParam()));
  ASSERT_TRUE(p.prog);
  for (const TestSetting& s : kSettings) {
    Config c = config(*p.prog, s);
    // Where nothing is fused (a note says why) the plain stream family runs: one setting is
    // enough to see that the fallback is right.
    if (&s != &kSettings[0] && !fusedAny(generate(*p.prog, GpuApi::OpenCL, c))) continue;
    OpenclModule m(*p.prog, resolved(*p.prog, c), testOptions());
    for (int which = 0; which < 2; ++which) {
      ParamValues pv = params(*p.prog, which);
      expectAgrees(*p.prog, m, pv, 21 + which,
                   fmt::format("stream + time_tile {} at {}", s.what, fmt::join(pv, ",")));
    }
  }
}

TEST_P(StreamTimeTile, CudaCompilesWithoutWarningsAndRecordsResources) {
  TESSEL_REQUIRE_NVCC();
  Parsed p = parseFile(benchmarkPath(GetParam()));
  ASSERT_TRUE(p.prog);
  for (size_t k = 0; k < std::size(kSettings); ++k) {
    const TestSetting& s = kSettings[k];
    GpuSources src = generate(*p.prog, GpuApi::Cuda, config(*p.prog, s));
    if (!fusedAny(src)) continue;  // the plain stream family: its own tests compile it
    for (auto& ki : src.kernels) {
      if (!ki.fusedCalls.empty()) {
        EXPECT_EQ(ki.streamIter, 0) << ki.name;
      }
    }
    // The default setting (the first) must not spill.
    expectFusedKernelsCompile(src, GetParam() + " " + s.what, k == 0);
  }
}

// Issue 12: the retimed and prefetched fused kernels (--retime --prefetch, the second setting
// also unrolled 2 along x) of every benchmark whose statements can be retimed, at the chunked
// settings and both sizes (fewer planes than T*r+1, blocks that are no power of two), agree with
// the reference within the reassociating tolerance, and their CUDA code compiles without a warning.
TEST_P(StreamTimeTile, RetimedAndPrefetchedAgreeWithReferenceAndCompile) {
  TESSEL_REQUIRE_OPENCL();
  if (!retimableFused(GetParam())) GTEST_SKIP() << "not retimable (tests/e2e/test_retime.cpp)";
  Parsed p = parseFile(benchmarkPath(GetParam()));
  ASSERT_TRUE(p.prog);
  for (const TestSetting* s : {&kSettings[1], &kSettings[2]}) {
    Config c = config(*p.prog, *s);
    c.retime = c.prefetch = true;
    if (s == &kSettings[2]) c.unroll = {2, 1, 1};  // and two points per thread along x
    if (!fusedAny(generate(*p.prog, GpuApi::OpenCL, c))) continue;
    OpenclModule m(*p.prog, resolved(*p.prog, c), testOptions());
    // The reassociating tolerance of `--verify` (docs/gpu.md section 14): relative to each
    // array's largest magnitude.
    std::map<std::string, double> tolerance;
    for (const ArrayDecl& a : p.prog->arrays)
      tolerance[a.name] = a.type == ScalarType::Float ? 1e-4 : 1e-10;
    for (int which = 0; which < 2; ++which) {
      ParamValues pv = params(*p.prog, which);
      expectAgrees(*p.prog, m, pv, 31 + which,
                   fmt::format("stream + time_tile {} retimed, prefetched at {}", s->what,
                               fmt::join(pv, ",")),
                   tolerance, true);
    }
    if (!findNvcc().empty() || tessel::testing::nvccRequired())
      expectFusedKernelsCompile(generate(*p.prog, GpuApi::Cuda, c),
                                GetParam() + " " + s->what + " retimed", false);
  }
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(StreamTimeTile);

// Which benchmarks get streamed fused kernels, and which fall back with a note saying why.
// heat's local array lives in the kernel (a register; until 2026-11-28 it made the calls run
// per statement); a stencil that writes at an offset along the stream cannot be swept.
TEST(StreamTimeTile, AppliesToTheIterateBenchmarksAndNotesTheRest) {
  for (const char* b : {"j3d7pt", "j2d5pt", "cheby", "fdtd2d", "heat"}) {
    Parsed p = parseFile(benchmarkPath(b));
    ASSERT_TRUE(p.prog) << b;
    GpuSources src = generate(*p.prog, GpuApi::OpenCL, config(*p.prog, kSettings[0]));
    EXPECT_TRUE(fusedAny(src)) << b << " is not fused";
  }
  const fs::path file = fs::temp_directory_path() / "tessel-test-stream-shift.sten";
  std::ofstream(file) << "parameter L=32, M=32, N=32, T=2;\n"
                         "iterator k, j, i;\n"
                         "double a[L,M,N], b[L,M,N];\n"
                         "copyin a, b;\n"
                         "stencil shift (out, in) {\n"
                         "  out[k+1][j][i] = in[k][j][i] + in[k][j+1][i] + in[k][j-1][i];\n"
                         "}\n"
                         "iterate 1:T {\n"
                         "  [0:L-2, 1:M-2, 0:N-1] : shift (b, a);\n"
                         "  [0:L-2, 1:M-2, 0:N-1] : shift (a, b);\n"
                         "}\n"
                         "copyout a;\n";
  Parsed shift = parseFile(file);
  ASSERT_TRUE(shift.prog);
  GpuSources src = generate(*shift.prog, GpuApi::OpenCL, config(*shift.prog, kSettings[0]));
  EXPECT_FALSE(fusedAny(src));
  bool noted = false;
  for (auto& n : src.notes)
    noted = noted || n.find("not streamed with time tiling: 'b' is written at an offset") !=
                         std::string::npos;
  EXPECT_TRUE(noted) << fmt::format("{}", fmt::join(src.notes, "\n"));
}
