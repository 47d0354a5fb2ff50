// Every benchmark on the GPU backends: for each schedule family (global, global-stream) the
// OpenCL code runs on the default OpenCL device (PoCL here) and agrees with the reference
// interpreter at two sizes, one awkward (not a multiple of the block, a dimension smaller than
// it); the CUDA code compiles with nvcc for sm_90 without an error or a warning, and ptxas
// reports the resources of every kernel. A CUDA device is not needed (nor used) here.
#include <gtest/gtest.h>

#include <algorithm>

#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

// Extents by dimension count. The first size is awkward for the default blocks (256; 32x8;
// 32x8x1 and, streaming, 32x8): not a multiple of the block, one dimension smaller than it;
// the second is a power of two in every dimension. hypterm reads i +- 4, so its unit-stride
// extent stays >= 9.
std::vector<int64_t> sizes(int dims, int which) {
  static const std::vector<std::vector<std::vector<int64_t>>> table = {
      {{7}, {64}},
      {{6, 37}, {32, 64}},
      {{6, 11, 19}, {16, 16, 32}},
  };
  return table[dims - 1][which];
}

/// Parameter values: the extents as above, the other parameters at their defaults.
ParamValues params(const Program& prog, int which) {
  return extentParams(prog, sizes(prog.dims(), which));
}

const ScheduleFamily kFamilies[] = {ScheduleFamily::Global, ScheduleFamily::GlobalStream};

class GpuBenchmark : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(GpuBenchmark, OpenclAgreesWithReferenceAtTwoSizes) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parseFile(benchmarkPath(GetParam()));
  ASSERT_TRUE(p.prog);
  for (ScheduleFamily f : kFamilies) {
    Config c;
    c.family = f;
    OpenclModule m(*p.prog, resolved(*p.prog, c), testOptions());
    for (int which = 0; which < 2; ++which) {
      ParamValues pv = params(*p.prog, which);
      std::string what = fmt::format("{} at {}", familyName(f), fmt::join(pv, ","));
      expectAgrees(*p.prog, m, pv, 7 + which, what);
    }
  }
}

TEST_P(GpuBenchmark, CudaCompilesWithoutWarningsAndReportsResources) {
  TESSEL_REQUIRE_NVCC();
  Parsed p = parseFile(benchmarkPath(GetParam()));
  ASSERT_TRUE(p.prog);
  for (ScheduleFamily f : kFamilies) {
    Config c;
    c.family = f;
    GpuSources s = generate(*p.prog, GpuApi::Cuda, c);
    CudaResourceReport r = cudaResources(s.hostSource, resourceOptions());
    EXPECT_TRUE(r.warnings.empty())
        << familyName(f) << ": " << fmt::format("{}", fmt::join(r.warnings, "\n")) << "\n"
        << r.output;
    ASSERT_EQ(r.kernels.size(), s.launchNames.size()) << r.output;
    for (auto& k : s.kernels) {
      const KernelResources* kr = r.find(k.name);
      ASSERT_NE(kr, nullptr) << k.name << " missing from ptxas's report:\n" << r.output;
      EXPECT_GT(kr->registers, 0) << k.name;
      EXPECT_LE(kr->registers, 255) << k.name;
      EXPECT_EQ(kr->spillStores, 0) << k.name;
      EXPECT_EQ(kr->sharedBytes, 0) << k.name << ": the global families use no shared memory";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, GpuBenchmark, ::testing::ValuesIn(benchmarkNames()),
                         benchmarkTestName);
