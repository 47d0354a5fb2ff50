// The GPU targets on the command line: `run --backend opencl|cuda`, `emit --target
// opencl|cuda`, `resources` (text and JSON), and their errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "exec/cuda_resources.h"
#include "exec/gpu_module.h"
#include "support/command.h"
#include "support/nvcc.h"

using namespace tessel::testing;
namespace fs = std::filesystem;

namespace {

std::string bench(const std::string& b) { return sourceDir() + "/benchmarks/" + b + ".sten"; }

fs::path freshDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("tessel-cli-gpu-" + std::to_string(getpid())) / name;
  fs::remove_all(d);
  return d;
}

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

}  // namespace

TEST(CliGpu, RunOpenclVerifiesAndReportsDeviceTimeAndThroughput) {
  // An awkward size: 37 is not a multiple of the 32-wide block, 6 is below the block's 8 rows.
  for (const char* sched : {"global", "global-stream"}) {
    auto r = runCommand(tesselBinary() + " run " + bench("j2d5pt") +
                        " --backend opencl --verify --repeat 2 --param N=6 --param M=37" +
                        " --schedule " + sched + " --work-dir " +
                        freshDir(std::string("run-") + sched).string());
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(has(r.output, "backend      opencl (generated OpenCL on ")) << r.output;
    EXPECT_TRUE(has(r.output, "time: kernels, from device events")) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(time +[0-9.]+ (us|ms|s) \(median)")))
        << r.output;
    EXPECT_TRUE(std::regex_search(r.output,
                                  std::regex(R"(throughput +[0-9.]+ GStencil/s, [0-9.]+ GFLOP/s)")))
        << r.output;
    EXPECT_TRUE(has(r.output, "verification PASSED")) << r.output;
  }
}

TEST(CliGpu, RunOpenclPassesTheScheduleThrough) {
  // A 1-wide block and streaming along j (not the default k): the generated code shows both.
  fs::path dir = freshDir("sched");
  auto r = runCommand(tesselBinary() + " run " + bench("j3d7pt") +
                      " --backend opencl --verify --param L=9 --param M=5 --param N=13" +
                      " --schedule global-stream --full-stream j --block 16,2 --work-dir " +
                      dir.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(has(r.output, "verification PASSED")) << r.output;
  std::ifstream in(dir / "tessel_host.cpp");
  std::string host((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(has(host, "global-stream")) << "the generated header names the family";
  EXPECT_TRUE(std::regex_search(host, std::regex(R"(16 *, *2)"))) << "the block 16x2 is used";
}

TEST(CliGpu, ClausesNotAppliedYetAreNoted) {
  // `global` applies unroll (issue 12) but not a time tile.
  auto r = runCommand(tesselBinary() + " run " + bench("j2d5pt") +
                      " --backend opencl --param N=8 --param M=8 --schedule global --unroll j=2 "
                      "--time-tile 2 --verify");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_FALSE(has(r.output, "unroll")) << r.output;
  EXPECT_TRUE(has(r.output, "time_tile 2")) << r.output;
  EXPECT_TRUE(has(r.output, "verification PASSED")) << r.output;
  // The fused kernels of stream + time_tile apply it too (a copy of each stage per point); a
  // factor along the streamed iterator, asked for on the command line, is an error.
  auto t = runCommand(tesselBinary() + " run " + bench("j2d5pt") +
                      " --backend opencl --param N=8 --param M=8 --schedule stream "
                      "--unroll i=2 --time-tile 2 --verify");
  ASSERT_EQ(t.exitCode, 0) << t.output;
  EXPECT_FALSE(has(t.output, "unroll")) << t.output;
  EXPECT_TRUE(has(t.output, "verification PASSED")) << t.output;
  auto j = runCommand(tesselBinary() + " run " + bench("j2d5pt") +
                      " --backend opencl --param N=8 --param M=8 --schedule stream "
                      "--unroll i=2,j=2 --time-tile 2 --verify");
  EXPECT_EQ(j.exitCode, 1) << j.output;
  EXPECT_TRUE(has(j.output,
                  "error: --unroll i=2,j=2: 'j' is the iterator the 'stream' schedule "
                  "streams"))
      << j.output;
  EXPECT_TRUE(has(j.output, "hint: unroll along i instead")) << j.output;
  // `shared` applies unroll (no note for it), and runs correctly with it.
  auto s = runCommand(tesselBinary() + " run " + bench("j2d5pt") +
                      " --backend opencl --param N=19 --param M=11 --schedule shared "
                      "--unroll j=2 --verify");
  ASSERT_EQ(s.exitCode, 0) << s.output;
  EXPECT_FALSE(has(s.output, "unroll")) << s.output;
  EXPECT_TRUE(has(s.output, "verification PASSED")) << s.output;
}

TEST(CliGpu, RunCudaWithoutADeviceIsAUserError) {
  std::string why;
  if (tessel::cudaDeviceAvailable(&why)) GTEST_SKIP() << "skipped: this machine has a CUDA device";
  auto r = runCommand(tesselBinary() + " run " + bench("j2d5pt") + " --backend cuda");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_TRUE(has(r.output, "tessel: error: no CUDA device")) << r.output;
  EXPECT_FALSE(has(r.output, "internal error")) << r.output;
  // It stops before anything is compiled: neither the model's choice nor the register cap
  // (which runs nvcc) comes first, so a missing nvcc is not what it reports.
  EXPECT_FALSE(has(r.output, "note:")) << r.output;
  auto n = runCommand("NVCC=/nonexistent/nvcc " + tesselBinary() + " run " + bench("j2d5pt") +
                      " --backend cuda --max-registers auto");
  EXPECT_EQ(n.exitCode, 1) << n.output;
  EXPECT_TRUE(has(n.output, "tessel: error: no CUDA device")) << n.output;
  EXPECT_FALSE(has(n.output, "nvcc")) << n.output;
}

TEST(CliGpu, EmitOpenclWritesKernelsHostCodeAndCMakeLists) {
  fs::path d = freshDir("emit-ocl");
  auto r =
      runCommand(tesselBinary() + " emit " + bench("j2d5pt") + " --target opencl -o " + d.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  for (const char* f : {"tessel_kernels.cl", "tessel_host.cpp", "CMakeLists.txt"})
    EXPECT_TRUE(fs::exists(d / f)) << f << "\n" << r.output;
  EXPECT_TRUE(has(r.output, "2 kernels: call0_j2d5pt_s0 call1_j2d5pt_s0")) << r.output;
  EXPECT_TRUE(has(r.output, "cmake -S " + d.string())) << r.output;
}

TEST(CliGpu, EmitCudaWritesOneFileAndCMakeLists) {
  fs::path d = freshDir("emit-cuda");
  auto r = runCommand(tesselBinary() + " emit " + bench("heat") +
                      " --target cuda --arch sm_80 -o " + d.string());
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::exists(d / "tessel_program.cu")) << r.output;
  std::ifstream in(d / "CMakeLists.txt");
  std::string cm((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(has(cm, "set(CMAKE_CUDA_ARCHITECTURES 80)")) << cm;
  EXPECT_TRUE(has(r.output, "the placement of 'in'")) << "heat's #assign is noted\n" << r.output;
  // Under a family that stages nothing on chip, the note says so.
  auto g = runCommand(tesselBinary() + " emit " + bench("heat") + " --target opencl -o " +
                      freshDir("heat-global").string() + " --schedule global");
  EXPECT_EQ(g.exitCode, 0) << g.output;
  EXPECT_TRUE(has(g.output, "the placement of 'in' (") &&
              has(g.output, "does not apply to the 'global' family, which stages nothing on chip"))
      << g.output;
}

TEST(CliGpu, EmitRejectsAnUnknownTarget) {
  auto r = runCommand(tesselBinary() + " emit " + bench("heat") + " --target vulkan -o " +
                      freshDir("bad").string());
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_TRUE(has(r.output, "vulkan")) << r.output;
}

TEST(CliGpu, ResourcesPrintsPtxasFiguresPerKernel) {
  TESSEL_REQUIRE_NVCC();
  auto r = runCommand(tesselBinary() + " resources " + bench("j3d27pt"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(has(r.output, "ptxas resources for sm_90")) << r.output;
  // One row per kernel: name, schedule, bits of its index arithmetic, registers (> 0), shared,
  // local, spills, barriers; then its 64-bit copy.
  std::regex row(R"(call0_j3d27pt_s0 +global 32x8x1 +32 +([0-9]+) +0 +[0-9]+ +0 +0 +0)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, row)) << r.output;
  EXPECT_GT(std::stoi(m[1]), 0);
  std::regex copy(R"(call0_j3d27pt_s0_i64 +64-bit copy +64 +([0-9]+) +0)");
  EXPECT_TRUE(std::regex_search(r.output, m, copy)) << r.output;
  EXPECT_FALSE(has(r.output, "warning")) << r.output;
}

TEST(CliGpu, ResourcesAsJsonFollowsTheSchedule) {
  TESSEL_REQUIRE_NVCC();
  auto r = runCommand(tesselBinary() + " resources " + bench("j2d5pt") +
                      " --json --schedule global --block 64,4 --arch sm_80 2>/dev/null");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));  // after the cap note
  EXPECT_EQ(j["arch"], "sm_80");
  EXPECT_TRUE(j["warnings"].empty()) << r.output;
  // Two kernels and their 64-bit copies (pass narrow-indices), which run the same schedule: a
  // copy has every key a kernel has (family, block, call and statement were missing), those of
  // the kernel it copies, and copy_of naming it.
  ASSERT_EQ(j["kernels"].size(), 4u) << r.output;
  std::map<std::string, nlohmann::json> byName;
  for (auto& k : j["kernels"]) byName[k["name"].get<std::string>()] = k;
  for (auto& k : j["kernels"]) {
    for (const char* key : {"name", "registers", "shared_bytes", "local_bytes", "stack_bytes",
                            "spill_store_bytes", "spill_load_bytes", "barriers", "constant_bytes",
                            "index_bits", "family", "block", "call", "statement"})
      EXPECT_TRUE(k.contains(key)) << key << " " << k;
    if (k.contains("copy_of")) {
      EXPECT_EQ(k["index_bits"], 64);
      const std::string orig = k["copy_of"].get<std::string>();
      EXPECT_EQ(k["name"], orig + "_i64");
      ASSERT_TRUE(byName.count(orig)) << orig;
      for (const char* key : {"family", "block", "call", "statement"})
        EXPECT_EQ(k[key], byName[orig][key]) << key;
      continue;
    }
    EXPECT_EQ(k["index_bits"], 32);
    EXPECT_EQ(k["family"], "global");
    EXPECT_EQ(k["block"], nlohmann::json::array({64, 4, 1}));
    EXPECT_GT(k["registers"].get<int>(), 0);
    EXPECT_EQ(k["spill_store_bytes"], 0);
  }
  EXPECT_EQ(j["kernels"][0]["name"], "call0_j2d5pt_s0") << "launch order";
}

TEST(CliGpu, ResourcesWithoutNvccSaysSo) {
  auto r =
      runCommand("env NVCC=/nonexistent/nvcc " + tesselBinary() + " resources " + bench("j2d5pt"));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_TRUE(has(r.output, "nvcc")) << r.output;
  EXPECT_FALSE(has(r.output, "internal error")) << r.output;
}

TEST(CliGpu, ResourcesRejectsABadSchedule) {
  auto r = runCommand(tesselBinary() + " resources " + bench("heat") + " --block 64,32");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_TRUE(has(r.output, "2048 threads")) << r.output;
}

TEST(CliGpu, ArchIsCheckedAndOnlyForCuda) {
  // Not an architecture: refused by the option parser, before anything is compiled.
  auto bad = runCommand(tesselBinary() + " resources " + bench("heat") + " --arch volta");
  EXPECT_EQ(bad.exitCode, 1) << bad.output;
  EXPECT_TRUE(has(bad.output, "'volta' is not a CUDA architecture")) << bad.output;
  // --arch means nothing for the OpenCL and C++ targets: an error, not silently ignored.
  auto cl = runCommand(tesselBinary() + " emit " + bench("heat") + " --target opencl --arch sm_80" +
                       " -o " + freshDir("arch-cl").string());
  EXPECT_EQ(cl.exitCode, 1) << cl.output;
  EXPECT_TRUE(has(cl.output, "--arch applies to --target cuda only")) << cl.output;
  // The build hint names another architecture than the one asked for.
  auto cu = runCommand(tesselBinary() + " emit " + bench("heat") + " --target cuda --arch sm_80" +
                       " -o " + freshDir("arch-cu").string());
  ASSERT_EQ(cu.exitCode, 0) << cu.output;
  EXPECT_TRUE(has(cu.output, "it builds libtessel_program.so for sm_80")) << cu.output;
  EXPECT_TRUE(has(cu.output, "-DCMAKE_CUDA_ARCHITECTURES=90")) << cu.output;
}

TEST(CliGpu, ResourcesForAnArchitectureNvccDropped) {
  TESSEL_REQUIRE_NVCC();
  // CUDA 13 no longer compiles for sm_35: a user error that says so, not an internal error.
  auto r = runCommand(tesselBinary() + " resources " + bench("heat") + " --arch sm_35");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_TRUE(has(r.output, "does not support --arch sm_35")) << r.output;
  EXPECT_FALSE(has(r.output, "internal error")) << r.output;
}

TEST(CliGpu, SharedMemoryBeyond48KiBIsDynamic) {
  // Issue 11: j3d7pt with T = 4 and a 32x32 block needs 92,736 bytes of shared memory per block
  // (101,984 with the input ring's spare plane, gpu.md section 12),
  // beyond CUDA's 48 KiB of static shared memory but within the H100's opt-in 227 KiB: the
  // fused kernel carves its arrays out of dynamic shared memory (16-byte-aligned offsets), the
  // host raises the kernel's limit and passes the bytes at launch. It verifies on PoCL at an
  // awkward size and, with nvcc, compiles.
  const std::string flags = " --schedule stream --stream k --time-tile 4 --block 32,32";
  // The CUDA host and kernels emitted for `f` (into a fresh directory `name`).
  auto emitted = [&](const std::string& name, const std::string& f) {
    fs::path dir = freshDir(name);
    auto e = runCommand(tesselBinary() + " emit " + bench("j3d7pt") + " --target cuda -o " +
                        dir.string() + f);
    EXPECT_EQ(e.exitCode, 0) << e.output;
    std::ifstream in(dir / "tessel_program.cu");
    std::stringstream cu;
    cu << in.rdbuf();
    return cu.str();
  };
  // Verified on PoCL at an awkward size (a missing device fails where the tests require one).
  auto verifies = [&](const std::string& f) {
    auto r = runCommand(tesselBinary() + " run " + bench("j3d7pt") +
                        " --backend opencl --verify --param L=23 --param M=45 --param N=37 "
                        "--param T=3" +
                        f);
    if (has(r.output, "no OpenCL device")) {
      EXPECT_EQ(std::getenv("TESSEL_TESTS_REQUIRE_OPENCL"), nullptr) << r.output;
      return;
    }
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(has(r.output, "verification PASSED")) << r.output;
  };
  const std::string src = emitted("dynamic-shared", flags);
  EXPECT_TRUE(has(src, "extern __shared__ __align__(16) unsigned char tessel_dynamic_shared[];"))
      << src;
  EXPECT_TRUE(has(src, "reinterpret_cast<double*>(tessel_dynamic_shared + 36992);")) << src;
  EXPECT_TRUE(has(src, "kTesselKernelDynamicShared[] = {0, 0, 101984, 0, 0, 101984, 0};")) << src;
  EXPECT_TRUE(has(src, "cudaFuncAttributeMaxDynamicSharedMemorySize")) << src;
  // The kernels of 48 KiB or less keep their static arrays.
  EXPECT_TRUE(has(src, "__shared__ double s_in_0[")) << src;
  verifies(flags);
  // Beyond what a machine allows per block: refused, naming the limit (the K20c, compute
  // capability 3.5, has no opt-in: 48 KiB).
  auto k = runCommand(tesselBinary() + " check " + bench("j3d7pt") + flags + " --machine k20c");
  EXPECT_EQ(k.exitCode, 1) << k.output;
  EXPECT_TRUE(has(k.output, "needs 101984 bytes of shared memory per block, more than the 49152"))
      << k.output;
  // Without the spare plane: the issue's 92,736 bytes, also dynamic, also verified.
  const std::string off = flags + " --spare-plane off";
  const std::string srcOff = emitted("dynamic-shared-off", off);
  EXPECT_TRUE(has(srcOff, "kTesselKernelDynamicShared[] = {0, 0, 92736, 0, 0, 92736, 0};"))
      << srcOff;
  verifies(off);
  if (tessel::findNvcc().empty() && !tessel::testing::nvccRequired()) return;
  for (const std::string& f : {flags, off}) {
    auto res = runCommand(tesselBinary() + " resources " + bench("j3d7pt") + f);
    EXPECT_EQ(res.exitCode, 0) << res.output;
    EXPECT_TRUE(has(res.output, "fused0_p0_j3d7pt")) << res.output;
  }
}
