// `--max-registers N` and the clause `max_registers N` (Schedule::maxRegisters): the CUDA
// kernels take `__maxnreg__(N)` instead of their launch bounds, validated against the machine;
// OpenCL is unchanged; ptxas keeps the kernels within the cap.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "exec/cuda_resources.h"
#include "support/files.h"
#include "support/nvcc.h"

using namespace tessel::testing;
namespace fs = std::filesystem;

namespace {}  // namespace

TEST(RegisterCap, CudaKernelsTakeMaxnregOpenclIsUnchanged) {
  fs::path d = freshTempDir("cap", "emit");
  auto r = runCommand(tesselBinary() + " emit --target cuda -o " + d.string() + " " +
                      benchFile("j3d7pt") + " --schedule stream --max-registers 32");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string cu = readText(d / "tessel_program.cu");
  EXPECT_TRUE(contains(cu, "extern \"C\" __global__ void __maxnreg__(32) call0_j3d7pt_s0(")) << cu;
  // The 64-bit copies (launched only where a run's sizes need them) keep the launch bounds.
  EXPECT_TRUE(contains(cu, "__launch_bounds__(512, 2) call0_j3d7pt_s0_i64(")) << cu;
  EXPECT_FALSE(contains(cu, "__maxnreg__(32) call0_j3d7pt_s0_i64(")) << cu;
  // Without copies, no kernel has both: CUDA takes one or the other.
  fs::path wide = freshTempDir("cap", "emit64");
  auto w =
      runCommand(tesselBinary() + " emit --target cuda -o " + wide.string() + " " +
                 benchFile("j3d7pt") + " --schedule stream --max-registers 32 --index-bits 64");
  ASSERT_EQ(w.exitCode, 0) << w.output;
  std::string cu64 = readText(wide / "tessel_program.cu");
  EXPECT_TRUE(contains(cu64, "__maxnreg__(32) call0_j3d7pt_s0(")) << cu64;
  EXPECT_FALSE(contains(cu64, "__launch_bounds__")) << "CUDA takes one or the other";
  auto cl = runCommand(tesselBinary() + " emit --target opencl -o " + d.string() + " " +
                       benchFile("j3d7pt") + " --schedule stream --max-registers 32");
  ASSERT_EQ(cl.exitCode, 0) << cl.output;
  EXPECT_TRUE(contains(readText(d / "tessel_kernels.cl"), "reqd_work_group_size(32, 16, 1)"));
  auto info = runCommand(tesselBinary() + " info --kernels --no-ptxas " + benchFile("j3d7pt") +
                         " --max-registers 40");
  EXPECT_TRUE(contains(info.output, "a cap of 40 registers per thread (CUDA __maxnreg__)"))
      << info.output;
  // The cap changes nothing the OpenCL run computes.
  auto run = runCommand(tesselBinary() + " run --backend opencl --verify " + benchFile("j3d7pt") +
                        " --param L=13 --param M=21 --param N=37 --param T=2 --schedule stream "
                        "--max-registers 32");
  EXPECT_EQ(run.exitCode, 0) << run.output;
}

