// Pass narrow-indices (transforms/narrow_indices.h), `--index-bits auto|32|64` and the pragma
// clause `index_bits`: 32-bit kernels with a 64-bit copy under auto, the host's run-time test
// of the sizes (a run whose parameters need 64 bits takes the copy, or stops under 32), kernels
// that compute with ints kept at 64 bits, and the registers ptxas gives the narrowed kernels
// of j3d7pt on sm_90 (issue 11's acceptance figures).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "exec/cuda_resources.h"
#include "support/files.h"
#include "support/nvcc.h"
#include "transforms/narrow_indices.h"

using namespace tessel::testing;
namespace fs = std::filesystem;

namespace {

/// The CUDA file `tessel emit` writes for `args`.
std::string emitCuda(const std::string& name, const std::string& args) {
  fs::path d = freshTempDir("narrow", name);
  auto r = runCommand(tesselBinary() + " emit --target cuda -o " + d.string() + " " + args);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return readText(d / "tessel_program.cu");
}

/// The text of kernel `name` in `cu` (from its name to the next kernel or the tables).
std::string kernelText(const std::string& cu, const std::string& name) {
  size_t at = cu.find(" " + name + "(");
  if (at == std::string::npos) return "";
  size_t end = cu.find("__global__", at);
  return cu.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// A 1-D program with a parameter far beyond 2^30 that no array uses: the host's test of the
// sizes fails, so under auto every launch takes the 64-bit copy.
const char* kBigParameter = R"(parameter N=37, BIG=2000000000;
iterator i;
double a[N], b[N];
copyin a;
stencil s (b, a) {
  b[i] = 0.5 * (a[i-1] + a[i+1]);
}
s (b, a);
copyout b;
)";

// A statement that computes with ints (i * i): its kernel keeps 64-bit ints.
const char* kIntArithmetic = R"(parameter N=37;
iterator i;
double a[N], b[N];
copyin a;
stencil s (b, a) {
  b[i] = a[i] * (i * i);
}
s (b, a);
copyout b;
)";

fs::path writeProgram(const std::string& name, const std::string& text) {
  fs::path p = freshTempDir("narrow", name) / (name + ".sten");
  std::ofstream(p) << text;
  return p;
}

}  // namespace

TEST(IndexBits, AutoNarrowsAndKeepsA64BitCopy) {
  std::string cu = emitCuda("auto", benchFile("j3d7pt") + " --schedule stream");
  std::string k = kernelText(cu, "call0_j3d7pt_s0");
  ASSERT_FALSE(k.empty()) << cu;
  EXPECT_TRUE(contains(k, "const int L,")) << k;
  EXPECT_TRUE(contains(k, "for (int round = 0; round <= rounds - 1; ++round)")) << k;
  EXPECT_TRUE(contains(k, "(int)threadIdx.x")) << k;
  EXPECT_TRUE(contains(k, "min(first_k + 15, hi_k)")) << k;
  EXPECT_FALSE(contains(k, "long long")) << k;
  std::string wide = kernelText(cu, "call0_j3d7pt_s0_i64");
  ASSERT_FALSE(wide.empty()) << cu;
  EXPECT_TRUE(contains(wide, "const long long L,")) << wide;
  EXPECT_TRUE(contains(wide, "llmin(first_k + 15, hi_k)")) << wide;
  // The host tests the sizes once a run and picks the kernel per launch.
  EXPECT_TRUE(contains(cu, "const bool tessel_index32 = ")) << cu;
  EXPECT_TRUE(contains(cu, "&& (L * M * N <= 2147")) << cu;
  EXPECT_TRUE(contains(cu, "if (tessel_fits32) {")) << cu;
  EXPECT_TRUE(contains(cu, "(int32_t)L, (int32_t)M, (int32_t)N")) << cu;
  EXPECT_TRUE(contains(cu, "// call0_j3d7pt_s0_i64")) << cu;
  EXPECT_TRUE(contains(cu, "\"call0_j3d7pt_s0_i64\",")) << "the launch tables name the copy\n"
                                                        << cu;
}

TEST(IndexBits, SixtyFourAndThirtyTwo) {
  std::string wide = emitCuda("64", benchFile("j3d7pt") + " --schedule stream --index-bits 64");
  EXPECT_TRUE(contains(kernelText(wide, "call0_j3d7pt_s0"), "const long long L,")) << wide;
  EXPECT_FALSE(contains(wide, "_i64")) << wide;
  EXPECT_FALSE(contains(wide, "tessel_index32")) << wide;
  std::string narrow = emitCuda("32", benchFile("j3d7pt") + " --schedule stream --index-bits 32");
  EXPECT_TRUE(contains(kernelText(narrow, "call0_j3d7pt_s0"), "const int L,")) << narrow;
  EXPECT_FALSE(contains(narrow, "_i64")) << narrow;
  EXPECT_TRUE(contains(narrow, "tessel_index_range(rt, 0);")) << narrow;
  // The OpenCL dialect spells the same.
  fs::path d = freshTempDir("narrow", "opencl");
  auto r = runCommand(tesselBinary() + " emit --target opencl -o " + d.string() + " " +
                      benchFile("j3d7pt") + " --schedule stream");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string cl = readText(d / "tessel_kernels.cl");
  EXPECT_TRUE(contains(cl, "const int L,")) << cl;
  EXPECT_TRUE(contains(cl, "(int)get_local_id(0)")) << cl;
  EXPECT_TRUE(contains(cl, "call0_j3d7pt_s0_i64(")) << cl;
  auto bad = runCommand(tesselBinary() + " emit --target cuda -o " + d.string() + " " +
                        benchFile("j3d7pt") + " --index-bits 16");
  EXPECT_EQ(bad.exitCode, 1) << bad.output;
  EXPECT_TRUE(contains(bad.output, "--index-bits '16': '16' is not auto, 32 or 64")) << bad.output;
}

