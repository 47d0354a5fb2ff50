// `--schedule overlapped` on the command line: a verified run on OpenCL, and the schedules the
// machine cannot run refused with what they need.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/command.h"
#include "support/files.h"

using namespace tessel::testing;

namespace {
std::string bench(const std::string& b) { return sourceDir() + "/benchmarks/" + b + ".sten"; }

/// `tessel run FILE FLAGS --verify` passes on the C++ target (the same kernels through pass
/// work-item-loops) and, where the tests have it, on PoCL.
void expectVerifies(const std::string& file, const std::string& flags) {
  std::vector<std::string> backends = {"cpp"};
  if (std::getenv("TESSEL_TESTS_REQUIRE_OPENCL")) backends.push_back("opencl");
  for (const std::string& backend : backends) {
    auto r = runCommand(tesselBinary() + " run " + file + " --backend " + backend + " --verify " +
                        flags);
    EXPECT_EQ(r.exitCode, 0) << backend << " " << flags << "\n" << r.output;
    EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << r.output;
  }
}
}  // namespace

TEST(CliOverlapped, RunVerifiesOnOpencl) {
  auto r = runCommand(tesselBinary() + " run " + bench("j3d7pt") +
                      " --backend opencl --schedule overlapped --time-tile 3 --block 10,6,5"
                      " --param L=10 --param M=12 --param N=20 --verify");
  if (r.output.find("no OpenCL") != std::string::npos &&
      !std::getenv("TESSEL_TESTS_REQUIRE_OPENCL"))
    GTEST_SKIP() << "skipped: no OpenCL device";
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << r.output;
}