// The model's cap is the default of CUDA code where nvcc is found (emit --target cuda, run
// --backend cuda, resources): one note says so; --max-registers bounds and a max_registers clause
// keep it off; the 64-bit copies keep the launch bounds.
TEST(RegisterCap, TheModelsCapIsTheCudaDefault) {
  TESSEL_REQUIRE_NVCC();
  fs::path d = freshTempDir("cap", "default");
  const std::string emit = tesselBinary() + " emit --target cuda -o " + d.string() + " " +
                           benchFile("j3d7pt") + " --schedule overlapped --time-tile 2";
  auto r = runCommand(emit);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "note: the register cap of the CUDA kernels is the model's "
                       "(--max-registers auto, the default; --max-registers bounds "
                       "keeps the launch bounds): the model chose 32"))
      << r.output;
  std::string cu = readText(d / "tessel_program.cu");
  EXPECT_TRUE(contains(cu, "__maxnreg__(32) fused0_p0_j3d7pt(")) << cu;
  EXPECT_TRUE(contains(cu, "__launch_bounds__(512, 1) fused0_p0_j3d7pt_i64(")) << cu;
  auto b = runCommand(emit + " --max-registers bounds");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  EXPECT_FALSE(contains(b.output, "register cap")) << b.output;
  cu = readText(d / "tessel_program.cu");
  EXPECT_FALSE(contains(cu, "__maxnreg__")) << cu;
  EXPECT_TRUE(contains(cu, "__launch_bounds__(512, 1) fused0_p0_j3d7pt(")) << cu;
  // OpenCL has no cap to choose: no note.
  auto cl = runCommand(tesselBinary() + " emit --target opencl -o " + d.string() + " " +
                       benchFile("j3d7pt") + " --schedule overlapped --time-tile 2");
  ASSERT_EQ(cl.exitCode, 0) << cl.output;
  EXPECT_FALSE(contains(cl.output, "register cap")) << cl.output;
  // `analyze` (with ptxas's figures) predicts the kernels `emit --target cuda` builds: the same
  // note, and the prediction the note gives for the cap (the launch bounds' under `bounds`).
  const std::string analyze = tesselBinary() + " analyze --json " + benchFile("j3d7pt") +
                              " --schedule overlapped --time-tile 2";
  auto a = runCommand(analyze);
  ASSERT_EQ(a.exitCode, 0) << a.output;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(a.output, m,
                        std::regex("the model chose 32 \\(ptxas: [^;]*; predicted ([0-9.]+) "
                                   "ms per run against ([0-9.]+) ms with the launch")))
      << a.output;
  const double capped = std::stod(m[1]), bounded = std::stod(m[2]);
  auto seconds = [](const std::string& out) {
    return nlohmann::json::parse(out.substr(out.find('{')))["seconds"].get<double>() * 1e3;
  };
  EXPECT_NEAR(seconds(a.output), capped, capped * 1e-3) << a.output;
  EXPECT_TRUE(contains(a.output, "a cap of 32 registers per thread")) << a.output;
  auto ab = runCommand(analyze + " --max-registers bounds");
  ASSERT_EQ(ab.exitCode, 0) << ab.output;
  EXPECT_FALSE(contains(ab.output, "register cap")) << ab.output;
  EXPECT_NEAR(seconds(ab.output), bounded, bounded * 1e-3) << ab.output;
  // Without ptxas (--no-ptxas) and under --compare, the launch bounds: no cap is chosen.
  for (const char* f : {" --no-ptxas", " --compare"}) {
    auto n = runCommand(analyze + f);
    ASSERT_EQ(n.exitCode, 0) << f << n.output;
    EXPECT_FALSE(contains(n.output, "register cap")) << f << n.output;
  }
}

TEST(RegisterCap, ValidatedAgainstTheMachine) {
  auto low = runCommand(tesselBinary() + " check " + benchFile("j3d7pt") + " --max-registers 8");
  EXPECT_EQ(low.exitCode, 1) << low.output;
  EXPECT_TRUE(contains(low.output, "--max-registers 8: a register cap must be from 16 to 255"))
      << low.output;
  EXPECT_TRUE(contains(low.output,
                       "hint: ptxas needs at least 16; without a cap the CUDA kernels "
                       "take the model's (--max-registers auto, the default)"))
      << low.output;
  // 200 x 512 threads (the stencil's block (32, 16)) = 102,400 > 65,536.
  auto high = runCommand(tesselBinary() + " check " + benchFile("j3d7pt") + " --max-registers 200");
  EXPECT_EQ(high.exitCode, 1) << high.output;
  EXPECT_TRUE(contains(high.output, "are 102400, more than the 65536 a block may hold"))
      << high.output;
  EXPECT_TRUE(contains(high.output, "hint: use at most 128 registers")) << high.output;
  // The clause, and a bad one.
  fs::path d = freshTempDir("cap", "pragma");
  std::string text = readText(benchFile("j3d7pt"));
  std::string bad = text;
  text.replace(text.find("#pragma stream k"), 0, "#pragma max_registers 48\n");
  std::ofstream(d / "cap.sten") << text;
  auto ok = runCommand(tesselBinary() + " info --no-ptxas " + (d / "cap.sten").string());
  EXPECT_TRUE(contains(ok.output, "max_registers 48")) << ok.output;
  bad.replace(bad.find("#pragma stream k"), 0, "#pragma max_registers x\n");
  std::ofstream(d / "bad.sten") << bad;
  auto b = runCommand(tesselBinary() + " check " + (d / "bad.sten").string());
  EXPECT_EQ(b.exitCode, 1) << b.output;
}

TEST(RegisterCap, PtxasKeepsTheKernelsWithinIt) {
  TESSEL_REQUIRE_NVCC();
  // overlapped T = 2 of j3d7pt: 47 registers under its launch bounds; a cap of 40 holds it,
  // without spills in the 32-bit kernel. Its 64-bit copy keeps the launch bounds (74 registers,
  // no spills; a cap of 40 made it spill).
  auto r = runCommand(tesselBinary() + " resources --json " + benchFile("j3d7pt") +
                      " --schedule overlapped --time-tile 2 --max-registers 40");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  bool found = false;
  for (auto& k : j["kernels"]) {
    EXPECT_EQ(k["spill_store_bytes"], 0) << k["name"];
    if (k["name"] != "fused0_p0_j3d7pt") continue;
    EXPECT_LE(k["registers"].get<int>(), 40) << k["name"];
    found = true;
    EXPECT_EQ(k["spill_store_bytes"], 0);
  }
  EXPECT_TRUE(found) << r.output;
}

