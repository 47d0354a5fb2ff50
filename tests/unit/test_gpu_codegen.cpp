// GPU code generation without a device: the kernel IR, the CUDA and OpenCL dialects, the
// lowering (one kernel per statement, grids, guards, host code) and golden lines of generated
// kernels for a 2-D and a 3-D program in both dialects and both schedule families.
#include <gtest/gtest.h>

#include "codegen/cpp_backend.h"
#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "codegen/gpu_backend.h"
#include "exec/cuda_resources.h"
#include "ir/loop_ir.h"
#include "lower/lower_gpu.h"
#include "model/machine.h"
#include "schedule/resolve.h"
#include "schedule/schedule.h"
#include "unit/gpu_test_util.h"

using namespace tessel;
using namespace tessel::gputest;

namespace {

std::string bench(const std::string& name) {
  return std::string(TESSEL_SOURCE_DIR) + "/benchmarks/" + name + ".sten";
}

Config stream() {
  Config c;
  c.family = ScheduleFamily::GlobalStream;
  return c;
}

/// Expects every line of `want` in `text` (the lines that matter, not the whole file).
void expectLines(const std::string& text, const std::vector<std::string>& want) {
  for (auto& w : want) EXPECT_TRUE(contains(text, w)) << "missing: " << w << "\nin:\n" << text;
}

}  // namespace

// ---- kernel IR and dialects ---------------------------------------------------------------

TEST(GpuIr, IntrinsicsAndBarriersAreSpelledByTheDialect) {
  ExprPtr gx = lir::intrinsic(lir::Intrinsic::GlobalId, 0);
  ExprPtr ly = lir::intrinsic(lir::Intrinsic::LocalId, 1);
  ExprPtr gz = lir::intrinsic(lir::Intrinsic::GroupId, 2);
  ExprPtr bs = lir::intrinsic(lir::Intrinsic::LocalSize, 0);
  CLikeEmitter cu(cudaDialect()), cl(openclDialect());
  EXPECT_EQ(cu.emitExpr(gx), "((long long)blockIdx.x * blockDim.x + threadIdx.x)");
  EXPECT_EQ(cl.emitExpr(gx), "(long)get_global_id(0)");
  EXPECT_EQ(cu.emitExpr(ly), "(long long)threadIdx.y");
  EXPECT_EQ(cl.emitExpr(ly), "(long)get_local_id(1)");
  EXPECT_EQ(cu.emitExpr(gz), "(long long)blockIdx.z");
  EXPECT_EQ(cl.emitExpr(gz), "(long)get_group_id(2)");
  EXPECT_EQ(cl.emitExpr(lir::indexAdd(var("lo", ScalarType::Int), bs)),
            "lo + (long)get_local_size(0)");
  EXPECT_EQ(cu.emitStmt(lir::barrier()), "__syncthreads();\n");
  EXPECT_EQ(cl.emitStmt(lir::barrier()), "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n");
  EXPECT_THROW(lir::intrinsic(lir::Intrinsic::GlobalId, 3), std::logic_error);
  EXPECT_THROW(CLikeEmitter(cppDialect()).emitExpr(gx), std::logic_error);
}

