// Issue 12, user-guided resource assignment (paper 000 section II-B): `occupancy t` under the
// staged families moves arrays from shared to global memory, fewest accesses first, until the
// block's shared memory allows the target on the machine (the occupancy calculator), and says
// so; `#assign gmem (x)` reads x from global memory; `shmem (x)` keeps x in shared memory.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/verify.h"

using namespace tessel::testing;
namespace fs = std::filesystem;

namespace {

// Five arrays, each read at offsets of 2 along every dimension (a 20x12x8 tile of 15,360 bytes
// for a 16x8x4 block), with 10, 9, 8, 7 and 6 accesses per point.
std::string fiveArrays(const std::string& placements) {
  return "parameter L=64, M=64, N=64;\niterator k, j, i;\n"
         "double a[L,M,N], b[L,M,N], c[L,M,N], d[L,M,N], e[L,M,N], o[L,M,N];\n"
         "copyin a, b, c, d, e;\n#pragma block (16, 8, 4) occupancy 1.0\n"
         "stencil five (o, a, b, c, d, e) {\n" +
         placements +
         "  o[k][j][i] = a[k-2][j][i] + a[k+2][j][i] + a[k][j-2][i] + a[k][j+2][i]\n"
         "    + a[k][j][i-2] + a[k][j][i+2] + a[k][j][i] + a[k][j][i-1] + a[k][j][i+1]\n"
         "    + a[k][j-1][i]\n"
         "    + b[k-2][j][i] + b[k+2][j][i] + b[k][j-2][i] + b[k][j+2][i] + b[k][j][i-2]\n"
         "    + b[k][j][i+2] + b[k][j][i] + b[k][j][i-1] + b[k][j][i+1]\n"
         "    + c[k-2][j][i] + c[k+2][j][i] + c[k][j-2][i] + c[k][j+2][i] + c[k][j][i-2]\n"
         "    + c[k][j][i+2] + c[k][j][i] + c[k][j][i-1]\n"
         "    + d[k-2][j][i] + d[k+2][j][i] + d[k][j-2][i] + d[k][j+2][i] + d[k][j][i-2]\n"
         "    + d[k][j][i+2] + d[k][j][i]\n"
         "    + e[k-2][j][i] + e[k+2][j][i] + e[k][j-2][i] + e[k][j+2][i] + e[k][j][i-2]\n"
         "    + e[k][j][i+2];\n}\nfive (o, a, b, c, d, e);\ncopyout o;\n";
}

std::string write(const std::string& name, const std::string& text) {
  fs::path d = freshTempDir("demote", name);
  std::ofstream(d / "five.sten") << text;
  return (d / "five.sten").string();
}

const std::string kSizes = " --param L=11 --param M=13 --param N=21";

}  // namespace

// On the H100 (228 KiB of shared memory per SM, 1 KiB reserved per block, 2048 threads): five
// tiles are 76,800 bytes, 3 blocks of 512 threads (75%); without e (6 accesses) 61,440, still 3;
// without d (7) as well 46,080: 4 blocks, 100%. The notes say which, why and the figures; the
// kernel then stages three arrays and verifies.
TEST(OccupancyDemotion, FewestAccessesMoveFirstUntilTheTargetHolds) {
  const std::string file = write("plain", fiveArrays(""));
  auto r = runCommand(tesselBinary() + " info --kernels --no-ptxas " + file + " --schedule shared");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "'e' (6 accesses per point, the fewest of the arrays in shared "
                       "memory) moves to global memory: 76800 -> 61440 bytes of shared "
                       "memory per block, occupancy 75% -> 75% on NVIDIA H100"))
      << r.output;
  EXPECT_TRUE(contains(r.output,
                       "'d' (7 accesses per point, the fewest of the arrays in shared "
                       "memory) moves to global memory: 61440 -> 46080 bytes of shared "
                       "memory per block, occupancy 75% -> 100%"))
      << r.output;
  EXPECT_FALSE(contains(r.output, "'c' (")) << r.output;
  EXPECT_TRUE(contains(r.output, "shared 46080 B")) << r.output;
  // The demotion decides on threads and shared memory; the kernel's registers (here the
  // estimate: ptxas's are more) still hold it below the target, and a note says so.
  EXPECT_TRUE(contains(r.output,
                       "(threads and shared memory; the kernel report counts its "
                       "registers)"))
      << r.output;
  EXPECT_TRUE(contains(r.output,
                       "note: stencil 'five': occupancy 1 asked, kernel call0_five_s0 holds 75% "
                       "(3 blocks per SM, limited by registers; 34 registers, estimated): moving "
                       "arrays to global memory frees shared memory only"))
      << r.output;
  EXPECT_FALSE(contains(r.output, "is recorded but not applied yet")) << r.output;
  auto run = runCommand(tesselBinary() + " run " + file +
                        " --backend opencl --verify --schedule shared" + kSizes);
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_TRUE(contains(run.output, "verification PASSED")) << run.output;
}