TEST(IndexBits, EveryFamilyAgreesOnPoclAtEachWidth) {
  // Awkward sizes (not multiples of any block); auto is what every other GPU test runs.
  for (const char* family : {"global", "global-stream", "shared", "stream", "stream --time-tile 2",
                             "overlapped --time-tile 2"})
    for (const char* bits : {"32", "64"}) {
      auto r = runCommand(tesselBinary() + " run --backend opencl --verify " + benchFile("j3d7pt") +
                          " --param L=13 --param M=21 --param N=37 --param T=2 --schedule " +
                          family + " --index-bits " + bits);
      EXPECT_EQ(r.exitCode, 0) << family << " " << bits << ":\n" << r.output;
      EXPECT_TRUE(contains(r.output, "verification PASSED")) << family << " " << bits << r.output;
    }
}

TEST(IndexBits, SizesBeyondThe32BitTestRunTheCopyOrStop) {
  fs::path p = writeProgram("big", kBigParameter);
  for (const char* family : {"global", "shared"}) {
    auto r = runCommand(tesselBinary() + " run --backend opencl --verify " + p.string() +
                        " --schedule " + family);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "verification PASSED")) << r.output;
    auto strict = runCommand(tesselBinary() + " run --backend opencl " + p.string() +
                             " --schedule " + family + " --index-bits 32");
    EXPECT_NE(strict.exitCode, 0) << strict.output;
    EXPECT_TRUE(contains(strict.output,
                         "kernel call0_s_s0: the sizes of this run need 64-bit index arithmetic"))
        << strict.output;
  }
  // With BIG small, --index-bits 32 runs.
  auto fits = runCommand(tesselBinary() + " run --backend opencl --verify " + p.string() +
                         " --param BIG=5 --index-bits 32");
  EXPECT_EQ(fits.exitCode, 0) << fits.output;
}

TEST(IndexBits, IntArithmeticKeeps64Bits) {
  fs::path p = writeProgram("ints", kIntArithmetic);
  auto info = runCommand(tesselBinary() + " info --kernels --no-ptxas " + p.string());
  ASSERT_EQ(info.exitCode, 0) << info.output;
  EXPECT_TRUE(contains(info.output,
                       "applied    64-bit indices: the statement at line 6 computes with ints"))
      << info.output;
  auto run = runCommand(tesselBinary() + " run --backend opencl --verify " + p.string());
  EXPECT_EQ(run.exitCode, 0) << run.output;
  auto strict =
      runCommand(tesselBinary() + " check " + p.string() + " --schedule shared --index-bits 32");
  EXPECT_EQ(strict.exitCode, 1) << strict.output;
  EXPECT_TRUE(contains(strict.output, ":6:")) << strict.output;
  EXPECT_TRUE(contains(strict.output, "this statement computes with ints")) << strict.output;
  EXPECT_TRUE(contains(strict.output, "^")) << strict.output;
}

TEST(IndexBits, PragmaClause) {
  std::string text = std::string(kBigParameter);
  text.replace(text.find("stencil s"), 0, "#pragma index_bits 64\n");
  fs::path p = writeProgram("pragma", text);
  auto info = runCommand(tesselBinary() + " info --kernels --no-ptxas " + p.string());
  ASSERT_EQ(info.exitCode, 0) << info.output;
  EXPECT_TRUE(contains(info.output, "applied    64-bit indices (index_bits 64)")) << info.output;
  std::string bad = std::string(kBigParameter);
  bad.replace(bad.find("stencil s"), 0, "#pragma index_bits 16\n");
  auto r = runCommand(tesselBinary() + " check " + writeProgram("bad", bad).string());
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "'index_bits' takes 32 or 64")) << r.output;
}

TEST(IndexBits, Sm90RegistersOfJ3d7pt) {
  TESSEL_REQUIRE_NVCC();
  // Issue 11: the stream kernel at most 48 registers, the fused kernels of stream + time tile 2
  // and overlapped T = 2 at most 56, none spilling (ptxas of CUDA 13 on 2026-11-28: 40, 32 and
  // 47; their 64-bit copies 38, 48 and 74, which --index-bits 64 runs). Pinned at the default
  // (the model's register cap, --max-registers auto) and under the launch bounds alone
  // (--max-registers bounds), so that a cap cannot hide what the code itself needs.
  struct Case {
    const char* flags;
    const char* kernel;
    int most;
  };
  for (const char* cap : {"", " --max-registers bounds"})
    for (const Case& c : {Case{"--schedule stream", "call0_j3d7pt_s0", 48},
                          Case{"--schedule stream --time-tile 2", "fused0_p0_j3d7pt", 56},
                          Case{"--schedule overlapped --time-tile 2", "fused0_p0_j3d7pt", 56}}) {
      const std::string flags = std::string(c.flags) + cap;
      auto r =
          runCommand(tesselBinary() + " resources --json " + benchFile("j3d7pt") + " " + flags);
      ASSERT_EQ(r.exitCode, 0) << r.output;
      auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
      bool found = false;
      for (auto& k : j["kernels"]) {
        EXPECT_EQ(k["spill_store_bytes"], 0) << flags << " " << k["name"];
        if (k["name"] != c.kernel) continue;
        found = true;
        EXPECT_EQ(k["index_bits"], 32) << flags;
        EXPECT_LE(k["registers"].get<int>(), c.most) << flags;
        EXPECT_GT(k["registers"].get<int>(), 16) << flags;
      }
      EXPECT_TRUE(found) << flags << "\n" << r.output;
    }
}