TEST(CliOverlapped, ImpossibleSchedulesAreUserErrors) {
  struct Case {
    std::string args, message;
  } cases[] = {
      {bench("j3d7pt") + " --schedule overlapped --time-tile 9", "at most 8 time steps"},
      {bench("j3d7pt") + " --schedule overlapped --time-tile 3 --block 4,4,4",
       "leaves no tile after the halo (4x4x4) of 3 fused steps"},
      {bench("j2d5pt") +
           " --schedule overlapped --time-tile 2 --block 128,8 --unroll i=4,j=2 --machine k20c",
       "needs 139552 bytes of shared memory per block, more than the 49152 bytes"},
      {bench("j3d7pt") + " --schedule overlapped --stream k",
       "--stream k needs a streaming schedule ('stream' or 'global-stream')"},
      // --register-values on under another family (its own placement decides), a bad value.
      {bench("heat") + " --schedule global --register-values on",
       "it applies to the overlapped family, not to the 'global' family"},
      {bench("heat") + " --register-values maybe", "'maybe' is neither on nor off"},
  };
  for (auto& c : cases) {
    auto r = runCommand(tesselBinary() + " check " + c.args);
    EXPECT_EQ(r.exitCode, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

// j2d5pt, T = 3, the default 32x16 block covering stage 1: tile (16 - 2*2) x (32 - 2*2) = 12x28.
// Stages 16x32 + 14x30 + 12x28 = 512 + 420 + 336 = 1268 points, 1268 - 3*336 = 260 redundant
// (20.5%); buffers: in over the footprint 18x34 = 612 and out over 16x32 = 512 elements:
// (612 + 512) * 8 = 8992 bytes. Two variants: the body {out=f(in), in=f(out)} starts at 0 or 1.
TEST(CliOverlapped, InfoShowsEachFusedKernel) {
  auto r = runCommand(tesselBinary() + " info " + bench("j2d5pt") +
                      " --schedule overlapped --time-tile 3");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  for (const char* want :
       {"calls 0, 1, 0 (time_tile 3): block 32x16x1, tile 12x28, 8992 bytes of shared memory, "
        "20.5% of the computed points redundant",
        "calls 1, 0, 1 (time_tile 3)", "1268 points computed for 336 outputs, 260 redundant",
        "input in: footprint j -3..14, i -3..30 = 612 points"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
}

// --register-values: heat at T = 2 computes its Laplacians in their readers' loops (on: 12,736
// bytes of shared memory, the values named in the kernel report) or gives them shared tiles
// (off, the default: 18,176 bytes); both verify (its refusals: ImpossibleSchedulesAreUserErrors).
TEST(CliOverlapped, RegisterValuesOnAndOff) {
  const std::string base = tesselBinary() + " info --json --no-ptxas " + bench("heat") +
                           " --schedule overlapped --time-tile 2";
  auto shared = [&](const std::string& extra) -> std::pair<int64_t, std::string> {
    auto r = runCommand(base + extra + " 2>/dev/null");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    for (const auto& k : j["kernels"])
      if (k["name"].get<std::string>().rfind("fused", 0) == 0)
        return {k["shared_bytes"].get<int64_t>(), k.value("register_values", std::string())};
    ADD_FAILURE() << "no fused kernel: " << r.output;
    return {0, ""};
  };
  const auto on = shared(" --register-values on");
  EXPECT_EQ(on.first, 12736);
  EXPECT_EQ(on.second, "lap (step 1), lap (step 2)");
  for (const char* off : {"", " --register-values off"}) {
    EXPECT_EQ(shared(off).first, 18176) << off;
    EXPECT_EQ(shared(off).second, "") << off;
  }
  // Off, `analyze` says what the option would do where shared memory or barriers bind.
  const std::string analyze = tesselBinary() + " analyze --no-ptxas " + bench("heat") +
                              " --schedule overlapped --time-tile 2 2>/dev/null";
  const std::string hint =
      "lap (step 1), lap (step 2) read once, at the centre, by one later stage: "
      "--register-values on computes them in that stage's loop, in registers (5440 B of shared "
      "memory fewer";
  auto offHint = runCommand(analyze);
  EXPECT_NE(offHint.output.find(hint), std::string::npos) << offHint.output;
  auto onHint = runCommand(analyze + " --register-values on");
  EXPECT_EQ(onHint.output.find("--register-values on computes"), std::string::npos)
      << onHint.output;
  for (const char* v : {"on", "off"})
    expectVerifies(bench("heat"), std::string("--schedule overlapped --time-tile 2 --param L=7 "
                                              "--param M=9 --param N=11 --register-values ") +
                                      v);
}

// A global array that only dead stages touch has a source but no tile: no load into it (it was
// an internal error; tests/e2e/data/overlapped_dead_source.sten says how it was found).
TEST(CliOverlapped, ValuesOnlyDeadStagesTouchAreNotLoaded) {
  for (const char* t : {"1", "2"})
    expectVerifies(sourceDir() + "/tests/e2e/data/overlapped_dead_source.sten",
                   std::string("--schedule overlapped --time-tile ") + t);
}

// A chain of writers in registers (--register-values on): each writer assigns the register
// where its own loop would have run (q's compound writer reads a[j+3][i+2], inside the array
// only on its own domain), and the program verifies at T = 1 and 2.
TEST(CliOverlapped, RegisterChainsVerifyAndKeepTheirWritersDomains) {
  const std::string file = sourceDir() + "/tests/e2e/data/overlapped_register_chain.sten";
  const std::string dir = ::testing::TempDir() + "/tessel-register-chain";
  auto e = runCommand(tesselBinary() + " emit " + file +
                      " --schedule overlapped --register-values on --block 8,4 --target opencl "
                      "-o " +
                      dir);
  ASSERT_EQ(e.exitCode, 0) << e.output;
  const std::string text = readText(dir + "/tessel_kernels.cl");
  const size_t guard = text.find("if ((j >= max(t0_j, lo0_4_j))");
  ASSERT_NE(guard, std::string::npos) << text.substr(0, 4000);
  const size_t read = text.find("r_q = r_q + a[(j + 3) * N + i + 2];", guard);
  ASSERT_NE(read, std::string::npos);
  EXPECT_LT(read - guard, 200u) << text.substr(guard, 400);
  for (const char* t : {"1", "2"})
    expectVerifies(file, std::string("--schedule overlapped --register-values on --block 16,8 "
                                     "--param M=13 --param N=11 --time-tile ") +
                             t);
}