// A cap that makes ptxas spill: the model counts the spills as L1 traffic (local memory), the
// bytes ptxas reports once per point (j3d27pt's stream kernel under a cap of 24).
TEST(RegisterCap, SpillsAreL1TrafficInTheModel) {
  TESSEL_REQUIRE_NVCC();
  auto l1 = [](const std::string& flags, int& spilled) {
    auto r = runCommand(tesselBinary() + " analyze --json " + benchFile("j3d27pt") +
                        " --schedule stream " + flags);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    const nlohmann::json k =
        nlohmann::json::parse(r.output.substr(r.output.find('{')))["kernels"][0];
    spilled = k["spill_bytes"].get<int>();
    for (const auto& l : k["levels"])
      if (l["level"] == "L1") return l["amount"].get<double>();
    return -1.0;
  };
  int none = 0, some = 0;
  const double plain = l1("--max-registers bounds", none), capped = l1("--max-registers 24", some);
  ASSERT_EQ(none, 0);
  ASSERT_GT(some, 0) << "a cap of 24 no longer spills: pick a lower one";
  EXPECT_DOUBLE_EQ(capped, plain + some);
}

// `--max-registers auto`: the model's choice from ptxas's figures. j3d7pt overlapped T = 2 on
// the H100 has 47 registers under its launch bounds (2 blocks of 512 threads per SM: 50%); the
// caps that add one or two blocks (40, 32) are compiled, neither spills, and the model predicts
// the one with the most blocks fastest. The line says what was chosen against what; the
// kernels then carry the cap. Without nvcc the launch bounds stay, and the line says why.
TEST(RegisterCap, AutoIsTheModelsChoiceFromPtxas) {
  const std::string flags = " --schedule overlapped --time-tile 2 --max-registers auto";
  if (tessel::findNvcc().empty()) {
    EXPECT_FALSE(tessel::testing::nvccRequired()) << "nvcc not found";
    auto r = runCommand(tesselBinary() + " info --kernels " + benchFile("j3d7pt") + flags);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "nvcc not found, so no ptxas figures")) << r.output;
    return;
  }
  auto r = runCommand(tesselBinary() + " info --kernels " + benchFile("j3d7pt") + flags);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "--max-registers auto: the model chose 32 (ptxas: 32 registers, "
                       "0 B spilled, occupancy 100%"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "with the launch bounds: 47 registers, occupancy 50%"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "2 caps tried (32, 40)")) << r.output;
  EXPECT_TRUE(contains(r.output, "a cap of 32 registers per thread (CUDA __maxnreg__)"))
      << r.output;
  // The caps come from the occupancy calculator on the machine's register file: with half of
  // the H100's (a machine file that says so), 47 registers hold 1 block per SM, 32 hold 2, and
  // a third block would need fewer than 24 registers, so only 32 is tried.
  {
    fs::path d = freshTempDir("cap", "machine");
    nlohmann::json m = nlohmann::json::parse(readText(sourceDir() + "/machines/h100.json"));
    m["registers_per_sm"] = 32768;
    m["max_registers_per_block"] = 32768;
    std::ofstream(d / "halfregs.json") << m.dump(1);
    auto half = runCommand(tesselBinary() + " info --kernels " + benchFile("j3d7pt") + flags +
                           " --machine " + (d / "halfregs.json").string());
    ASSERT_EQ(half.exitCode, 0) << half.output;
    EXPECT_TRUE(contains(half.output,
                         "the model chose 32 (ptxas: 32 registers, 0 B spilled, "
                         "occupancy 50%"))
        << half.output;
    EXPECT_TRUE(contains(half.output, "47 registers, occupancy 25%); 1 cap tried (32)"))
        << half.output;
  }
  // A kernel whose occupancy no cap above 24 registers can raise keeps its launch bounds.
  auto g = runCommand(tesselBinary() + " info --kernels " + benchFile("j3d7pt") +
                      " --schedule global --max-registers auto");
  ASSERT_EQ(g.exitCode, 0) << g.output;
  EXPECT_TRUE(contains(g.output, "--max-registers auto: the launch bounds stay")) << g.output;
  // Without nvcc (NVCC naming nothing that runs) the launch bounds stay and the line says why.
  auto none = runCommand("NVCC= PATH=/usr/bin:/bin " + tesselBinary() + " info --kernels " +
                         benchFile("j3d7pt") + flags);
  EXPECT_EQ(none.exitCode, 0) << none.output;
  if (access("/usr/local/cuda/bin/nvcc", X_OK) != 0) {
    EXPECT_TRUE(contains(none.output, "nvcc not found, so no ptxas figures")) << none.output;
  }
}
