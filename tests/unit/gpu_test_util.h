// Helpers for the GPU backend tests: parse a program, build options with a per-user test cache,
// the arrays a run produces, and a differential check of OpenclModule against the interpreter.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/gpu_backend.h"
#include "exec/cuda_resources.h"
#include "exec/gpu_module.h"
#include "frontend/frontend.h"
#include "runtime/data.h"
#include "runtime/errors.h"
#include "runtime/interpreter.h"
#include "schedule/resolve.h"
#include "support/nvcc.h"

namespace tessel::gputest {

namespace fs = std::filesystem;

#ifdef TESSEL_SOURCE_DIR
/// The name of every benchmark program (benchmarks/*.sten), sorted.
inline std::vector<std::string> benchmarkNames() {
  std::vector<std::string> v;
  for (auto& e : fs::directory_iterator(fs::path(TESSEL_SOURCE_DIR) / "benchmarks"))
    if (e.path().extension() == ".sten") v.push_back(e.path().stem().string());
  std::sort(v.begin(), v.end());
  return v;
}

/// The per-benchmark GPU sweeps (every family, staging, streaming, time tiles, unrolling,
/// prefetching, retiming, folding, perspectives, Oclgrind) are instantiated twice: `Core/` on a
/// set of benchmarks that covers the features of the others, `Full/` on the rest. CI and
/// scripts/test.sh run `Core/` (and leave out `^Full/`); scripts/test.sh --full runs both. The
/// core set: 1-D with boundary calls and a 6-call time loop (jacobi1d-boundary), a 3-D box with
/// corners (j3d27pt), float with a local scalar and a ping-pong loop (cheby), a local scalar
/// assigned twice across two calls (denoise), local arrays with statement domains and `inout:`
/// (cosmo-hdiff), three 2-D calls with a 1-D source and compound assignments (fdtd2d), radius 4
/// with five outputs and a 1-D metric (hypterm). Every benchmark still runs in CI through
/// `tessel check` and `info`, the C++ backend (test_benchmarks), `global` and `global-stream`
/// on PoCL and through nvcc (GpuBenchmark). The split keeps CI within its time limit on a fresh
/// machine, where every generated program and kernel is compiled anew.
inline bool isCoreBenchmark(const std::string& b) {
  static const std::vector<std::string> core = {
      "cheby", "cosmo-hdiff", "denoise", "fdtd2d", "hypterm", "j3d27pt", "jacobi1d-boundary"};
  return std::find(core.begin(), core.end(), b) != core.end();
}

/// The benchmarks of `Core/` (core == true) or of `Full/` (the others), sorted.
inline std::vector<std::string> sweepBenchmarkNames(bool core) {
  std::vector<std::string> v;
  for (const std::string& b : benchmarkNames())
    if (isCoreBenchmark(b) == core) v.push_back(b);
  return v;
}

inline fs::path benchmarkPath(const std::string& b) {
  return fs::path(TESSEL_SOURCE_DIR) / "benchmarks" / (b + ".sten");
}
#endif

/// A test name from a benchmark's name ('-' is not allowed there).
inline std::string benchmarkTestName(const ::testing::TestParamInfo<std::string>& p) {
  std::string n = p.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

#ifdef TESSEL_SOURCE_DIR
/// Instantiates a per-benchmark sweep as `Core/SUITE.TEST/benchmark` and
/// `Full/SUITE.TEST/benchmark` (sweepBenchmarkNames).
#define TESSEL_INSTANTIATE_BENCHMARK_SWEEP(Suite)                                              \
  INSTANTIATE_TEST_SUITE_P(Core, Suite,                                                        \
                           ::testing::ValuesIn(::tessel::gputest::sweepBenchmarkNames(true)),  \
                           ::tessel::gputest::benchmarkTestName);                              \
  INSTANTIATE_TEST_SUITE_P(Full, Suite,                                                        \
                           ::testing::ValuesIn(::tessel::gputest::sweepBenchmarkNames(false)), \
                           ::tessel::gputest::benchmarkTestName)
#endif

/// Whether parameter `p` is the upper bound of an `iterate` loop (`iterate 1:T`).
inline bool iterateBound(const std::vector<ExecNode>& body, int p) {
  for (const ExecNode& n : body)
    if (n.kind == ExecNode::Kind::Iterate &&
        ((n.hi && n.hi->kind == ExprKind::ParamRef && n.hi->index == p) || iterateBound(n.body, p)))
      return true;
  return false;
}

/// Parameter values for a run: the extent parameters (those not introduced by an `iterate`
/// bound), in order, from `extents`; the others (time steps) at their defaults (2 where there
/// is none), at most `maxOther`, or, where `iterations` > 0, an iterate loop's bound at exactly
/// `iterations`.
inline ParamValues extentParams(const Program& prog, const std::vector<int64_t>& extents,
                                int64_t maxOther = INT64_MAX, int64_t iterations = 0) {
  ParamValues v;
  size_t ext = 0;
  for (auto& p : prog.params) {
    if (!p.fromIterate && ext < extents.size()) {
      v.push_back(extents[ext++]);
      continue;
    }
    if (iterations > 0 && iterateBound(prog.body, static_cast<int>(v.size()))) {
      v.push_back(iterations);
      continue;
    }
    int64_t d = p.defaultValue ? evalInt(p.defaultValue, v) : 2;
    v.push_back(std::min(d, maxOther));
  }
  return v;
}

/// A schedule as a test picks it, set directly (no hints, fitting or validation), the same for
/// every stencil: the family; the block (x first; {0, 0, 0}: the family's default, else 0 means
/// 1); the streamed iterator dimension of the streaming families (-1: the slowest); stream:
/// planes per block (0: full_stream); the time tile; per grid dimension (x first) the unroll
/// factor (0 means 1) and cyclic distribution.
struct Config {
  ScheduleFamily family = ScheduleFamily::Global;
  std::array<int, 3> block = {0, 0, 0};
  int streamDim = -1;
  int chunk = 16;
  int timeTile = 1;
  std::array<int, 3> unroll = {1, 1, 1};
  bool cyclic = false;
  bool retime = false, prefetch = false;  // Schedule::retime, Schedule::prefetch
};

/// The Schedule of stencil `stencil` that `c` describes.
inline Schedule scheduleOf(const Program& prog, int stencil, const Config& c) {
  Schedule s;
  s.stencil = stencil;
  s.family.value = c.family;
  if (c.block[0] != 0) s.block.value = {c.block[0], c.block[1], c.block[2]};
  int streamed = -1;
  if (streams(c.family) && prog.dims() > 1) {
    streamed = c.streamDim < 0 ? 0 : c.streamDim;
    std::string name = streamed < prog.dims() ? prog.iterators[streamed].name
                                              : fmt::format("(dimension {})", streamed);
    s.stream = Setting<StreamSpec>{{name, c.chunk == 0}, {}};
  }
  s.chunk.value = c.chunk;
  s.timeTile.value = c.timeTile;
  size_t gd = 0;
  for (int d = prog.dims() - 1; d >= 0 && gd < 3; --d)
    if (d != streamed)
      s.unroll.value.factors.emplace_back(prog.iterators[d].name,
                                          c.unroll[gd] == 0 ? 1 : c.unroll[gd]),
          ++gd;
  s.unroll.value.distribution = c.cyclic ? UnrollDistribution::Cyclic : UnrollDistribution::Blocked;
  s.retime.value = c.retime;
  s.prefetch.value = c.prefetch;
  return s;
}

/// `prog`'s schedule resolved (schedule/resolve.h) with every stencil under `c`.
inline ResolvedSchedule resolved(const Program& prog, const Config& c = {}) {
  std::vector<Schedule> all;
  for (size_t k = 0; k < prog.stencils.size(); ++k)
    all.push_back(scheduleOf(prog, static_cast<int>(k), c));
  return resolve(prog, all);
}

/// generateGpu under `c`.
inline GpuSources generate(const Program& prog, GpuApi api, const Config& c = {}) {
  return generateGpu(prog, api, resolved(prog, c));
}

/// A parsed program; the SourceFile is kept alive with it.
struct Parsed {
  std::unique_ptr<SourceFile> file;
  std::optional<Program> prog;
};

inline Parsed parse(const std::string& text, const std::string& name = "test.tsl") {
  Parsed p;
  p.file = std::make_unique<SourceFile>(name, text);
  DiagnosticEngine diags;
  p.prog = parseProgram(*p.file, diags);
  std::ostringstream os;
  diags.print(os);
  EXPECT_TRUE(p.prog.has_value()) << os.str();
  return p;
}

inline Parsed parseFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path.string());
}

