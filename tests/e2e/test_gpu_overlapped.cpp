// The overlapped family (lower_gpu_overlapped.cpp) on every benchmark: the OpenCL code runs on
// the default OpenCL device (PoCL here) and agrees with the reference interpreter for three
// settings (T = 1, 2, 3; blocks that are not powers of two; two elements per thread along x) at
// two sizes: one smaller than a tile along some dimension, one spanning several tiles and not a
// multiple of them. The step counts are not multiples of every T (j2d5pt and j3d7pt: 8 calls
// with T = 3). The CUDA code of every variant compiles with nvcc for sm_90 without a warning;
// ptxas's registers and shared memory are recorded, and spills fail the default setting.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

// Extents by dimension count: the first is smaller than one tile along its short dimensions,
// the second spans several tiles without being a multiple of them. hypterm reads i +- 4, so
// the unit-stride extent stays >= 9.
std::vector<int64_t> sizes(int dims, int which) {
  static const std::vector<std::vector<std::vector<int64_t>>> table = {
      {{7}, {300}},
      {{6, 37}, {41, 70}},
      {{6, 11, 19}, {13, 19, 37}},
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
  std::array<std::array<int, 3>, 3> block;  // by dimension count - 1
  int unrollX;
};

// 1: the defaults (256; 32x16; 16x8x4). 2: T = 2, blocks that are no powers of two. 3: T = 3,
// two elements per thread along x (blocks large enough for order-2 stencils over 3 steps).
const TestSetting kSettings[] = {
    {"T=1 default block", 1, {{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}}, 1},
    {"T=2 block 24 / 12x6 / 10x6x5", 2, {{{24, 1, 1}, {12, 6, 1}, {10, 6, 5}}}, 1},
    {"T=3 E=2 block 64 / 16x12 / 8x8x8", 3, {{{64, 1, 1}, {16, 12, 1}, {8, 8, 8}}}, 2},
};

Config config(const Program& prog, const TestSetting& s) {
  Config c;
  c.family = ScheduleFamily::Overlapped;
  c.timeTile = s.timeTile;
  c.block = s.block[static_cast<size_t>(prog.dims() - 1)];
  c.unroll = {s.unrollX, 1, 1};
  return c;
}

class Overlapped : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Overlapped, OpenclAgreesWithReferenceForThreeSettings) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parseFile(benchmarkPath(GetParam()));
  ASSERT_TRUE(p.prog);
  for (const TestSetting& s : kSettings) {
    Config c = config(*p.prog, s);
    OpenclModule m(*p.prog, resolved(*p.prog, c), testOptions());
    for (int which = 0; which < 2; ++which) {
      ParamValues pv = params(*p.prog, which);
      expectAgrees(*p.prog, m, pv, 11 + which,
                   fmt::format("overlapped {} at {}", s.what, fmt::join(pv, ",")));
    }
  }
}

TEST_P(Overlapped, CudaCompilesWithoutWarningsAndRecordsResources) {
  TESSEL_REQUIRE_NVCC();
  Parsed p = parseFile(benchmarkPath(GetParam()));
  ASSERT_TRUE(p.prog);
  for (size_t k = 0; k < std::size(kSettings); ++k) {
    const TestSetting& s = kSettings[k];
    GpuSources src = generate(*p.prog, GpuApi::Cuda, config(*p.prog, s));
    // The default setting (the first) must not spill.
    expectFusedKernelsCompile(src, GetParam() + " " + s.what, k == 0);
  }
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(Overlapped);
