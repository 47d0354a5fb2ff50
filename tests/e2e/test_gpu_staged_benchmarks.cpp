// Every benchmark under the staged families (shared, stream), each at several settings: on
// OpenCL (PoCL: real work-groups, local memory and barriers) against the reference interpreter
// at two sizes chosen to be awkward (not a multiple of the tile, a dimension smaller than one
// tile, a streamed extent smaller than a chunk and than the plane window, or not a multiple of
// the chunk); with nvcc for sm_90, every kernel of every setting compiles without a warning,
// ptxas's registers and shared memory are printed, the shared memory is what the staging
// analysis computed, and the default settings do not spill.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "codegen/gpu_backend.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

// Extents by dimension count. The first size has a streamed (slowest) extent below every
// chunk but 1 and, for stencils of order 2 and more, a region smaller than the plane window,
// and dimensions smaller than one tile; the second has streamed regions that are no multiple
// of 3 or 16 and more than 16 planes, and extents that are no multiple of any tile. hypterm
// reads i +- 4, so its unit-stride extent stays >= 9.
std::vector<int64_t> sizes(int dims, int which) {
  static const std::vector<std::vector<std::vector<int64_t>>> table = {
      {{7}, {300}},
      {{6, 37}, {23, 70}},
      {{6, 11, 19}, {21, 13, 35}},
  };
  return table[dims - 1][which];
}

ParamValues params(const Program& prog, int which) {
  return extentParams(prog, sizes(prog.dims(), which));
}

struct TestSetting {
  std::string label;
  Config config;
  bool isDefault = false;
};

/// The settings of both families for a program of `dims` dimensions: the defaults first.
std::vector<TestSetting> settings(int dims) {
  std::vector<TestSetting> out;
  auto add = [&](std::string label, ScheduleFamily f, std::array<int, 3> block, int chunk,
                 std::array<int, 3> unroll = {1, 1, 1}, bool cyclic = false) {
    Config c;
    c.family = f;
    c.block = block;
    c.chunk = chunk;
    c.unroll = unroll;
    c.cyclic = cyclic;
    out.push_back(
        {std::move(label), c,
         block[0] == 0 && chunk == 16 && unroll[0] == 1 && unroll[1] == 1 && unroll[2] == 1});
  };
  // Unroll factors are per grid dimension: x (the unit-stride iterator) first.
  std::array<int, 3> unrollFast = {2, 1, 1}, unrollSlow = {1, 1, 1};
  unrollSlow[dims - 1] = 3;
  add("shared default", ScheduleFamily::Shared, {0, 0, 0}, 16);
  add("shared 5x3x2 unroll fastest 2", ScheduleFamily::Shared, {5, 3, 2}, 16, unrollFast);
  add("shared 16x4x2 unroll slowest 3 cyclic", ScheduleFamily::Shared, {16, 4, 2}, 16, unrollSlow,
      true);
  // Stream: the grid has one dimension fewer than the program.
  std::array<int, 3> odd = dims == 3 ? std::array<int, 3>{7, 3, 1} : std::array<int, 3>{7, 1, 1};
  std::array<int, 3> wide = dims == 3 ? std::array<int, 3>{32, 2, 1} : std::array<int, 3>{64, 1, 1};
  add("stream chunk 16 default", ScheduleFamily::Stream, {0, 0, 0}, 16);
  add("stream chunk 3, 7x3", ScheduleFamily::Stream, odd, 3);
  add("stream chunk 1, 32x2", ScheduleFamily::Stream, wide, 1);
  add("stream serial (full_stream)", ScheduleFamily::Stream, {0, 0, 0}, 0);
  // Issue 12: unrolled under stream, each point with registers of its own.
  std::array<int, 3> two = dims == 3 ? std::array<int, 3>{2, 2, 1} : std::array<int, 3>{3, 1, 1};
  add("stream chunk 3, 7x3 unroll fastest 2", ScheduleFamily::Stream, odd, 3, unrollFast);
  add(dims == 3 ? "stream chunk 16, 16x2 unroll 2x2 cyclic" : "stream chunk 16, 16 unroll 3 cyclic",
      ScheduleFamily::Stream,
      dims == 3 ? std::array<int, 3>{16, 2, 1} : std::array<int, 3>{16, 1, 1}, 16, two, true);
  return out;
}

