// Issue 11, host side: an iterate loop runs as a graph where the runtime takes one (CUDA: a
// CUDA Graph; OpenCL: the commands recorded once and enqueued again; lower_gpu_graph.cpp). The
// captured iterations are a whole period of the loop's host state (the swapped buffers, the
// phase of a fused loop), replayed; those left run one by one. On PoCL the replayed runs agree
// with the reference and with $TESSEL_GRAPHS=0 (every iteration enqueued directly); with a
// period too short the replay computes wrong results (checked by hand when this was written:
// 11305 elements of j3d7pt overlapped T = 2 differ), so these runs can fail.
#include <gtest/gtest.h>

#include <fstream>

#include "support/files.h"
#include "support/nvcc.h"

using namespace tessel::testing;
namespace fs = std::filesystem;

namespace {

// Three calls per iteration: fused two at a time, the variants repeat after three kernels, so
// the captured period is 2 x 3 = 6 fused kernels.
const char* kThreeCalls = R"(parameter M=40, N=50, T=13;
iterator j, i;
double a[M,N], b[M,N], c[M,N];
copyin a, b, c;
stencil sm (out, in) {
  out[j][i] = 0.2 * (in[j-1][i] + in[j][i-1] + in[j][i] + in[j][i+1] + in[j+1][i]);
}
iterate 1:T {
  sm (b, a);
  sm (c, b);
  sm (a, c);
}
copyout a, b, c;
)";

std::string threeCallsFile() {
  fs::path d = freshTempDir("graphs", "src");
  fs::path f = d / "three.sten";
  std::ofstream(f) << kThreeCalls;
  return f.string();
}

/// `tessel run` on OpenCL with --verify; graphs on or off.
void expectVerifies(const std::string& file, const std::string& args, bool graphs) {
  std::string cmd = std::string(graphs ? "" : "TESSEL_GRAPHS=0 ") + tesselBinary() + " run " +
                    file + " --backend opencl --verify " + args;
  auto r = runCommand(cmd);
  EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
  EXPECT_TRUE(contains(r.output, "verification PASSED")) << cmd << "\n" << r.output;
}

}  // namespace

TEST(GraphLoops, TheHostCodeCapturesOnePeriodOfTheLoop) {
  fs::path d = freshTempDir("graphs", "emit");
  auto emit = [&](const std::string& file, const std::string& args) {
    auto r = runCommand(tesselBinary() + " emit --target cuda -o " + d.string() + " " + file + " " +
                        args);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return readText(d / "tessel_program.cu");
  };
  // Per statement: two iterations (a swap's buffers are back in place after two).
  std::string global = emit(benchFile("j3d7pt"), "--schedule global");
  EXPECT_TRUE(
      contains(global, "tessel_graph_begin(rt, 0, graph_replays, std::max<int64_t>(0, T), 2);"))
      << global;
  EXPECT_TRUE(contains(global, "tessel_graph_end(rt, 0, graph_replays);"));
  EXPECT_TRUE(contains(global, "cudaStreamBeginCapture"));
  // Fused loops: 2 x (phases) fused kernels.
  std::string fused = emit(benchFile("j3d7pt"), "--schedule overlapped --time-tile 2");
  EXPECT_TRUE(contains(fused,
                       "tessel_graph_begin(rt, 0, graph_replays, "
                       "std::max<int64_t>(0, fused_kernels), 2);"))
      << fused;
  std::string three = emit(threeCallsFile(), "--schedule overlapped --time-tile 2");
  EXPECT_TRUE(contains(three,
                       "tessel_graph_begin(rt, 0, graph_replays, "
                       "std::max<int64_t>(0, fused_kernels), 6);"))
      << three;
}

