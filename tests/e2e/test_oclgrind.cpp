// GPU kernels checked for data races and out-of-bounds accesses (issue 9). PoCL runs the
// work-items of a group in loops between barriers, so it can hide a missing barrier or a write
// past a local array; Oclgrind (Debian's `oclgrind`, an OpenCL simulator) reports both. Every
// benchmark runs under every family (shared, also with two points per thread blocked and
// cyclic, stream, overlapped with T = 1 and 2, stream + time_tile 2 and 3, also without the
// input rings' spare plane, global and global-stream; issue 11's changes on and off; issue 12:
// unrolled under stream, global and overlapped, the input perspective, and each register-level
// optimisation that applies: prefetch, fold, retime) at tiny sizes with `oclgrind --data-races
// tessel run --verify`, and must verify with no Oclgrind report. The barriers of these kernels
// are placed by pass insert-barriers, so this is also its end-to-end check. Fusion groups and
// the stream family's statement fusion (issue 13) too. A deliberately racy program proves the
// check can fail.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "support/command.h"
#include "support/files.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

/// The first line of each report Oclgrind wrote into `output` (an invalid access, a data race,
/// an uninitialised value, an API error, work-group divergence).
std::vector<std::string> oclgrindReports(const std::string& output) {
  static const char* starts[] = {"Invalid read",
                                 "Invalid write",
                                 "Read-write data race",
                                 "Write-write data race",
                                 "Uninitialized value",
                                 "Work-group divergence",
                                 "Oclgrind - OpenCL runtime error",
                                 "Index (",
                                 "Barrier divergence"};
  std::vector<std::string> out;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    for (const char* s : starts)
      if (line.rfind(s, 0) == 0) out.push_back(line);
  return out;
}

bool haveOclgrind() { return runCommand("oclgrind --version").exitCode == 0; }

// scripts/deps.sh installs oclgrind; with TESSEL_TESTS_REQUIRE_OPENCL set (scripts/test.sh) its
// absence fails the test instead of skipping it.
#define TESSEL_REQUIRE_OCLGRIND()                                               \
  do {                                                                          \
    if (!haveOclgrind()) {                                                      \
      if (std::getenv("TESSEL_TESTS_REQUIRE_OPENCL"))                           \
        FAIL() << "oclgrind not found (TESSEL_TESTS_REQUIRE_OPENCL is set)";    \
      GTEST_SKIP() << "skipped: oclgrind not found (apt-get install oclgrind)"; \
    }                                                                           \
  } while (0)

/// Runs `tessel run FILE --backend opencl --verify ARGS` under Oclgrind and expects it to pass
/// verification with no report.
void expectClean(const std::string& file, const std::string& args) {
  // Oclgrind's device has 32 KiB of local memory; schedules are validated against the default
  // machine's opt-in maximum per block (H100: 227 KiB): give the simulated device as much.
  // Oclgrind charges a kernel with the local memory of every kernel of the program whose name
  // starts with its name (call0_rhs4center_s1 with _s10 to _s19, and their 64-bit copies):
  // rhs4center's and rhs4sg's 30 statements pass the limit that way, each one alone does not;
  // so do diffterm's fused kernels of stream + time_tile (fused0_p0_velgrad, 178,176 B, with
  // its 64-bit copy fused0_p0_velgrad_i64).
  const bool manyKernels = file.find("rhs4center") != std::string::npos ||
                           file.find("rhs4sg") != std::string::npos ||
                           file.find("diffterm") != std::string::npos;
  std::string cmd =
      fmt::format("oclgrind --data-races --local-mem-size {} ", manyKernels ? 4194304 : 232448) +
      tesselBinary() + " run " + file + " --backend opencl --verify " + args;
  auto r = runCommand(cmd);
  auto reports = oclgrindReports(r.output);
  EXPECT_TRUE(reports.empty()) << cmd << "\nOclgrind reported " << reports.size()
                               << " problems, the first: " << reports.front() << "\n"
                               << r.output.substr(0, 4000);
  EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output.substr(0, 4000);
  EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n"
                                                                     << r.output.substr(0, 4000);
}

/// Tiny extents, none a multiple of a block: 37 (1-D), 13x19 (2-D), 7x9x11 (3-D); at most 3
/// time steps (so that a time tile of 2 leaves a remainder).
std::string tinyParams(const fs::path& file) {
  return paramFlags(file, {{37}, {13, 19}, {7, 9, 11}}, 3);
}