/// `tessel run`'s " --param NAME=VALUE" flags for the program in `file`: its extents from
/// `sizes` (one list per number of dimensions, 1-D first), its other parameters (time steps) at
/// their defaults, at most `maxOther` (extentParams).
inline std::string paramFlags(const fs::path& file, const std::vector<std::vector<int64_t>>& sizes,
                              int64_t maxOther, int64_t iterations = 0) {
  Parsed p = parseFile(file);
  ParamValues v = extentParams(*p.prog, sizes.at(static_cast<size_t>(p.prog->dims() - 1)), maxOther,
                               iterations);
  std::string out;
  for (size_t i = 0; i < v.size(); ++i)
    out += " --param " + p.prog->params[i].name + "=" + std::to_string(v[i]);
  return out;
}

/// paramFlags at awkward extents (no multiple of a block, of a chunk or of 2 or 3): 300; 23x70;
/// 13x21x35; at most 2 time steps.
inline std::string awkwardParamFlags(const fs::path& file) {
  return paramFlags(file, {{300}, {23, 70}, {13, 21, 35}}, 2);
}

/// The benchmarks whose statements cannot all be retimed (tests/e2e/test_retime.cpp says why).
/// Whether every statement of the benchmark can be retimed by the per-statement kernels of
/// stream and global-stream (tests/e2e/test_retime.cpp)...
inline bool retimable(const std::string& benchmark) {
  for (const char* b : {"denoise", "gradient", "jacobi1d-boundary", "rhs4center", "rhs4sg"})
    if (benchmark == b) return false;
  return true;
}