// `shmem (e)` keeps e: d and then c (8 accesses) move. `gmem (a)` reads a from global memory
// (one tile fewer from the start).
TEST(OccupancyDemotion, PlacementsAreApplied) {
  const std::string kept = write("kept", fiveArrays("  #assign shmem (e)\n"));
  auto r = runCommand(tesselBinary() + " info --kernels --no-ptxas " + kept + " --schedule shared");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "'e' (6 accesses")) << r.output;
  EXPECT_TRUE(contains(r.output, "the occupancy target never moves 'e' to global memory"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "'d' (7 accesses")) << r.output;
  EXPECT_TRUE(contains(r.output, "'c' (8 accesses")) << r.output;
  const std::string global = write("gmem", fiveArrays("  #assign gmem (a)\n"));
  auto g =
      runCommand(tesselBinary() + " info --kernels --no-ptxas " + global + " --schedule shared");
  ASSERT_EQ(g.exitCode, 0) << g.output;
  EXPECT_FALSE(contains(g.output, "the placement of 'a'")) << g.output;  // applied, not noted
  EXPECT_TRUE(contains(g.output, "'e' (6 accesses")) << g.output;
  EXPECT_TRUE(contains(g.output, "61440 -> 46080 bytes")) << g.output;  // four tiles, then three
  auto run = runCommand(tesselBinary() + " run " + global +
                        " --backend opencl --verify --schedule shared" + kSizes);
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_TRUE(contains(run.output, "verification PASSED")) << run.output;
  // `no-shmem a;` and `#assign no_shmem (a)`: never in shared memory, so a is read from global
  // memory as under gmem (the same tiles, the same moves, no "recorded" note).
  for (const char* placement : {"  no-shmem a;\n", "  #assign no_shmem (a)\n"}) {
    const std::string file = write("noshmem", fiveArrays(placement));
    auto n =
        runCommand(tesselBinary() + " info --kernels --no-ptxas " + file + " --schedule shared");
    ASSERT_EQ(n.exitCode, 0) << n.output;
    EXPECT_FALSE(contains(n.output, "the placement of 'a'")) << n.output;
    EXPECT_TRUE(contains(n.output, "61440 -> 46080 bytes")) << n.output;
    auto v = runCommand(tesselBinary() + " run " + file +
                        " --backend opencl --verify --schedule stream" + kSizes);
    EXPECT_EQ(v.exitCode, 0) << v.output;
    EXPECT_TRUE(contains(v.output, "verification PASSED")) << v.output;
  }
  // Under a family that stages nothing, the clause stays recorded and says so.
  auto gl =
      runCommand(tesselBinary() + " info --kernels --no-ptxas " + global + " --schedule global");
  EXPECT_TRUE(contains(gl.output, "stencil 'five': occupancy (")) << gl.output;
  EXPECT_TRUE(contains(gl.output, "is recorded but not applied yet")) << gl.output;
}

namespace {

// A ping-pong sweep under stream + time_tile 2 (block 32x16): three arrays the fused kernel only
// reads, a (9 reads per output point over both stages), b (8) and c (6), each in an input ring;
// x and y are written by the kernel, so their rings cannot move.
std::string fusedSweep(const std::string& placements, const std::string& pragma) {
  return "parameter L=64, M=64, N=64, T=2;\niterator k, j, i;\n"
         "double x[L,M,N], y[L,M,N], a[L,M,N], b[L,M,N], c[L,M,N];\ncopyin x, y, a, b, c;\n"
         "#pragma stream k block (32, 16) time_tile 2 " +
         pragma + "\nstencil sweep (out, in, a, b, c) {\n" + placements +
         "  out[k][j][i] = 0.1*in[k][j][i] + 0.01*in[k-1][j][i+1]\n"
         "    + a[k][j-2][i] + a[k][j+2][i] + a[k][j][i-2] + a[k][j][i+2] + a[k-1][j][i]\n"
         "    + b[k][j-2][i] + b[k][j+2][i] + b[k][j][i-2] + b[k][j][i+2]\n"
         "    + c[k][j-2][i] + c[k][j+2][i] + c[k][j][i-2];\n}\n"
         "iterate 1:T {\n  [2:L-3, 2:M-3, 2:N-3] : sweep (y, x, a, b, c);\n"
         "  [2:L-3, 2:M-3, 2:N-3] : sweep (x, y, a, b, c);\n}\ncopyout x, y;\n";
}

void expectVerifies(const std::string& file, const std::string& flags) {
  for (const char* backend : {"opencl", "cpp"}) expectRunVerifies(file, backend, flags);
}

}  // namespace