const char* kFamilies[] = {
    "--schedule shared",
    "--schedule shared --unroll i=2",
    "--schedule shared --unroll i=2,cyclic",
    "--schedule stream",
    "--schedule overlapped",
    "--schedule overlapped --time-tile 2",
    "--schedule stream --time-tile 2",
    "--schedule stream --time-tile 3",  // spare planes with more stages between the loads
    "--schedule stream --time-tile 2 --spare-plane off",
    "--schedule stream --time-tile 2 --unroll i=2,cyclic",  // copies of each fused stage
    // Issue 12: unrolling under stream (registers per point) and global (a point per copy).
    "--schedule stream --unroll i=2,cyclic",
    "--schedule global --unroll i=3",
    "--schedule overlapped --time-tile 2 --unroll i=2,cyclic",
    "--schedule shared --perspective input",
    // Issue 11's changes switched off: 64-bit index arithmetic and the write-back of dead
    // arrays in the fused kernels (graphs replay the same launches); and switched on where it is
    // off by default: contracted multiply-adds (--fma, which changes the arithmetic, not the
    // accesses), also in the global families, unstaged (a kernel per statement, whose 32-bit
    // indices cover the whole array).
    "--schedule stream --time-tile 2 --index-bits 64 --dead-stores keep",
    "--schedule overlapped --time-tile 2 --index-bits 64 --dead-stores keep",
    "--schedule stream --index-bits 64",
    "--schedule global",
    "--schedule global-stream --fma",
    "--schedule stream --time-tile 2 --fma",
    // Issue 12's variants not covered above: the mixed perspective, unrolling under
    // global-stream without retiming, folding in a stream + time_tile kernel.
    "--schedule shared --perspective mixed",
    "--schedule global-stream --unroll i=2",
    "--schedule stream --time-tile 2 --fold",
    // Issue 13: a call's statements as one streamed kernel.
    "--schedule stream --fuse-statements",
};

class OclgrindBenchmark : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST(Oclgrind, ReportsADeliberatelyRacyKernel) {
  TESSEL_REQUIRE_OCLGRIND();
  auto r = runCommand(std::string("oclgrind --data-races ") + TESSEL_RACY_KERNEL);
  auto reports = oclgrindReports(r.output);
  ASSERT_FALSE(reports.empty()) << r.output;
  EXPECT_NE(r.output.find("data race"), std::string::npos) << r.output;
  // Without Oclgrind the same program runs cleanly: the race is invisible to an ordinary run.
  auto plain = runCommand(TESSEL_RACY_KERNEL);
  EXPECT_EQ(plain.exitCode, 0) << plain.output;
  EXPECT_TRUE(oclgrindReports(plain.output).empty()) << plain.output;
}

// A device with less local memory than the machine description (Oclgrind's 32 KiB by default,
// the H100's 227 KiB): the launch is refused with a user-level error that names the kernel and
// both figures (exit 1), not an internal error (found by scripts/random_programs.py, seed 36).
TEST(Oclgrind, AKernelBeyondTheDevicesLocalMemoryIsAClearError) {
  TESSEL_REQUIRE_OCLGRIND();
  // j3d7pt at T = 4 with a 32x32 block: 92,736 bytes of local memory (issue 11).
  const std::string cmd = "oclgrind " + tesselBinary() + " run " +
                          benchmarkPath("j3d7pt").string() +
                          " --backend opencl --schedule stream --time-tile 4 --block 32,32"
                          " --param L=6 --param M=40 --param N=40";
  auto r = runCommand(cmd);
  EXPECT_EQ(r.exitCode, 1) << cmd << "\n" << r.output;
  EXPECT_NE(r.output.find("tessel: error: kernel fused0_p0_"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bytes of local memory and the device Oclgrind: Oclgrind Simulator has "
                          "32768 (CL_DEVICE_LOCAL_MEM_SIZE)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

// The program of issue 9: the stream family wrote past a local array (see the file's header).
TEST(Oclgrind, StreamRingOwnPointStaysInsideThePlane) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  std::string file = sourceDir() + "/tests/e2e/data/stream_ring_oob.sten";
  for (const char* f : {"", "--schedule stream --time-tile 2", "--schedule shared",
                        "--schedule overlapped", "--schedule global-stream"})
    expectClean(file, f);
}

TEST_P(OclgrindBenchmark, StagedFamiliesHaveNoRaceOrOutOfBoundsAccess) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  fs::path file = benchmarkPath(GetParam());
  std::string params = tinyParams(file);
  Parsed p = parseFile(file);
  ASSERT_TRUE(p.prog);
  for (const char* family : kFamilies) {
    SCOPED_TRACE(family);
    // global-stream needs a dimension to stream (refused with a hint on a 1-D program).
    if (p.prog->dims() == 1 && std::string(family).find("global-stream") != std::string::npos)
      continue;
    // diffterm's default block leaves no output point inside its halo of 4 + 4 in the input
    // perspective (refused): widen it (test_perspective.cpp).
    const bool wideHalo =
        GetParam() == "diffterm" && std::string(family).find("input") != std::string::npos;
    expectClean(file.string(),
                std::string(family) + (wideHalo ? " --block 10,10,10" : "") + params);
  }
}

// Issue 12: every benchmark's kernels under each register-level optimisation that applies to it
// (retiming where its statements can all be retimed, tests/e2e/test_retime.cpp; prefetching
// where it streams; folding, which notes where nothing folds).
TEST_P(OclgrindBenchmark, RegisterOptimisationsHaveNoRaceOrOutOfBoundsAccess) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  fs::path file = benchmarkPath(GetParam());
  Parsed p = parseFile(file);
  ASSERT_TRUE(p.prog);
  std::vector<std::string> variants = {"--schedule shared --fold"};
  if (p.prog->dims() > 1) {
    variants.push_back("--schedule stream --prefetch");
    variants.push_back("--schedule stream --time-tile 2 --prefetch --chunk 3");
    variants.push_back("--schedule stream --fold");
  }
  if (retimable(GetParam())) {
    variants.push_back("--schedule stream --retime");
    variants.push_back("--schedule global-stream --retime");
  }
  if (retimableFused(GetParam())) {
    // Retimed stages of a stream + time_tile kernel: rings of one plane, chunks of 3 planes.
    variants.push_back("--schedule stream --time-tile 2 --retime --chunk 3");
    variants.push_back("--schedule stream --time-tile 3 --retime --prefetch");
  }
  for (const std::string& v : variants) {
    SCOPED_TRACE(v);
    expectClean(file.string(), v + tinyParams(file));
  }
}

