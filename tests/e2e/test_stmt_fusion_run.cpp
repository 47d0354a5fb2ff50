// Issue 13, statement fusion under `global` (`--fuse-statements`, the `fuse_statements` clause;
// analysis/stmt_fusion.h): the fused kernels of every benchmark agree with the reference
// interpreter on PoCL and on the C++ backend at awkward sizes (Oclgrind: test_oclgrind.cpp);
// rhs4center's 30 statements and hypterm's five become one kernel each, COSMO's horizontal
// diffusion three; the CUDA compiles with nvcc without warnings; `shared`, `global-stream` and
// `overlapped` are refused with a hint (`stream` fuses in its own way:
// test_stream_stmt_fusion.cpp).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/command.h"
#include "support/files.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::testing;
using namespace tessel::gputest;

namespace {

class StmtFusionBenchmark : public ::testing::TestWithParam<std::string> {};

nlohmann::json kernels(const std::string& bench, const std::string& flags) {
  auto r = runCommand(tesselBinary() + " info --kernels --json --no-ptxas " +
                      benchmarkPath(bench).string() + " --schedule global " + flags);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return nlohmann::json::parse(r.output.substr(r.output.find('{')))["kernels"];
}

/// `tessel run BENCH --backend BACKEND --verify --schedule global --fuse-statements` at awkward
/// sizes passes verification.
void expectFusedRunVerifies(const std::string& bench, const std::string& backend = "opencl") {
  fs::path file = benchmarkPath(bench);
  std::string cmd = tesselBinary() + " run " + file.string() + " --backend " + backend +
                    " --verify --schedule global --fuse-statements" + awkwardParamFlags(file);
  auto r = runCommand(cmd);
  EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
  EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n" << r.output;
}

}  // namespace

TEST_P(StmtFusionBenchmark, GlobalVerifiesOnPoclAndCpp) {
  // The C++ backend runs the fused kernels on the CPU (work-item loops), not its loop nests.
  expectFusedRunVerifies(GetParam(), "cpp");
  TESSEL_REQUIRE_OPENCL();
  expectFusedRunVerifies(GetParam());
}

TESSEL_INSTANTIATE_BENCHMARK_SWEEP(StmtFusionBenchmark);

TEST(StmtFusion, FusedKernelsPerBenchmark) {
  EXPECT_EQ(kernels("rhs4center", "").size(), 30u);
  EXPECT_EQ(kernels("rhs4center", "--fuse-statements").size(), 1u);
  EXPECT_EQ(kernels("hypterm", "--fuse-statements").size(), 1u);
  EXPECT_EQ(kernels("cosmo-hdiff", "--fuse-statements").size(), 3u);
  // Where COSMO's kernels split, and why, in a note.
  auto r = runCommand(tesselBinary() + " info --no-ptxas " + benchmarkPath("cosmo-hdiff").string() +
                      " --fuse-statements");
  EXPECT_NE(r.output.find("note: statement fusion: call 0 (hdiff) runs 3 kernels: [1] [2, 3] [4]; "
                          "kernel 2 starts where statement 2 reads 'lap[k][j][i+1]' and statement "
                          "1 writes it at [k][j][i]: another thread's element"),
            std::string::npos)
      << r.output;
  // One statement per call: nothing to fuse, the same kernels.
  EXPECT_EQ(kernels("j2d5pt", "--fuse-statements").size(), kernels("j2d5pt", "").size());
}

TEST(StmtFusion, Rhs4centerVerifiesOnPoclAndCompilesWithNvcc) {
  TESSEL_REQUIRE_OPENCL();
  expectFusedRunVerifies("rhs4center");
  fs::path file = benchmarkPath("rhs4center");
  TESSEL_REQUIRE_NVCC();
  std::string res =
      tesselBinary() + " resources " + file.string() + " --schedule global --fuse-statements";
  auto rr = runCommand(res);
  EXPECT_EQ(rr.exitCode, 0) << res << "\n" << rr.output;
  EXPECT_EQ(rr.output.find("warning"), std::string::npos) << rr.output;
}

TEST(StmtFusion, OtherFamiliesAreRefused) {
  for (const char* family : {"shared", "global-stream", "overlapped"}) {
    std::string cmd = tesselBinary() + " check " + benchmarkPath("hypterm").string() +
                      " --fuse-statements --schedule " + family;
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 1) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("statement fusion applies to the 'global' and 'stream' families' "
                            "kernels, not to '" +
                            std::string(family) + "'"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find(std::string(family) == "overlapped"
                                ? "hint: leave fuse_statements out"
                                : "hint: use --schedule stream (one streamed kernel per call)"),
              std::string::npos)
        << r.output;
  }
}