/// ... and by the fused streamed kernels of stream + time_tile (cheby's per-point local scalar
/// is retimed into its buffer by the former only).
inline bool retimableFused(const std::string& benchmark) {
  return retimable(benchmark) && benchmark != "cheby";
}

inline bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

/// Shared across runs of the test binaries, so repeated runs reuse the compiled libraries.
inline GpuBuildOptions testOptions(GpuApi api = GpuApi::OpenCL) {
  GpuBuildOptions o = GpuBuildOptions::fromEnvironment(api);
  o.cacheRoot =
      fs::temp_directory_path() /
      fmt::format("tessel-test-{}-{}", api == GpuApi::OpenCL ? "opencl" : "cuda", getuid());
  return o;
}

/// The shared memory ptxas reports for a CUDA kernel whose tiles take `analysed` bytes: above
/// CUDA's 48 KiB of static shared memory per block the kernel takes them as dynamic shared
/// memory (codegen/dialect_gpu.cpp), which ptxas does not count.
inline int64_t ptxasSharedBytes(int64_t analysed) { return analysed > 48 * 1024 ? 0 : analysed; }

inline CudaResourceOptions resourceOptions() {
  CudaResourceOptions o;
  o.cacheRoot = fs::temp_directory_path() / fmt::format("tessel-test-nvcc-{}", getuid());
  return o;
}

/// Compiles the CUDA of `src` with nvcc and checks the fused kernels (those with fusedCalls):
/// no warning, every one in ptxas's report with the shared memory the lowering computed, and,
/// with `noSpills`, no spill. Prints each one's registers and shared memory to the test log.
inline void expectFusedKernelsCompile(const GpuSources& src, const std::string& label,
                                      bool noSpills) {
  CudaResourceReport r = cudaResources(src.hostSource, resourceOptions());
  EXPECT_TRUE(r.warnings.empty()) << label << ": " << fmt::format("{}", fmt::join(r.warnings, "\n"))
                                  << "\n"
                                  << r.output;
  ASSERT_EQ(r.kernels.size(), src.launchNames.size()) << r.output;
  for (auto& ki : src.kernels) {
    if (ki.fusedCalls.empty()) continue;
    const KernelResources* kr = r.find(ki.name);
    ASSERT_NE(kr, nullptr) << ki.name << " missing from ptxas's report:\n" << r.output;
    std::cout << "[ptxas] " << label << " " << ki.name << ": " << kr->registers << " registers, "
              << kr->sharedBytes << " bytes smem, " << kr->spillStores << "+" << kr->spillLoads
              << " spill bytes\n";
    EXPECT_EQ(kr->sharedBytes, ptxasSharedBytes(ki.sharedBytes))
        << ki.name << ": ptxas and the lowering differ";
    if (noSpills) {
      EXPECT_EQ(kr->spillStores + kr->spillLoads, 0) << ki.name << " spills";
    }
  }
}