TEST(GraphLoops, ReplayedLoopsAgreeWithTheReferenceOnOpencl) {
  const std::string sizes3 = " --param L=13 --param M=19 --param N=35 --param T=7";
  for (const char* s : {"--schedule global", "--schedule stream",
                        "--schedule overlapped --time-tile 2", "--schedule stream --time-tile 2"})
    for (bool graphs : {true, false}) expectVerifies(benchFile("j3d7pt"), s + sizes3, graphs);
  // 13 iterations of 3 calls: 19 fused kernels of 2 steps, 18 of them as 3 replays of a graph
  // of 6, then 1 fused kernel and 1 step left.
  const std::string three = threeCallsFile();
  for (const char* s : {"--schedule overlapped --time-tile 2", "--schedule stream --time-tile 2",
                        "--schedule overlapped --time-tile 3", "--schedule shared"})
    for (bool graphs : {true, false})
      expectVerifies(three, std::string(s) + " --param M=23 --param N=37", graphs);
}

TEST(GraphLoops, TheCudaHostCodeCompiles) {
  auto r = runCommand(tesselBinary() + " resources " + threeCallsFile() +
                      " --schedule overlapped --time-tile 2");
  if (contains(r.output, "nvcc not found") && !nvccRequired()) GTEST_SKIP() << r.output;
  EXPECT_EQ(r.exitCode, 0) << r.output;
}

// $TESSEL_SYNC_LAUNCHES=1 waits for each kernel as it is launched, so that a fault names the
// kernel: the runs still agree with the reference (OpenCL, replayed loops included), and the CUDA
// host code checks each launch's wait, naming the kernel.
TEST(GraphLoops, SyncLaunchesWaitsForEachKernel) {
  const std::string three = threeCallsFile();
  for (const char* s : {"--schedule overlapped --time-tile 2", "--schedule global"}) {
    const std::string cmd = "TESSEL_SYNC_LAUNCHES=1 " + tesselBinary() + " run " + three +
                            " --backend opencl --verify " + s + " --param M=23 --param N=37";
    auto r = runCommand(cmd);
    EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "verification PASSED")) << cmd << "\n" << r.output;
  }
  fs::path d = freshTempDir("graphs", "sync");
  auto e = runCommand(tesselBinary() + " emit --target cuda -o " + d.string() + " " + three);
  ASSERT_EQ(e.exitCode, 0) << e.output;
  const std::string cu = readText(d / "tessel_program.cu");
  EXPECT_TRUE(contains(cu, "std::getenv(\"TESSEL_SYNC_LAUNCHES\")")) << cu;
  EXPECT_TRUE(contains(cu, "\" faulted ($TESSEL_SYNC_LAUNCHES waits for each)\"")) << cu;
}

// A call with a per-point local scalar (cheby's Ax) inside a replayed loop: its buffer is the
// run's, allocated before the loop. (It was allocated and freed inside each call once: the
// replay then read a freed buffer and PoCL aborted at T >= 4, and CUDA would have met a
// cudaMalloc inside a stream capture.)
TEST(GraphLoops, LocalScalarBuffersOutliveTheReplay) {
  const std::string sizes = " --param L=13 --param M=21 --param N=35 --param T=4";
  for (const char* s : {"--schedule shared", "--schedule stream", "--schedule global"})
    for (bool graphs : {true, false}) expectVerifies(benchFile("cheby"), s + sizes, graphs);
  // No device buffer is declared outside tessel_program, so none inside a captured loop.
  fs::path d = freshTempDir("graphs", "cheby");
  auto r = runCommand(tesselBinary() + " emit --target cuda -o " + d.string() + " " +
                      benchFile("cheby") + " --schedule shared");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const std::string host = readText(d / "tessel_program.cu");
  const size_t program = host.find("static int32_t tessel_program(");
  ASSERT_NE(program, std::string::npos) << host;
  const size_t buffer = host.find("tessel_device_buffer local_Ax(rt,", program);
  const size_t loop = host.find("tessel_graph_begin(rt, 0,", program);
  EXPECT_NE(buffer, std::string::npos) << host.substr(program);
  EXPECT_LT(buffer, loop) << host.substr(program);
  const std::string calls = host.substr(0, program);
  size_t at = calls.find("static void call0_cheby(");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(calls.find("tessel_device_buffer Ax(", at), std::string::npos) << calls.substr(at);
}