// The C++ target fuses too, in its own loop nests: rhs4center's 30 statements are one parallel
// loop nest (30 without fusion), its 18 local scalars registers of it with no buffers; tiny
// grids verify.
TEST(StmtFusion, CppTargetFusesItsLoopNests) {
  auto nests = [](const std::string& flags) {
    const fs::path dir = freshTempDir("stmt-fusion", "cpp" + std::to_string(flags.size()));
    std::string cmd = tesselBinary() + " emit " + benchmarkPath("rhs4center").string() +
                      " --target cpp -o " + dir.string() + " " + flags;
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    const std::string code = readText(dir / "tessel_program.cpp");
    size_t n = 0;
    for (size_t at = 0; (at = code.find("#pragma omp parallel for", at)) != std::string::npos; ++at)
      ++n;
    return std::make_pair(n, code);
  };
  auto [fusedNests, fused] = nests("--fuse-statements");
  EXPECT_EQ(fusedNests, 1u);
  EXPECT_NE(fused.find("registers: mux1, mux2, mux3"), std::string::npos);
  EXPECT_EQ(fused.find("mux1_storage"), std::string::npos);  // no buffer
  // Each row's points where every statement's region holds run without tests (vectorisable).
  EXPECT_NE(fused.find("Where every statement's region holds: no tests."), std::string::npos);
  EXPECT_EQ(nests("").first, 30u);
  // Grids smaller than the halos: rows with no untested points, empty regions.
  for (const char* bench : {"rhs4center", "diffterm"})
    for (const char* sizes :
         {" --param L=3 --param M=4 --param N=5", " --param L=1 --param M=2 --param N=9"}) {
      std::string cmd = tesselBinary() + " run " + benchmarkPath(bench).string() +
                        " --backend cpp --verify --fuse-statements" + sizes;
      auto r = runCommand(cmd);
      EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
      EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n" << r.output;
    }
}

// ARTEMIS's case: a long chain of per-point temporaries, each read by the next two (185
// statements and 185 local scalars). The front end once copied each scalar's reads into every
// reader, which grows as the Fibonacci numbers: 30 statements took 0.5 s and 330 MB, 80 more
// than 10 GB. Now it checks at once, fuses into one kernel with the temporaries in registers,
// and verifies on both backends.
TEST(StmtFusion, AChainOf185TemporariesIsOneKernel) {
  std::string text =
      "parameter N=67;\niterator i;\ndouble a[N], b[N];\ncopyin a;\n"
      "stencil chain (out, in) {\n";
  const int n = 185;
  for (int k = 0; k < n; ++k) text += "  double t" + std::to_string(k) + ";\n";
  text += "  t0 = in[i-1] + in[i+1];\n  t1 = 0.5 * in[i] + t0;\n";
  for (int k = 2; k < n; ++k)
    text += "  t" + std::to_string(k) + " = 0.25 * t" + std::to_string(k - 1) + " + 0.75 * t" +
            std::to_string(k - 2) + " + in[i" + (k % 2 ? "+" : "-") + "1];\n";
  text += "  out[i] = t" + std::to_string(n - 1) + " + t" + std::to_string(n - 2) + ";\n}\n";
  text += "chain (b, a);\ncopyout b;\n";
  fs::path file = freshTempDir("stmt-fusion", "chain") / "chain.sten";
  std::ofstream(file) << text;
  auto check = runCommand("timeout 20 " + tesselBinary() + " check " + file.string());
  ASSERT_EQ(check.exitCode, 0) << check.output;
  auto r = runCommand(tesselBinary() + " info --kernels --json --no-ptxas " + file.string() +
                      " --schedule global --fuse-statements");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output.substr(r.output.find('{')))["kernels"].size(), 1u);
  for (const char* backend : {"cpp", "opencl"}) {
    if (std::string(backend) == "opencl") TESSEL_REQUIRE_OPENCL();
    auto run = runCommand(tesselBinary() + " run " + file.string() + " --backend " + backend +
                          " --verify --schedule global --fuse-statements");
    EXPECT_EQ(run.exitCode, 0) << backend << "\n" << run.output;
    EXPECT_NE(run.output.find("verification PASSED"), std::string::npos) << run.output;
  }
}

// An int local scalar that statement fusion keeps in a (64-bit) register wraps to 32 bits at each
// assignment, as language.md section 12's example says (`int r; r = 2 ^ 32 + i;` holds i): found
// by the CUDA/OpenCL review, where the register kept 2^32 + i. Under every family that keeps
// locals in registers.
TEST(StmtFusion, AnIntLocalInARegisterWraps) {
  TESSEL_REQUIRE_OPENCL();
  const fs::path file = freshTempDir("stmt-fusion", "wrap") / "wrap.sten";
  std::ofstream(file) << "parameter N=6;\niterator i;\ndouble rd[N], re[N];\nint g;\ncopyin g;\n"
                         "copyout rd, re;\n"
                         "stencil st (rd, re) {\n"
                         "  int r;\n  int z;\n"
                         "  r = 2 ^ 32 + i;\n  z = 7;\n  z = z * 2147483647 + g;\n"
                         "  rd[i] = r;\n  re[i] = z;\n}\n"
                         "st (rd, re);\n";
  for (const char* flags :
       {"--schedule global --fuse-statements", "--schedule stream --fuse-statements",
        "--schedule overlapped --register-values on", "--schedule global"}) {
    auto run = runCommand(tesselBinary() + " run " + file.string() +
                          " --backend opencl --verify --scalar g=5 " + flags);
    EXPECT_EQ(run.exitCode, 0) << flags << "\n" << run.output;
    EXPECT_NE(run.output.find("verification PASSED"), std::string::npos) << flags << run.output;
  }
}