// Issue 12: retimed kernels combined with unrolling.
TEST(Oclgrind, RetimedKernelsHaveNoRaceOrOutOfBoundsAccess) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  // Retimed and unrolled: accumulators per point of a thread. The plane's ring of two slots
  // (the load into the spare slot with no barrier before it) and, with --spare-plane off, of one.
  for (const char* b : {"j3d27pt", "gaussian"}) {
    SCOPED_TRACE(b);
    fs::path file = benchmarkPath(b);
    expectClean(file.string(), "--schedule stream --retime --chunk 3" + tinyParams(file));
    expectClean(file.string(),
                "--schedule stream --retime --spare-plane off --chunk 3" + tinyParams(file));
    expectClean(file.string(), "--schedule stream --retime --unroll i=2" + tinyParams(file));
    expectClean(file.string(),
                "--schedule global-stream --retime --unroll i=2,cyclic" + tinyParams(file));
  }
}

// Issue 12: prefetched stream kernels (--prefetch) with unrolling and retiming.
TEST(Oclgrind, PrefetchedKernelsHaveNoRaceOrOutOfBoundsAccess) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  for (const char* b : {"j3d27pt", "heat", "hypterm", "j2d9pt", "fdtd2d", "cosmo-hdiff"}) {
    SCOPED_TRACE(b);
    fs::path file = benchmarkPath(b);
    expectClean(file.string(),
                "--schedule stream --prefetch --retime --unroll i=2,cyclic" + tinyParams(file));
  }
}

// Issue 12: folded kernels (--fold) under shared, stream and stream + time_tile (the fused
// kernel's ring of a combination: tests/e2e/data/fold_sweep.sten, fold_partial.sten).
TEST(Oclgrind, FoldedKernelsHaveNoRaceOrOutOfBoundsAccess) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  for (const char* b : {"hypterm", "denoise"}) {
    SCOPED_TRACE(b);
    fs::path file = benchmarkPath(b);
    expectClean(file.string(), "--schedule shared --fold" + tinyParams(file));
    expectClean(file.string(),
                "--schedule stream --fold --prefetch --unroll i=2" + tinyParams(file));
  }
  const std::string data = sourceDir() + "/tests/e2e/data/";
  const std::string tiny = " --param L=7 --param M=9 --param N=11 --param T=2";
  expectClean(data + "fold_sweep.sten", "--schedule stream --time-tile 2 --fold" + tiny);
  expectClean(data + "fold_sweep.sten",
              "--schedule stream --time-tile 3 --chunk 3 --fold --prefetch --unroll j=2" + tiny);
  expectClean(data + "fold_partial.sten", "--schedule stream --time-tile 2 --fold" + tiny);
}