// Under stream + time_tile the fused kernel's input rings of the arrays it only reads are the
// candidates: on the H100 its 60,544 B of rings allow 3 blocks of 512 threads (75%); c's ring
// (6 reads per point, the fewest) moves to global memory, 49,664 B: 4 blocks (100%). The kernel
// reads c from global memory, says so, and agrees with the reference at awkward sizes.
TEST(OccupancyDemotion, StreamTimeTileDemotesTheLeastReadInputRing) {
  const std::string file = write("fused", fusedSweep("", "occupancy 1.0"));
  auto r = runCommand(tesselBinary() + " info --kernels --no-ptxas " + file);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "'c' (6 accesses per point, the fewest of the input rings of the arrays "
                       "the fused kernels only read) moves to global memory: 60544 -> 49664 "
                       "bytes of shared memory per block, occupancy 75% -> 100%"))
      << r.output;
  EXPECT_FALSE(contains(r.output, "'b' (")) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "read from global memory instead of an input ring (gmem, "
                       "occupancy, no_shmem): c"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "shared 49664 B")) << r.output;
  EXPECT_FALSE(contains(r.output, "is recorded but not applied yet")) << r.output;
  expectVerifies(file, "--param L=6 --param M=5 --param N=9");
  expectVerifies(file, "--param L=21 --param M=37 --param N=41");
}

// `gmem (a)` reads a from global memory in the fused kernel; `gmem (in)` names an array the
// kernel writes (x, y): its ring stays, and a note says why. Under overlapped neither applies,
// and the note says why instead of "not applied yet".
TEST(OccupancyDemotion, StreamTimeTilePlacementsAndOverlapped) {
  const std::string file = write("fusedgmem", fusedSweep("  #assign gmem (a, in)\n", ""));
  auto r = runCommand(tesselBinary() + " info --kernels --no-ptxas " + file);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "read from global memory instead of an input ring (gmem, "
                       "occupancy, no_shmem): a"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "'in' stays in shared memory: the fused kernel writes it"))
      << r.output;
  EXPECT_FALSE(contains(r.output, "the placement of 'a'")) << r.output;
  expectVerifies(file, "--param L=6 --param M=5 --param N=9");
  auto o = runCommand(tesselBinary() + " info --no-ptxas " + file + " --schedule overlapped");
  EXPECT_TRUE(contains(o.output, "the placement hints (")) << o.output;
  EXPECT_TRUE(contains(o.output,
                       "do not apply to the 'overlapped' family: its shared tiles hold "
                       "the values its kernels compute"))
      << o.output;
}

// The stencil-wide `no_shmem` clause (paper 000 II-B): under shared and stream nothing is staged
// in shared memory (every array read from global memory at each use); a fused streamed kernel
// reads the arrays it only reads from global memory and keeps rings for those it writes, and
// says so; `overlapped` and the global families say it does not apply. Each verifies on PoCL.
TEST(OccupancyDemotion, StencilWideNoShmemStagesNothing) {
  const std::string text =
      "parameter L=32, M=32, N=32, T=2;\niterator k, j, i;\n"
      "double a[L,M,N], b[L,M,N], c[L,M,N];\ncopyin a, b, c;\n"
      "#pragma stream k block (16, 8) no_shmem\nstencil s (o, x, w) {\n"
      "  o[k][j][i] = w[k][j][i] * (x[k-1][j][i] + x[k+1][j][i] + x[k][j-1][i] + x[k][j+1][i]"
      " + x[k][j][i-1] + x[k][j][i+1]) + w[k][j-1][i];\n}\n"
      "iterate 1:T {\n  s (b, a, c);\n  s (a, b, c);\n}\ncopyout a;\n";
  const std::string file = write("noshmem", text);
  for (const char* family : {"stream", "shared"}) {
    auto r = runCommand(tesselBinary() + " info --kernels --json --no-ptxas " + file +
                        " --schedule " + family);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    for (const auto& k : j["kernels"]) EXPECT_EQ(k["shared_bytes"], 0) << family << k;
  }
  // The fused kernel: c (w, only read) from global memory, a and b (x, written) in rings.
  auto f = runCommand(tesselBinary() + " info --kernels --no-ptxas " + file + " --time-tile 2");
  ASSERT_EQ(f.exitCode, 0) << f.output;
  EXPECT_TRUE(contains(f.output, "'x' stays in shared memory: the fused kernel writes it"))
      << f.output;
  EXPECT_TRUE(contains(f.output,
                       "read from global memory instead of an input ring (gmem, "
                       "occupancy, no_shmem): c"))
      << f.output;
  for (const char* flags : {"--schedule stream", "--schedule shared", "--time-tile 2",
                            "--schedule global", "--schedule overlapped --time-tile 2"}) {
    SCOPED_TRACE(flags);
    expectRunVerifies(file, "opencl", std::string(flags) + kSizes + " --param T=2");
  }
  auto g = runCommand(tesselBinary() + " info --no-ptxas " + file + " --schedule global");
  EXPECT_TRUE(contains(g.output,
                       "does not apply to the 'global' family: it stages nothing in "
                       "shared memory"))
      << g.output;
  auto o = runCommand(tesselBinary() + " info --no-ptxas " + file +
                      " --schedule overlapped --time-tile 2");
  EXPECT_TRUE(contains(o.output, "no_shmem (" + file +
                                     ":5:32) does not apply to the 'overlapped' family: its "
                                     "shared tiles hold the values its kernels compute"))
      << o.output;
}
