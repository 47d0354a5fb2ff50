// The CUDA backend: ptxas's resource report on a real nvcc run, and the CUDA runtime, which runs
// only where a CUDA device exists (elsewhere it says "no CUDA device" and these tests report
// themselves skipped with that reason).
#include <gtest/gtest.h>

#include "unit/gpu_test_programs.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

std::string bench(const std::string& name) {
  return std::string(TESSEL_SOURCE_DIR) + "/benchmarks/" + name + ".sten";
}

}  // namespace

TEST(CudaResources, HeatOnRealNvcc) {
  TESSEL_REQUIRE_NVCC();
  Parsed p = parseFile(bench("heat"));
  ASSERT_TRUE(p.prog);
  GpuSources s = generate(*p.prog, GpuApi::Cuda);
  CudaResourceOptions o;  // a fresh temporary directory: nvcc really runs
  CudaResourceReport r = cudaResources(s.hostSource, o);
  EXPECT_FALSE(r.reused);
  EXPECT_EQ(r.arch, "sm_90");
  EXPECT_TRUE(contains(r.command, "-fmad=false")) << r.command;
  EXPECT_TRUE(r.warnings.empty()) << r.output;
  // Each kernel narrowed to 32-bit indices, and its 64-bit copy (pass narrow-indices).
  ASSERT_EQ(r.kernels.size(), 8u) << r.output;
  for (const char* k : {"call0_heat_s0", "call0_heat_s1", "call1_heat_s0", "call1_heat_s1",
                        "call0_heat_s0_i64", "call1_heat_s1_i64"}) {
    const KernelResources* kr = r.find(k);
    ASSERT_NE(kr, nullptr) << k << "\n" << r.output;
    EXPECT_GT(kr->registers, 4) << k;
    EXPECT_LT(kr->registers, 128) << k;
    EXPECT_EQ(kr->sharedBytes, 0) << k;
    EXPECT_EQ(kr->spillStores + kr->spillLoads, 0) << k;
    EXPECT_EQ(kr->stackBytes, 0) << k;
  }
  // With a cache, the second report for the same source is reused.
  CudaResourceOptions cached = resourceOptions();
  cudaResources(s.hostSource, cached);
  CudaResourceReport again = cudaResources(s.hostSource, cached);
  EXPECT_TRUE(again.reused);
  EXPECT_EQ(again.kernels.size(), 8u);
}

// Every feature of the language (bool buffers, int64 parameters, math, helpers on the device and
// on the host, local scalars, scratch copies, no kernels at all) compiles cleanly.
TEST(CudaResources, FeatureProgramsCompileWithoutWarnings) {
  TESSEL_REQUIRE_NVCC();
  for (const char* text : {kTypes, kLocals, kIntErrors, kHostError, kNoKernels, kConversions}) {
    Parsed p = parse(text);
    ASSERT_TRUE(p.prog);
    for (ScheduleFamily f : {ScheduleFamily::Global, ScheduleFamily::GlobalStream}) {
      Config c;
      c.family = f;
      GpuSources s = generate(*p.prog, GpuApi::Cuda, c);
      CudaResourceReport r = cudaResources(s.hostSource, resourceOptions());
      EXPECT_TRUE(r.warnings.empty()) << r.output << "\n" << s.hostSource;
      EXPECT_EQ(r.kernels.size(), s.launchNames.size()) << r.output;
    }
  }
}

TEST(CudaResources, FailuresAreReported) {
  TESSEL_REQUIRE_NVCC();
  try {
    cudaResources("this is not CUDA;\n");
    FAIL() << "expected nvcc to fail";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "nvcc failed")) << e.what();
    EXPECT_TRUE(contains(e.what(), "tessel_program.cu")) << e.what();
  }
  CudaResourceOptions o;
  o.nvcc = "/nonexistent/bin/nvcc";
  EXPECT_THROW(cudaResources("", o), EnvironmentError);
}

TEST(CudaModule, RunsWhereACudaDeviceExists) {
  Parsed p = parseFile(bench("j2d5pt"));
  ASSERT_TRUE(p.prog);
  std::string why;
  if (!cudaDeviceAvailable(&why)) {
    EXPECT_FALSE(why.empty());
    try {
      CudaModule m(*p.prog, resolved(*p.prog), testOptions(GpuApi::Cuda));
      ADD_FAILURE() << "CudaModule built without a CUDA device";
    } catch (const EnvironmentError& e) {
      EXPECT_TRUE(contains(e.what(), "no CUDA device")) << e.what();
    }
    GTEST_SKIP() << "skipped: no CUDA device: " << why;
  }
  for (ScheduleFamily f : {ScheduleFamily::Global, ScheduleFamily::GlobalStream}) {
    Config c;
    c.family = f;
    CudaModule m(*p.prog, resolved(*p.prog, c), testOptions(GpuApi::Cuda));
    EXPECT_TRUE(contains(m.deviceName(), "CUDA")) << m.deviceName();
    expectAgrees(*p.prog, m, {37, 70, 3}, 7, familyName(f));
  }
}