// Issue 12: a retimed statement that reads the array it writes (tests/e2e/test_retime.cpp): the
// terms that read it are evaluated at the output from global memory, never staged, so no block
// reads a plane a neighbouring chunk writes; retimed per-point local scalars, whose buffers
// (over the call's box) are read only for the block's outputs; and the streamed iterator in
// retimed terms.
TEST(Oclgrind, RetimedSelfReadingStatementHasNoRace) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  const std::string file = sourceDir() + "/tests/e2e/data/retime_self_read.sten";
  expectClean(file, "--schedule stream --retime --chunk 3");
  expectClean(file, "--schedule global-stream --retime --unroll i=2");
  // Per-point local scalars, written and read by retimed kernels.
  const std::string locals = sourceDir() + "/tests/e2e/data/retime_local_scalars.sten";
  expectClean(locals, "--schedule stream --retime --chunk 3");
  expectClean(locals, "--schedule global-stream --retime --unroll i=2");
  // The streamed iterator in retimed terms, per statement and in fused stages.
  const std::string iter = sourceDir() + "/tests/e2e/data/retime_iterator.sten";
  expectClean(iter, "--schedule stream --retime --chunk 3");
  expectClean(iter, "--schedule stream --time-tile 2 --retime --chunk 3");
}

// Issue 12: a stream + time_tile kernel whose input ring the occupancy target moved to global
// memory (tests/e2e/test_occupancy_demotion.cpp).
TEST(Oclgrind, DemotedInputRingHasNoRaceOrOutOfBoundsAccess) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  expectClean(sourceDir() + "/tests/e2e/data/occupancy_fused.sten",
              "--param L=7 --param M=9 --param N=11");
}

// The overlapped kernel's values in registers (values of one writer and chains of writers
// computed in their reader's loop, beside tiles that stay in shared memory), at T = 1 and 2.
TEST(Oclgrind, OverlappedValuesInRegistersHaveNoRaceOrOutOfBoundsAccess) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  // (The chain reads a[j+3]: its halo at T = 2 takes a block of 8 rows.)
  for (const auto& [data, block] : std::vector<std::pair<std::string, std::string>>{
           {"overlapped_registers.sten", "8,4"}, {"overlapped_register_chain.sten", "16,8"}})
    for (const char* t : {"1", "2"})
      expectClean(sourceDir() + "/tests/e2e/data/" + data,
                  "--schedule overlapped --register-values on --block " + block +
                      " --param M=11 --param N=9 --time-tile " + t);
}

// Issue 13: fusion groups (--fusion-groups): the six-stage chain split by recompute-fission and
// the horizontal diffusion split as MODESTO splits it in a small block memory, each group a
// kernel recomputing its halos on chip (overlapped) or, where no halo is needed, one kernel
// (global --fuse-statements); the promoted temporaries go through global memory between them.
TEST(Oclgrind, FusionGroupsHaveNoRaceOrOutOfBoundsAccess) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  const std::string chain = sourceDir() + "/tests/e2e/data/deep_chain.sten";
  const std::string tiny = " --param L=3 --param M=13 --param N=15";
  expectClean(chain, "--fusion-groups recompute-fission --schedule overlapped" + tiny);
  const fs::path hdiff = benchmarkPath("cosmo-hdiff");
  for (const char* f :
       {"--schedule overlapped", "--schedule global --fuse-statements", "--schedule stream"})
    expectClean(hdiff.string(), std::string("--fusion-groups '0|1-3' ") + f + tinyParams(hdiff));
}

// Issue 13: a deep-tuned composition written as a program (deep-tune -o): j2d5pt's 6 steps as
// 3x1 + 2x1 + 1x1, each part one fused kernel under stream + time_tile, and j3d7pt's under
// overlapped.
TEST(Oclgrind, ADeepTunedCompositionHasNoRaceOrOutOfBoundsAccess) {
  TESSEL_REQUIRE_OCLGRIND();
  TESSEL_REQUIRE_OPENCL();
  for (const auto& [bench, family] : std::vector<std::pair<std::string, std::string>>{
           {"j2d5pt", ""}, {"j3d7pt", " --schedule overlapped"}}) {
    SCOPED_TRACE(bench);
    const fs::path dir = freshTempDir("oclgrind-deep-tune", bench);
    const fs::path file = benchmarkPath(bench);
    auto w = runCommand(tesselBinary() + " deep-tune " + file.string() + family + " -o " +
                        dir.string() + " --composition '3x1 + 2x1 + 1x1'" + tinyParams(file));
    ASSERT_EQ(w.exitCode, 0) << w.output;
    expectClean((dir / (bench + "-deep-tuned.sten")).string(), family);
  }
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(OclgrindBenchmark);