/// A fresh directory for one test (removed by the caller).
inline fs::path freshDir(const std::string& name) {
  fs::path d =
      fs::temp_directory_path() / fmt::format("tessel-test-gpu-{}-{}-{}", getuid(), name, getpid());
  fs::remove_all(d);
  return d;
}

/// The arrays a GPU run copies back: the copyout list, or every global array a call writes.
inline std::vector<int> resultArrays(const Program& prog) {
  std::vector<int> out;
  for (size_t a = 0; a < prog.arrays.size(); ++a)
    if (prog.arrays[a].data.copyout) out.push_back(static_cast<int>(a));
  if (!out.empty()) return out;
  std::vector<bool> seen(prog.arrays.size(), false);
  for (auto& c : prog.calls)
    for (auto& s : c.stmts)
      if (s.lhs->kind == ExprKind::ArrayRef && !s.lhs->array.local) seen[s.lhs->array.index] = true;
  for (size_t a = 0; a < seen.size(); ++a)
    if (seen[a]) out.push_back(static_cast<int>(a));
  return out;
}

/// Runs `m` and the interpreter from the same seeded state; expects the result arrays to agree
/// within the default tolerance (exactly for ints and bools) and every other array untouched.
/// `tolerances` overrides the default for the arrays it names.
inline void expectAgrees(const Program& prog, const GpuModule& m, const ParamValues& params,
                         uint64_t seed = 7, const std::string& what = "",
                         const std::map<std::string, double>& tolerances = {},
                         bool normwise = false) {
  ProgramState initial = makeState(prog, params, seed), ref = initial, got = initial;
  interpret(prog, ref);
  double secs = m.run(got);
  EXPECT_GE(secs, 0.0);
  std::vector<int> results = resultArrays(prog);
  for (size_t a = 0; a < prog.arrays.size(); ++a) {
    bool result = std::find(results.begin(), results.end(), static_cast<int>(a)) != results.end();
    const ArrayData& want = result ? ref.arrays[a] : initial.arrays[a];
    auto tol = tolerances.find(prog.arrays[a].name);
    CompareResult r = compareArrays(
        got.arrays[a], want,
        tol != tolerances.end() ? tol->second : defaultTolerance(prog.arrays[a].type), normwise);
    std::string idx;
    for (auto x : r.worstIndex) idx += (idx.empty() ? "" : ", ") + std::to_string(x);
    EXPECT_TRUE(r.ok) << what << " array " << prog.arrays[a].name
                      << (result ? "" : " (not copied out)") << ": " << r.mismatches
                      << " mismatches, worst at [" << idx << "] got " << r.got << " expected "
                      << r.expected << " (relative error " << r.maxRelErr
                      << ")\nsource: " << m.sourcePath();
  }
}

/// Why OpenCL cannot run here, or "" when it can (checked once per process).
inline std::string openclUnavailable() {
  static const std::string why = [] {
    Parsed p = parse(
        "parameter N=4;\niterator i;\ndouble a[N];\nstencil s (a) { a[i] = 1.0; }\n"
        "s (a);\n");
    try {
      OpenclModule m(*p.prog, resolved(*p.prog), testOptions());
      return std::string();
    } catch (const EnvironmentError& e) {
      return std::string(e.what());
    }
  }();
  return why;
}

// scripts/test.sh installs PoCL and sets TESSEL_TESTS_REQUIRE_OPENCL=1: there a missing OpenCL
// device fails the test instead of skipping it.
#define TESSEL_REQUIRE_OPENCL()                                                     \
  do {                                                                              \
    if (std::string why = ::tessel::gputest::openclUnavailable(); !why.empty()) {   \
      if (std::getenv("TESSEL_TESTS_REQUIRE_OPENCL"))                               \
        FAIL() << "no OpenCL device (TESSEL_TESTS_REQUIRE_OPENCL is set): " << why; \
      GTEST_SKIP() << "skipped: no OpenCL device: " << why;                         \
    }                                                                               \
  } while (0)

}  // namespace tessel::gputest