class StagedBenchmark : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(StagedBenchmark, OpenclAgreesWithReference) {
  TESSEL_REQUIRE_OPENCL();
  Parsed p = parseFile(benchmarkPath(GetParam()));
  ASSERT_TRUE(p.prog);
  for (const TestSetting& s : settings(p.prog->dims())) {
    OpenclModule m(*p.prog, resolved(*p.prog, s.config), testOptions());
    for (int which = 0; which < 2; ++which) {
      ParamValues pv = params(*p.prog, which);
      std::string what = fmt::format("{} at {}", s.label, fmt::join(pv, ","));
      expectAgrees(*p.prog, m, pv, 11 + which, what);
    }
  }
}

TEST_P(StagedBenchmark, CudaCompilesWithoutWarningsAndDoesNotSpill) {
  TESSEL_REQUIRE_NVCC();
  Parsed p = parseFile(benchmarkPath(GetParam()));
  ASSERT_TRUE(p.prog);
  // The whole program (kernels and host code) of the default stream setting...
  std::vector<TestSetting> all = settings(p.prog->dims());
  GpuSources whole = generate(*p.prog, GpuApi::Cuda, all[3].config);
  CudaResourceReport r = cudaResources(whole.hostSource, resourceOptions());
  EXPECT_TRUE(r.warnings.empty()) << fmt::format("{}", fmt::join(r.warnings, "\n")) << "\n"
                                  << r.output;
  // ...and the kernels of every setting in one file (one nvcc run), renamed apart.
  lir::Module merged;
  struct Entry {
    std::string name, setting;
    GpuKernelInfo info;
    bool isDefault;
  };
  std::vector<Entry> entries;
  for (size_t k = 0; k < all.size(); ++k) {
    GpuProgram g = buildKernels(*p.prog, resolved(*p.prog, all[k].config));
    for (size_t f = 0; f < g.device.functions.size(); ++f) {
      lir::Function fn = g.device.functions[f];
      fn.name += fmt::format("_v{}", k);
      entries.push_back({fn.name, all[k].label, g.kernels[f], all[k].isDefault});
      merged.functions.push_back(std::move(fn));
    }
  }
  std::string cu = "#include <cuda_runtime.h>\n" + CLikeEmitter(cudaDialect()).emitModule(merged);
  CudaResourceReport rk = cudaResources(cu, resourceOptions());
  EXPECT_TRUE(rk.warnings.empty()) << fmt::format("{}", fmt::join(rk.warnings, "\n")) << "\n"
                                   << rk.output;
  ASSERT_EQ(rk.kernels.size(), entries.size()) << rk.output;
  std::string table = fmt::format("ptxas (sm_90) for {}:\n", GetParam());
  for (const Entry& e : entries) {
    const KernelResources* kr = rk.find(e.name);
    ASSERT_NE(kr, nullptr) << e.name << " missing from ptxas's report:\n" << rk.output;
    table += fmt::format("  {:<28} {:<40} regs {:>3}  smem {:>6}  spill {}/{}\n", e.name, e.setting,
                         kr->registers, kr->sharedBytes, kr->spillStores, kr->spillLoads);
    EXPECT_GT(kr->registers, 0) << e.name;
    EXPECT_EQ(kr->sharedBytes, ptxasSharedBytes(e.info.sharedBytes))
        << e.name << " (" << e.setting << "): ptxas and the staging analysis disagree";
    if (e.isDefault) {
      EXPECT_EQ(kr->spillStores, 0) << e.name << " (" << e.setting << ") spills";
      EXPECT_EQ(kr->spillLoads, 0) << e.name << " (" << e.setting << ") spills";
    }
  }
  std::cout << table;
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(StagedBenchmark);