TEST(GpuIr, DialectsDifferInTypesMathAndPragmas) {
  Dialect cu = cudaDialect(), cl = openclDialect();
  EXPECT_EQ(cl.typeName(lir::CType::Int64), "long");
  EXPECT_EQ(cu.typeName(lir::CType::Int64), "long long");
  EXPECT_EQ(cl.mathName("sqrt", ScalarType::Float), "sqrt");  // overloaded
  EXPECT_EQ(cu.mathName("sqrt", ScalarType::Float), "sqrtf");
  EXPECT_EQ(cu.mathName("sqrt", ScalarType::Double), "sqrt");
  EXPECT_EQ(cl.mathName("min", ScalarType::Double), "fmin");
  EXPECT_EQ(cu.mathName("abs", ScalarType::Int), "llabs");
  EXPECT_EQ(cl.mathName("abs", ScalarType::Int), "(long)abs");  // OpenCL's abs is unsigned
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  EXPECT_TRUE(has(cl.prelude, "#pragma OPENCL FP_CONTRACT OFF"));
  EXPECT_TRUE(has(cl.prelude, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"));
  EXPECT_TRUE(has(cudaCompileFlags(), "-fmad=false"));
  EXPECT_TRUE(has(cudaCompileFlags(), "-arch=sm_90"));
  EXPECT_TRUE(has(cudaResourceFlags({}), "-fmad=false"));
}

TEST(GpuIr, KernelsLaunchesAndStatusHelpers) {
  // A kernel with a bool buffer, an int64 parameter and a fallible division.
  lir::Function k;
  k.name = "kern";
  k.linkage = lir::Linkage::Kernel;
  k.params = {{"flags", lir::CType::Bool, true, true},
              {"n", lir::CType::Int64, false},
              {"tessel_device_status", lir::CType::Int32, true}};
  ExprPtr i = var("i", ScalarType::Int);
  k.body = lir::block(
      {lir::localDecl(lir::CType::Int64, "i", lir::intrinsic(lir::Intrinsic::GlobalId, 0)),
       lir::store("out", i, binary(Op::Div, i, var("n", ScalarType::Int)))});
  lir::Module m;
  m.functions = {k};
  std::string cl = CLikeEmitter(openclDialect()).emitModule(m);
  expectLines(cl,
              {"__kernel void kern(\n    __global const uchar* restrict flags,\n    const long n,",
               "static inline long tessel_idiv(__global int* tessel_device_status, long a, "
               "long b) {",
               "atomic_cmpxchg(tessel_device_status, 0, code);",
               "out[i] = tessel_idiv(tessel_device_status, i, n);"});
  EXPECT_FALSE(contains(cl, "static std::atomic")) << cl;
  std::string cu = CLikeEmitter(cudaDialect()).emitModule(m);
  expectLines(cu, {"extern \"C\" __global__ void kern(", "const bool* __restrict__ flags",
                   "static __device__ inline long long tessel_idiv(int* tessel_device_status,",
                   "atomicCAS(tessel_device_status, 0, code);"});

  // A launch converts scalar arguments to the kernel parameter's type only where they differ.
  lir::StmtPtr l = lir::launch(
      "kern", 3, {var("bx", ScalarType::Int), intLit(2)}, {intLit(32), intLit(8)},
      {{"a", lir::CType::Double, true},
       {"n", lir::CType::Int64, false},
       {"x", lir::CType::Float, false}},
      {var("a", ScalarType::Double), var("n", ScalarType::Int), var("x", ScalarType::Double)});
  EXPECT_EQ(CLikeEmitter(gpuHostDialect()).emitStmt(l),
            "tessel_launch(rt, 3, 2, bx, 2, 1, 32, 8, 1, a.handle, n, (float)x);  // kern\n");
  EXPECT_THROW(lir::launch("k", 0, {intLit(1)}, {intLit(1), intLit(1)}, {}, {}), std::logic_error);
  EXPECT_THROW(
      lir::launch("k", 0, {intLit(1)}, {intLit(1)}, {{"a", lir::CType::Double, true}}, {intLit(0)}),
      std::logic_error);
}

TEST(GpuIr, SharedArraysStepLoopsAndLaunchBounds) {
  // A kernel that stages a tile cooperatively: shared arrays, a strided loop, a required block.
  lir::Function k;
  k.name = "tile";
  k.linkage = lir::Linkage::Kernel;
  k.params = {{"in", lir::CType::Double, true, true}, {"out", lir::CType::Double, true}};
  k.shared = {lir::sharedArray(lir::CType::Double, "s_in", 340),
              lir::sharedArray(lir::CType::Bool, "s_flag", 4)};
  k.requiredBlock = {32, 8, 1};
  ExprPtr t = var("t", ScalarType::Int);
  ExprPtr lx = lir::intrinsic(lir::Intrinsic::LocalId, 0);
  k.body = lir::block(
      {lir::forStep("t", lx, intLit(339), intLit(256),
                    {lir::store("s_in", t, load("in", t, ScalarType::Double))}),
       lir::barrier(),
       lir::store("out", lx, load("s_in", lir::indexAddConst(lx, 1), ScalarType::Double))});
  lir::Module m;
  m.functions = {k};
  std::string cu = CLikeEmitter(cudaDialect()).emitModule(m);
  expectLines(
      cu, {"extern \"C\" __global__ void __launch_bounds__(256, 1) tile(",
           "  __shared__ double s_in[340];\n  __shared__ bool s_flag[4];\n",
           "for (long long t = (long long)threadIdx.x; t <= 339; t += 256) {", "s_in[t] = in[t];",
           "__syncthreads();", "out[(long long)threadIdx.x] = s_in[(long long)threadIdx.x + 1];"});
  std::string cl = CLikeEmitter(openclDialect()).emitModule(m);
  expectLines(cl, {"__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void tile(",
                   "  __local double s_in[340];\n  __local uchar s_flag[4];\n",
                   "for (long t = (long)get_local_id(0); t <= 339; t += 256) {",
                   "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"});
  // A step of 1 prints as ++; a bad step, count or misuse outside a kernel is refused.
  EXPECT_EQ(
      CLikeEmitter(cudaDialect()).emitStmt(lir::forStep("i", intLit(0), intLit(3), intLit(1), {})),
      "for (long long i = 0; i <= 3; ++i) {\n}\n");
  EXPECT_THROW(lir::forStep("i", intLit(0), intLit(3), intLit(0), {}), std::logic_error);
  EXPECT_THROW(lir::sharedArray(lir::CType::Double, "s", 0), std::logic_error);
  EXPECT_EQ(lir::byteSize(lir::CType::Double), 8);
  EXPECT_EQ(lir::byteSize(lir::CType::Float), 4);
  lir::Function host = k;
  host.linkage = lir::Linkage::Internal;
  EXPECT_THROW(CLikeEmitter(cudaDialect()).emitFunction(host), std::logic_error);
  EXPECT_THROW(CLikeEmitter(cppDialect()).emitFunction(k), std::logic_error);
  // Blocks per multiprocessor: CUDA's second launch bound; OpenCL has none.
  k.minBlocksPerSm = 4;
  EXPECT_TRUE(contains(CLikeEmitter(cudaDialect()).emitFunction(k),
                       "__global__ void __launch_bounds__(256, 4) tile("));
  EXPECT_TRUE(contains(CLikeEmitter(openclDialect()).emitFunction(k),
                       "__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void tile("));
}

// ---- golden lines: a 2-D and a 3-D program, both dialects, both families --------------------

TEST(GpuGolden, TwoDimensionalGlobal) {
  Parsed p = parseFile(bench("j2d5pt"));
  ASSERT_TRUE(p.prog);
  GpuSources cl = generate(*p.prog, GpuApi::OpenCL);
  expectLines(
      cl.kernelSource,
      {"#pragma OPENCL FP_CONTRACT OFF", "__kernel void call0_j2d5pt_s0(",
       "    __global const double* restrict in,", "    __global double* restrict out,",
       "    const int N,", "    __global int* restrict tessel_device_status) {",
       "  const int i = lo_i + (int)get_global_id(0);",
       "  const int j = lo_j + (int)get_global_id(1);", "  if ((i <= hi_i) && (j <= hi_j)) {",
       "    out[j * N + i] = (5.1 * in[(j - 1) * N + i]",
       // The 64-bit copy (pass narrow-indices).
       "__kernel void call0_j2d5pt_s0_i64(", "    const long N,",
       "  const long i = lo_i + (long)get_global_id(0);"});
  GpuSources cu = generate(*p.prog, GpuApi::Cuda);
  expectLines(
      cu.kernelSource,
      {"extern \"C\" __global__ void call0_j2d5pt_s0(", "    const double* __restrict__ in,",
       "  const int i = lo_i + (int)(blockIdx.x * blockDim.x + threadIdx.x);",
       "  const int j = lo_j + (int)(blockIdx.y * blockDim.y + threadIdx.y);",
       "  if ((i <= hi_i) && (j <= hi_j)) {",
       "  const long long i = lo_i + ((long long)blockIdx.x * blockDim.x + threadIdx.x);"});
  // Host: region bounds, blocks rounded up, the launch; the same in both.
  for (const GpuSources* s : {&cl, &cu})
    expectLines(
        s->hostSource,
        {"    const int64_t lo_j = 1;", "    const int64_t hi_j = M - 2;",
         "      const int64_t blocks_x = (hi_i - lo_i + 32) / 32;",
         "      const int64_t blocks_y = (hi_j - lo_j + 8) / 8;", "        if (tessel_fits32) {",
         "          tessel_launch(rt, 0, 2, blocks_x, blocks_y, 1, 32, 8, 1, in.handle, "
         "out.handle,\n              (int32_t)N, (int32_t)lo_j, (int32_t)hi_j, (int32_t)lo_i,"
         "\n              (int32_t)hi_i);  // call0_j2d5pt_s0",
         "          tessel_launch(rt, 2, 2, blocks_x, blocks_y, 1, 32, 8, 1, in.handle, "
         "out.handle, N, lo_j,\n              hi_j, lo_i, hi_i);  // call0_j2d5pt_s0_i64",
         "  tessel_copy_in(rt, in, arrays[0]);", "  tessel_copy_out(rt, arrays[0], in);"});
}

TEST(GpuGolden, TwoDimensionalStreamIsAOneDimensionalGridLoopingOverJ) {
  Parsed p = parseFile(bench("j2d5pt"));
  ASSERT_TRUE(p.prog);
  GpuSources cl = generate(*p.prog, GpuApi::OpenCL, stream());
  expectLines(cl.kernelSource, {"  const long i = lo_i + (long)get_global_id(0);",
                                "  if (i <= hi_i) {", "    for (long j = lo_j; j <= hi_j; ++j) {",
                                "// One thread per point: i -> x; each thread loops over j"});
  EXPECT_FALSE(contains(cl.kernelSource, "get_global_id(1)"));
  GpuSources cu = generate(*p.prog, GpuApi::Cuda, stream());
  expectLines(cu.kernelSource, {"    for (long long j = lo_j; j <= hi_j; ++j) {"});
  expectLines(cu.hostSource,
              {"      const int64_t blocks_x = (hi_i - lo_i + 256) / 256;",
               "      tessel_launch(rt, 0, 1, blocks_x, 1, 1, 256, 1, 1, in.handle, out.handle,"});
}

TEST(GpuGolden, ThreeDimensionalGlobalAndStream) {
  Parsed p = parseFile(bench("j3d7pt"));
  ASSERT_TRUE(p.prog);
  GpuSources cl = generate(*p.prog, GpuApi::OpenCL);
  expectLines(cl.kernelSource, {"  const long k = lo_k + (long)get_global_id(2);",
                                "  if ((i <= hi_i) && (j <= hi_j) && (k <= hi_k)) {",
                                "    out[(k * M + j) * N + i] = c0 * in[(k * M + j) * N + i] + c1",
                                "    const double c0,", "    const long M,"});
  GpuSources cu = generate(*p.prog, GpuApi::Cuda);
  expectLines(cu.kernelSource,
              {"  const long long k = lo_k + ((long long)blockIdx.z * blockDim.z + threadIdx.z);",
               "  if ((i <= hi_i) && (j <= hi_j) && (k <= hi_k)) {"});
  expectLines(cu.hostSource, {"      const int64_t blocks_z = hi_k - lo_k + 1;",
                              "tessel_launch(rt, 0, 3, blocks_x, blocks_y, blocks_z, 32, 8, 1,"});
  // global-stream: a 2-D grid over (i, j), each thread sweeping k.
  GpuSources cls = generate(*p.prog, GpuApi::OpenCL, stream());
  expectLines(cls.kernelSource,
              {"  const long j = lo_j + (long)get_global_id(1);",
               "  if ((i <= hi_i) && (j <= hi_j)) {", "    for (long k = lo_k; k <= hi_k; ++k) {"});
  EXPECT_FALSE(contains(cls.kernelSource, "get_global_id(2)"));
  GpuSources cus = generate(*p.prog, GpuApi::Cuda, stream());
  expectLines(cus.kernelSource, {"    for (long long k = lo_k; k <= hi_k; ++k) {"});
  expectLines(cus.hostSource, {"tessel_launch(rt, 0, 2, blocks_x, blocks_y, 1, 32, 8, 1,"});
}

// ---- lowering decisions --------------------------------------------------------------------

TEST(GpuGolden, SharedStagesTheTileThenSynchronises) {
  Parsed p = parseFile(bench("j2d5pt"));
  ASSERT_TRUE(p.prog);
  Config c;
  c.family = ScheduleFamily::Shared;
  GpuSources cl = generate(*p.prog, GpuApi::OpenCL, c);
  expectLines(
      cl.kernelSource,
      {"__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void call0_j2d5pt_s0(",
       "  __local double s_in[340];", "  const long t0_i = lo_i + (long)get_group_id(0) * 32;",
       "  const long t0_j = lo_j + (long)get_group_id(1) * 8;",
       // a loop per dimension from the thread's own index (issue 11: no division per element)
       "  for (long y_j = (long)get_local_id(1); y_j <= 9; y_j += 8) {",
       "    for (long y_i = (long)get_local_id(0); y_i <= 33; y_i += 32) {",
       "      const long x_j = t0_j - 1 + y_j;", "      const long x_i = t0_i - 1 + y_i;",
       "      if ((0 <= x_j) && (x_j < M) && (0 <= x_i) && (x_i < N)) {",
       "        s_in[y_j * 34 + y_i] = in[x_j * N + x_i];",
       // pass insert-barriers: right after the loads, before the point's coordinates
       "      }\n    }\n  }\n  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
       "  const long i = t0_i + (long)get_local_id(0);",
       "  if ((i <= hi_i) && (j <= hi_j)) {",
       "    out[j * N + i] = (5.1 * s_in[(j - t0_j) * 34 + (i - t0_i + 1)] + 12.1"});
  // Two points per thread along i: a 64x8 tile, 64 + 2 wide; blocks of 64 along x on the host.
  c.unroll = {2, 1, 1};  // grid x = i
  GpuSources cu = generate(*p.prog, GpuApi::Cuda, c);
  expectLines(cu.kernelSource,
              {"extern \"C\" __global__ void __launch_bounds__(256, 4) call0_j2d5pt_s0(",
               "  __shared__ double s_in[660];",
               "  const long long t0_i = lo_i + (long long)blockIdx.x * 64;",
               "    for (long long y_i = (long long)threadIdx.x; y_i <= 65; y_i += 32) {",
               // pass unroll-loops: one copy per point, the index folded
               "  __syncthreads();\n"
               "  // u_i = 0\n  {\n"
               "    const long long i = t0_i + (long long)threadIdx.x * 2;",
               "  // u_i = 1\n  {\n"
               "    const long long i = t0_i + ((long long)threadIdx.x * 2 + 1);"});
  expectLines(cu.hostSource, {"      const int64_t blocks_x = (hi_i - lo_i + 64) / 64;",
                              "tessel_launch(rt, 0, 2, blocks_x, blocks_y, 1, 32, 8, 1,"});
}

TEST(GpuGolden, StreamRotatesRegisterAndSharedPlanes) {
  // j3d7pt: planes k-1 and k+1 only at their centre (a shift register), plane k in shared memory,
  // in a ring of two slots (one more than the plane): the sweep is unrolled by two so that each
  // copy names its slot, and a plane needs one barrier (loaded, then read).
  Parsed p = parseFile(bench("j3d7pt"));
  ASSERT_TRUE(p.prog);
  Config c;
  c.family = ScheduleFamily::Stream;
  c.block = {32, 8, 0};
  GpuSources cu = generate(*p.prog, GpuApi::Cuda, c);
  expectLines(
      cu.kernelSource,
      {"// in: planes k-1, k+1 in registers, k in shared memory (one plane of 10x34, in 2 slots)",
       "  __shared__ double s_in_0[340];\n  __shared__ double s_in_1[340];",
       "  const int first_k = lo_k + (int)blockIdx.z * 16;",
       "  const int last_k = min(first_k + 15, hi_k);",
       "  double r_in_m1 = 0.0;\n  double r_in_0 = 0.0;\n  double r_in_p1 = 0.0;",
       "    r_in_m1 = in[((first_k - 1) * M + j) * N + i];",
       "  const int rounds = (last_k - first_k + 1) / 2;",
       "  int base_k = first_k;\n  int k = first_k;\n"
       "  for (int round = 0; round <= rounds - 1; ++round) {\n"
       "    base_k = first_k + round * 2;\n    {\n      k = base_k;",
       "        r_in_p1 = in[((k + 1) * M + j) * N + i];",
       // plane k: the own point from the register chain, the halo from global memory, in a
       // loop the compiler keeps rolled
       "        s_in_0[(j - t0_j + 1) * 34 + (i - t0_i + 1)] = r_in_0;\n"
       "        #pragma unroll 1\n"
       "        for (int y_j = (int)threadIdx.y; y_j <= 9; y_j += 8) {",
       "&& ((x_j < t0_j) || (x_j > t0_j + 7) || ((x_i < t0_i) || (x_i > t0_i + 31)))) {",
       "              s_in_0[y_j * 34 + y_i] = in[(k * M + x_j) * N + x_i];",
       // the one barrier of the plane: its loads before its reads
       "      __syncthreads();\n      if ((i <= hi_i) && (j <= hi_j)) {",
       "(r_in_m1 + r_in_p1 + s_in_0[(j - t0_j) * 34 + (i - t0_i + 1)]",
       "      // Rotate the register planes.\n      r_in_m1 = r_in_0;\n      r_in_0 = r_in_p1;\n   "
       " }",
       // the second copy loads and reads the other slot
       "      k = base_k + 1;",
       "              s_in_1[y_j * 34 + y_i] = in[(k * M + x_j) * N + x_i];",
       "(r_in_m1 + r_in_p1 + s_in_1[(j - t0_j) * 34 + (i - t0_i + 1)]",
       // a chunk's last plane (an odd count)
       "  // The last planes, fewer than a round.\n  base_k = first_k + rounds * 2;\n"
       "  if (base_k <= last_k) {\n    k = base_k;"});
  expectLines(cu.hostSource, {"      const int64_t chunks = (hi_k - lo_k + 16) / 16;",
                              "tessel_launch(rt, 0, 3, blocks_x, blocks_y, chunks, 32, 8, 1,"});
  // The same kernel in OpenCL: local memory, work-group barriers, the same rotation.
  GpuSources cl7 = generate(*p.prog, GpuApi::OpenCL, c);
  expectLines(cl7.kernelSource,
              {"__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void call0_j3d7pt_s0(",
               "  __local double s_in_0[340];", "  __local double s_in_1[340];",
               "  const int first_k = lo_k + (int)get_group_id(2) * 16;",
               "  const int last_k = min(first_k + 15, hi_k);",
               "      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
               "      if ((i <= hi_i) && (j <= hi_j)) {",
               "      r_in_m1 = r_in_0;\n      r_in_0 = r_in_p1;\n    }"});
  // j3d27pt: every plane read off centre: a ring of four slots for three planes, the sweep
  // unrolled by four; the first two planes loaded before it into slots 0 and 1.
  Parsed q = parseFile(bench("j3d27pt"));
  ASSERT_TRUE(q.prog);
  c.chunk = 0;  // serial streaming
  GpuSources cl = generate(*q.prog, GpuApi::OpenCL, c);
  expectLines(
      cl.kernelSource,
      {"  __local double s_in_3[340];", "  const int first_k = lo_k;", "  const int last_k = hi_k;",
       "          s_in_0[y_j * 34 + y_i] = in[((first_k - 1) * M + x_j) * N + x_i];",
       "          s_in_1[y_j * 34 + y_i] = in[(first_k * M + x_j) * N + x_i];",
       "  const int rounds = (last_k - first_k + 1) / 4;", "      k = base_k + 3;",
       // copy 0 loads plane k+1 into slot 2 and reads slots 0, 1, 2 (k-1, k, k+1)
       "              s_in_2[y_j * 34 + y_i] = in[((k + 1) * M + x_j) * N + x_i];",
       "c0 * s_in_1[(j - t0_j + 1) * 34 + (i - t0_i + 1)] + c1\n"
       "            * (s_in_0[(j - t0_j + 1) * 34 + (i - t0_i + 1)]",
       // copy 3 loads plane k+1 into slot 1 (= 3 + 2 mod 4)
       "              s_in_1[y_j * 34 + y_i] = in[((k + 1) * M + x_j) * N + x_i];"});
  EXPECT_FALSE(contains(cl.kernelSource, "r_in_")) << "no register planes";
  EXPECT_FALSE(contains(cl.kernelSource, " % 3 * 340")) << "ring slots are constants";
  expectLines(cl.hostSource, {"      const int64_t chunks = 1;",
                              "tessel_launch(rt, 0, 3, blocks_x, blocks_y, chunks, 32, 8, 1,"});
}

TEST(GpuLowering, OneKernelPerStatementWithHostBoundsAndLocals) {
  Parsed p = parseFile(bench("heat"));
  ASSERT_TRUE(p.prog);
  GpuProgram g = buildKernels(*p.prog, resolved(*p.prog));
  ASSERT_EQ(g.kernels.size(), 4u);  // two calls, two statements each
  EXPECT_EQ(g.kernels[1].name, "call0_heat_s1");
  EXPECT_EQ(g.kernels[1].call, 0);
  EXPECT_EQ(g.kernels[1].stmt, 1);
  EXPECT_EQ(g.kernels[1].gridIters, (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(g.kernels[1].block, (std::array<int, 3>{32, 8, 1}));
  EXPECT_TRUE(g.notes.empty());
  GpuSources s = generate(*p.prog, GpuApi::OpenCL);
  expectLines(
      s.hostSource,
      {"  const double r = alpha * dt / pow(h, (double)2);",  // an initialised local
                                                              // a local array: allocated once per
                                                              // run, cleared at each call
       "  tessel_device_buffer local_lap(rt, tessel_bytes(L * M * N, sizeof(double), "
       "\"local_lap\"), \"local_lap\");",
       "  tessel_zero(rt, lap);",
       // The iterate loop: captured as a graph of 2 iterations where the runtime takes one,
       // the iterations left one by one.
       "    tessel_graph_begin(rt, 0, graph_replays, std::max<int64_t>(0, T), 2);",
       "      for (int64_t t = 1; t <= 2; ++t) {", "      tessel_graph_end(rt, 0, graph_replays);",
       "      t_first = graph_replays * 2 + 1;", "    for (int64_t t = t_first; t <= T; ++t) {",
       "      call0_heat(rt, u0, u1, alpha, dt, h, L, M, N, local_lap, tessel_index32);",
       "      call1_heat(rt, u0, u1, alpha, dt, h, L, M, N, local_lap, tessel_index32);"});
  expectLines(s.kernelSource, {"    const double r,"});
}

// Locals the body never uses are not in the Algorithm IR, so no generated code declares them
// (nvcc warned "variable declared but never referenced" for them).
TEST(GpuLowering, UnusedLocalsAreNotEmitted) {
  Parsed p = parse(R"(
parameter N=64;
iterator i;
double a[N], b[N];
double w;
copyin a, w;
stencil s (y, x) {
  double unused_c = 0.5;
  double unused_d = w * 2.0;
  double unused_e = unused_d + 1.0;
  double unused_r;
  double unused_t[N];
  double k = w * 0.25;
  y[i] = k * x[i];
}
s (b, a);
copyout b;
)");
  ASSERT_TRUE(p.prog);
  for (GpuApi api : {GpuApi::Cuda, GpuApi::OpenCL}) {
    GpuSources g = generate(*p.prog, api);
    std::string all = g.hostSource + g.kernelSource;
    EXPECT_TRUE(contains(all, "const double k = w * 0.25;")) << all;
    EXPECT_FALSE(contains(all, "unused_")) << all;
  }
  std::string cpp = generateCpp(*p.prog);
  EXPECT_TRUE(contains(cpp, "const double k = w * 0.25;")) << cpp;
  EXPECT_FALSE(contains(cpp, "unused_")) << cpp;
}

TEST(GpuLowering, ScratchCopiesLocalScalarsPlanesAndZeroFill) {
  Parsed p = parse(R"(
parameter K=5, N=40, T;
iterator k, i;
double u[K,N], v[K,N], w[K,N], strx[N];
bool flag;
copyin u, strx, flag;
stencil chain (inout:v, u) {
  double tmp[K,N];
  double r;
  tmp[k][i] = u[k][i-1] + u[k][i+1];
  r = tmp[k][i+1] * strx[i-2];
  u[k][i] = tmp[k][i] * 2.0;
  v[k][i] = r + tmp[k][1] + select(flag, 1.0, 2.0);
}
stencil plane () { w[k][i] = u[0][i] + v[k][3]; }
iterate 1:T { [1:K-2, 0:N-1] : chain (v, u); plane (); }
copyout w;
)");
  ASSERT_TRUE(p.prog);
  GpuSources s = generate(*p.prog, GpuApi::OpenCL);
  expectLines(s.hostSource, {"tessel_zero(rt, v);", "tessel_copy_in(rt, u, arrays[0]);",
                             "tessel_copy(rt, u_2, u);",  // the scratch copy of u
                             "const int64_t box_lo_k = 1;", "tessel_copy_out(rt, arrays[2], w);",
                             "const bool flag = (bool)scalars[0];"});
  EXPECT_FALSE(contains(s.hostSource, "tessel_copy_out(rt, arrays[0]")) << "u is not copied out";
  expectLines(s.kernelSource, {"r[(k - box_lo_k) * box_n_i + (i - box_lo_i)] =",
                               "    const uchar flag,", "tmp[k * N + 1]"});
  GpuSources c = generate(*p.prog, GpuApi::Cuda);
  expectLines(c.kernelSource, {"    const bool flag,"});
}

TEST(GpuLowering, ConfigurationsDefaultsNotesAndErrors) {
  Parsed one = parse(
      "parameter N=9;\niterator i;\ndouble a[N], b[N];\ncopyin a;\n"
      "stencil s (b, a) { b[i] = a[i-1] + a[i+1]; }\ns (b, a);\n");
  ASSERT_TRUE(one.prog);
  GpuProgram g = buildKernels(*one.prog, resolved(*one.prog, stream()));
  ASSERT_EQ(g.notes.size(), 1u);
  EXPECT_TRUE(contains(g.notes[0], "global-stream does not apply to a 1-D program")) << g.notes[0];
  EXPECT_EQ(g.kernels.at(0).family, ScheduleFamily::Global);
  EXPECT_EQ(g.kernels.at(0).block, (std::array<int, 3>{256, 1, 1}));

  Config c;
  c.block = {64, 4, 1};
  g = buildKernels(*one.prog, resolved(*one.prog, c));
  EXPECT_EQ(g.kernels.at(0).block, (std::array<int, 3>{64, 1, 1}));
  ASSERT_EQ(g.notes.size(), 1u);
  EXPECT_TRUE(contains(g.notes[0], "block extent 4 along y ignored")) << g.notes[0];

  Parsed three = parseFile(bench("j3d7pt"));
  ASSERT_TRUE(three.prog);
  c = stream();
  c.streamDim = 1;  // sweep j; the grid covers i and k
  c.block = {16, 4, 0};
  g = buildKernels(*three.prog, resolved(*three.prog, c));
  EXPECT_EQ(g.kernels.at(0).gridIters, (std::vector<int>{2, 0}));
  EXPECT_EQ(g.kernels.at(0).streamIter, 1);
  EXPECT_EQ(g.kernels.at(0).block, (std::array<int, 3>{16, 4, 1}));
  c.streamDim = 3;
  EXPECT_THROW(buildKernels(*three.prog, resolved(*three.prog, c)), std::invalid_argument);
  c = Config{};
  c.block = {-1, 1, 1};
  EXPECT_THROW(buildKernels(*three.prog, resolved(*three.prog, c)), std::invalid_argument);

  // Per stencil: its Schedule where given; `global` for a stencil without one.
  g = buildKernels(*three.prog, resolve(*three.prog, {scheduleOf(*three.prog, 0, stream())}));
  for (auto& k : g.kernels) EXPECT_EQ(k.family, ScheduleFamily::GlobalStream) << k.name;
  g = buildKernels(*three.prog, resolve(*three.prog, {}));
  for (auto& k : g.kernels) EXPECT_EQ(k.family, ScheduleFamily::Global) << k.name;
  // A schedule resolved for another program is refused.
  EXPECT_THROW(buildKernels(*one.prog, resolve(*three.prog, {})), std::invalid_argument);
  ResolvedSchedule two = resolve(*one.prog, {});
  two.grids.push_back(two.grids[0]);
  EXPECT_THROW(buildKernels(*one.prog, two), std::invalid_argument);
}

TEST(GpuLowering, NamesAvoidBothDialectsAndTheRuntime) {
  Parsed p = parse(R"(
parameter N=6;
iterator i;
double kernel[N], global[N], threadIdx[N], rt[N], CL_SUCCESS[N];
copyin kernel, CL_SUCCESS;
stencil s (global, kernel) { global[i] = kernel[i] * 2.0 + CL_SUCCESS[i]; }
s (global, kernel);
stencil t (threadIdx, rt) { threadIdx[i] = 1.0; rt[i] = 2.0; }
t (threadIdx, rt);
)");
  ASSERT_TRUE(p.prog);
  GpuSources s = generate(*p.prog, GpuApi::OpenCL);
  expectLines(s.kernelSource,
              {"__global double* restrict global_2,", "__global const double* restrict kernel_2,",
               "global_2[i] = kernel_2[i] * 2.0 + vCL_SUCCESS[i];"});
  expectLines(s.hostSource, {"tessel_device_buffer rt_2(", "threadIdx_2.handle"});
}

TEST(CudaResources, ParsesPtxasReport) {
  const char* out =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'call0_a_s0' for 'sm_90'\n"
      "ptxas info    : Function properties for call0_a_s0\n"
      "    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, 400 bytes "
      "cmem[0], 8 bytes cmem[2]\n"
      "ptxas info    : Function properties for tessel_idiv\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'call1_b_s2' for 'sm_90'\n"
      "ptxas info    : Function properties for call1_b_s2\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, 48 bytes lmem\n";
  std::vector<KernelResources> k = parsePtxasReport(out);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "call0_a_s0");
  EXPECT_EQ(k[0].registers, 255);
  EXPECT_EQ(k[0].barriers, 1);
  EXPECT_EQ(k[0].sharedBytes, 4096);
  EXPECT_EQ(k[0].constantBytes, 408);
  EXPECT_EQ(k[0].stackBytes, 16);
  EXPECT_EQ(k[0].spillStores, 8);
  EXPECT_EQ(k[0].spillLoads, 12);
  EXPECT_EQ(k[1].name, "call1_b_s2");
  EXPECT_EQ(k[1].registers, 10);
  EXPECT_EQ(k[1].localBytes, 48);
  EXPECT_EQ(k[1].sharedBytes, 0);
}

TEST(GpuLowering, PlanFromSchedules) {
  Parsed p = parseFile(bench("heat"));  // `#pragma stream k block (32,16)`
  ASSERT_TRUE(p.prog);
  DiagnosticEngine diags;
  auto machine = loadMachine(kDefaultMachine, diags);
  ASSERT_TRUE(machine);
  auto schedules = buildSchedules(*p.prog, {}, *machine, diags);
  ASSERT_TRUE(schedules);
  ResolvedSchedule r = resolve(*p.prog, *schedules);
  ASSERT_EQ(r.grids.size(), 1u);
  EXPECT_EQ(r.grids[0].family, ScheduleFamily::Stream);  // the stream clause selects `stream`
  EXPECT_EQ(r.grids[0].stream, 0);
  EXPECT_EQ(r.grids[0].chunk, 16);
  EXPECT_EQ(r.grids[0].block, (std::array<int, 3>{32, 16, 1}));
  GpuProgram g = buildKernels(*p.prog, r);
  EXPECT_EQ(g.kernels.at(0).gridIters, (std::vector<int>{2, 1}));
  EXPECT_EQ(g.kernels.at(0).block, (std::array<int, 3>{32, 16, 1}));
  EXPECT_EQ(g.kernels.at(0).chunk, 16);
  // Statement 1 stages `in` (plane k in shared memory, k-1 and k+1 in registers); statement 2
  // reads only centres.
  EXPECT_EQ(g.kernels.at(0).sharedBytes, 2 * 34 * 18 * 8);  // a plane in two slots
  EXPECT_EQ(g.kernels.at(1).sharedBytes, 0);
  // Only heat's `#assign shmem (in)` is noted: placements are not applied (the staging
  // analysis decides what lives in shared memory).
  auto notes = scheduleNotes(*p.prog, *schedules);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_TRUE(contains(notes[0], "the placement of 'in' in shared memory (")) << notes[0];
  EXPECT_TRUE(contains(notes[0], "whether it is there is the staging analysis's choice"))
      << notes[0];

  // --schedule global-stream keeps the old meaning of the clause (a note: it runs full).
  ScheduleOptions gs;
  gs.family = ScheduleFamily::GlobalStream;
  schedules = buildSchedules(*p.prog, gs, *machine, diags);
  ASSERT_TRUE(schedules);
  EXPECT_EQ(resolve(*p.prog, *schedules).grids[0].family, ScheduleFamily::GlobalStream);
  notes = scheduleNotes(*p.prog, *schedules);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_TRUE(contains(notes[1], "runs as full_stream under 'global-stream'")) << notes[1];

  // Unroll: applied by `shared`, a note elsewhere.
  ScheduleOptions sh;
  sh.family = ScheduleFamily::Shared;
  sh.unroll = UnrollSpec{{{"i", 2}}, UnrollDistribution::Cyclic};
  schedules = buildSchedules(*p.prog, sh, *machine, diags);
  ASSERT_TRUE(schedules);
  notes = scheduleNotes(*p.prog, *schedules);  // the placement, and the file's stream clause
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_TRUE(contains(notes[1], "heat.sten:13:9) does not apply to the shared family"))
      << notes[1];
  EXPECT_EQ(resolve(*p.prog, *schedules).grids[0].unroll, (std::array<int, 3>{2, 1, 1}));
  EXPECT_TRUE(resolve(*p.prog, *schedules).grids[0].cyclic);
  // `stream` applies it too (issue 12), also its fused kernels under a time tile.
  sh.family = ScheduleFamily::Stream;
  schedules = buildSchedules(*p.prog, sh, *machine, diags);
  ASSERT_TRUE(schedules);
  notes = scheduleNotes(*p.prog, *schedules);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(resolve(*p.prog, *schedules).grids[0].unroll, (std::array<int, 3>{2, 1, 1}));
  EXPECT_TRUE(resolve(*p.prog, *schedules).grids[0].cyclic);
  sh.timeTile = 2;
  schedules = buildSchedules(*p.prog, sh, *machine, diags);
  ASSERT_TRUE(schedules);
  notes = scheduleNotes(*p.prog, *schedules);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_FALSE(contains(notes[0], "unroll")) << notes[0];
  EXPECT_EQ(resolve(*p.prog, *schedules).grids[0].unroll, (std::array<int, 3>{2, 1, 1}));
  EXPECT_TRUE(resolve(*p.prog, *schedules).grids[0].cyclic);

  ScheduleOptions global;
  global.family = ScheduleFamily::Global;
  global.block = std::vector<int64_t>{64, 2, 2};
  schedules = buildSchedules(*p.prog, global, *machine, diags);
  ASSERT_TRUE(schedules) << diags.errorCount();
  g = buildKernels(*p.prog, resolve(*p.prog, *schedules));
  EXPECT_EQ(g.kernels.at(0).family, ScheduleFamily::Global);
  EXPECT_EQ(g.kernels.at(0).block, (std::array<int, 3>{64, 2, 2}));
}
