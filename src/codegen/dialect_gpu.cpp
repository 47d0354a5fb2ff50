// The GPU dialects: CUDA and OpenCL device code, and the C++ host code that drives them.
//
// The two device dialects differ only in these tables: type names, qualifiers, the address space
// of buffers, index and barrier spellings, math names and the error status's atomics. Names the
// generated code must avoid are the union over both, so a program's CUDA and OpenCL kernels use
// the same identifiers.
#include <string>
#include <vector>

#include "codegen/dialect.h"

namespace tessel {

namespace {

// clang-format off
// Identifiers of OpenCL C and CUDA C++ that generated names must avoid (keywords, address
// spaces, built-in types, index functions, macros of the standard headers).
const char* const kGpuWords[] = {
    // OpenCL C
    "kernel", "global", "local", "constant", "private", "generic", "read_only", "write_only",
    "read_write", "uchar", "ushort", "uint", "ulong", "half", "quad", "complex", "imaginary",
    "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "image1d_t", "image2d_t", "image3d_t",
    "image1d_array_t", "image2d_array_t", "image1d_buffer_t", "sampler_t", "event_t",
    "cl_mem_fence_flags",
    "get_global_id", "get_local_id", "get_group_id", "get_local_size", "get_global_size",
    "get_num_groups", "get_work_dim", "get_global_offset", "barrier", "mem_fence", "read_mem_fence",
    "write_mem_fence", "atomic_cmpxchg", "atomic_add", "atomic_sub", "atomic_xchg", "atomic_inc",
    "atomic_dec", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
    "CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE", "select", "clamp", "mix", "sign", "step",
    "smoothstep", "dot", "cross", "length", "distance", "normalize", "isnan", "isinf", "isfinite",
    "signbit", "any", "all", "printf", "vload", "vstore", "async_work_group_copy",
    "wait_group_events", "prefetch", "convert", "as_type", "vec_step", "shuffle", "shuffle2",
    // CUDA C++
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "atomicCAS", "atomicAdd",
    "atomicExch", "atomicMin", "atomicMax", "llabs", "llmin", "llmax", "ullmin", "ullmax", "umin",
    "umax", "cudaError_t", "cudaStream_t", "cudaEvent_t", "nullptr_t",
    // macros of math.h, float.h, limits.h and the OpenCL built-ins
    "M_E", "M_LOG2E", "M_LOG10E", "M_LN2", "M_LN10", "M_PI", "M_PI_2", "M_PI_4", "M_1_PI",
    "M_2_PI", "M_2_SQRTPI", "M_SQRT2", "M_SQRT1_2", "M_E_F", "M_PI_F", "MAXFLOAT", "HUGE_VALF",
    "HUGE_VALL", "FLT_MAX", "FLT_MIN", "FLT_EPSILON", "FLT_DIG", "FLT_RADIX", "FLT_MANT_DIG",
    "DBL_MAX", "DBL_MIN", "DBL_EPSILON", "DBL_DIG", "DBL_MANT_DIG", "CHAR_BIT", "CHAR_MAX",
    "CHAR_MIN", "SCHAR_MAX", "SCHAR_MIN", "UCHAR_MAX", "SHRT_MAX", "SHRT_MIN", "USHRT_MAX",
    "INT_MAX", "INT_MIN", "UINT_MAX", "LONG_MAX", "LONG_MIN", "ULONG_MAX", "LLONG_MAX",
    "LLONG_MIN", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_ILOGB0", "FP_ILOGBNAN", "EXIT_SUCCESS",
    "EXIT_FAILURE", "RAND_MAX", "EOF", "BUFSIZ", "stdin", "stdout", "stderr",
    "true", "false", "bool",
};
// clang-format on

/// C++ words, GPU words and the vector type names of OpenCL (float4, uchar16, ...).
std::vector<std::string> gpuReservedWords() {
  std::vector<std::string> w = cppDialect().reservedWords;
  for (const char* x : kGpuWords) w.push_back(x);
  for (const char* t : {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
                        "double", "half", "bool"})
    for (int n : {2, 3, 4, 8, 16}) w.push_back(std::string(t) + std::to_string(n));
  return w;
}

/// What CUDA and OpenCL share.
Dialect deviceBase() {
  Dialect d;
  d.functions.internal = "static";
  d.functions.external.clear();
  d.functions.externC.clear();
  d.reservedWords = gpuReservedWords();
  return d;
}

}  // namespace

Dialect cudaDialect() {
  Dialect d = deviceBase();
  d.name = "CUDA";
  d.prelude = {"#include <cmath>", "#include <cstdint>", "#include <cuda_runtime.h>"};
  d.types.names = {"bool", "int", "long long", "float", "double"};
  d.types.uint64 = "unsigned long long";
  d.types.restrictQualifier = "__restrict__";
  // Plain C names: ptxas reports resources under them (no C++ mangling).
  d.functions.kernel = "extern \"C\" __global__";
  d.functions.internal = "static __device__";
  d.functions.helper = "static __device__ inline";
  d.kernels.intrinsicPatterns = {
      "((long long)blockIdx.{c} * blockDim.{c} + threadIdx.{c})",
      "(long long)threadIdx.{c}",
      "(long long)blockIdx.{c}",
      "(long long)blockDim.{c}",
      "(long long)gridDim.{c}",
      "((long long)gridDim.{c} * blockDim.{c})",
  };
  d.kernels.intrinsicPatterns32 = {
      "(int)(blockIdx.{c} * blockDim.{c} + threadIdx.{c})",
      "(int)threadIdx.{c}",
      "(int)blockIdx.{c}",
      "(int)blockDim.{c}",
      "(int)gridDim.{c}",
      "(int)(gridDim.{c} * blockDim.{c})",
  };
  d.kernels.intMath32 = {{"abs", "abs"}, {"min", "min"}, {"max", "max"}};
  d.kernels.barrier = "__syncthreads();";
  d.loopPragmas.rolled = "#pragma unroll 1";
  d.kernels.sharedArrayPattern = "__shared__ {type} {name}[{count}];";
  // CUDA refuses more than 48 KiB of static shared memory per block; beyond it a kernel takes
  // the machine's opt-in maximum as dynamic shared memory (the host raises the kernel's limit).
  d.kernels.staticSharedLimit = 48 * 1024;
  d.kernels.dynamicSharedPattern = "extern __shared__ __align__(16) unsigned char {name}[];";
  d.kernels.dynamicSharedArrayPattern =
      "{type}* const {name} = reinterpret_cast<{type}*>({base} + {offset});";
  // At least 1 block per SM: ptxas may use the registers one block of this size allows instead
  // of spilling to fit more blocks (it spilled the overlapped kernels with the bare form).
  d.kernels.launchBoundsPattern = "__launch_bounds__({threads}, 1)";
  // With Function::minBlocksPerSm (the staged families: half a multiprocessor's threads).
  d.kernels.launchBoundsMinBlocksPattern = "__launch_bounds__({threads}, {minBlocks})";
  d.kernels.launchBoundsAfterResult = true;
  d.kernels.maxRegistersPattern = "__maxnreg__({n})";
  d.statusName = "tessel_device_status";
  d.status.param = "int* {name}";
  d.status.record = "atomicCAS({name}, 0, {code});";
  d.math.overrides = {
      {"abs", {"llabs", "fabsf", "fabs"}},
      // fmin/fmax like the reference interpreter (a NaN operand is ignored)
      {"min", {"llmin", "fminf", "fmin"}},
      {"max", {"llmax", "fmaxf", "fmax"}},
  };
  return d;
}

Dialect openclDialect() {
  Dialect d = deviceBase();
  d.name = "OpenCL";
  d.prelude = {
      "// Exact IEEE arithmetic: no contraction of a*b+c into an FMA (agreement with the "
      "reference).",
      "#pragma OPENCL FP_CONTRACT OFF",
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable",
  };
  d.types.names = {"bool", "int", "long", "float", "double"};
  d.types.uint64 = "ulong";
  d.literals.int64Suffix = "L";
  d.types.restrictQualifier = "restrict";
  d.types.pointerAddressSpace = "__global";
  d.types.boolStorage = "uchar";
  d.functions.kernel = "__kernel";
  d.functions.helper = "static inline";
  d.kernels.intrinsicPatterns = {
      "(long)get_global_id({d})",  "(long)get_local_id({d})",   "(long)get_group_id({d})",
      "(long)get_local_size({d})", "(long)get_num_groups({d})", "(long)get_global_size({d})",
  };
  d.kernels.intrinsicPatterns32 = {
      "(int)get_global_id({d})",  "(int)get_local_id({d})",   "(int)get_group_id({d})",
      "(int)get_local_size({d})", "(int)get_num_groups({d})", "(int)get_global_size({d})",
  };
  d.kernels.intMath32 = {{"abs", "(int)abs"}};
  d.kernels.barrier = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);";
  d.kernels.sharedArrayPattern = "__local {type} {name}[{count}];";
  d.kernels.launchBoundsPattern = "__attribute__((reqd_work_group_size({x}, {y}, {z})))";
  d.kernels.launchBoundsMinBlocksPattern =
      d.kernels.launchBoundsPattern;  // OpenCL has no register cap hint
  d.statusName = "tessel_device_status";
  d.status.param = "__global int* {name}";
  d.status.record = "atomic_cmpxchg({name}, 0, {code});";
  // Math functions are overloaded on float and double; integer abs returns an unsigned type,
  // converted back to a (signed) language int.
  d.math.overloaded = true;
  d.math.overrides = {
      {"abs", {"(long)abs", "fabs", "fabs"}},
      {"min", {"min", "fmin", "fmin"}},
      {"max", {"max", "fmax", "fmax"}},
  };
  return d;
}

Dialect gpuHostDialect() {
  Dialect d = cppDialect();
  d.name = "C++ host (GPU)";
  d.prelude.clear();  // the host runtime's includes come first
  d.loopPragmas.parallel.clear();
  d.loopPragmas.simd.clear();
  d.loopPragmas.parallelSimd.clear();
  d.functions.internal = "static";
  d.functions.helperSuffix = "_host";  // the device code's helpers share its file (CUDA, C++)
  d.host.allocPattern =
      "tessel_device_buffer {name}(rt, tessel_bytes({count}, sizeof({type}), \"{name}\"), "
      "\"{name}\");";
  d.host.copyPattern = "tessel_copy(rt, {dst}, {src});  // on the device: {count} elements";
  d.host.launchPattern =
      "tessel_launch(rt, {id}, {dims}, {gx}, {gy}, {gz}, {bx}, {by}, {bz}{args});  // {name}";
  d.host.bufferArgPattern = "{name}.handle";
  std::vector<std::string> words = gpuReservedWords();
  d.reservedWords.insert(d.reservedWords.end(), words.begin(), words.end());
  return d;
}

Dialect cpuKernelDialect() {
  Dialect d = cppDialect();
  d.name = "C++/OpenMP (GPU kernels on the CPU)";
  d.prelude.clear();  // the runtime's includes come first
  d.statusName = "tessel_device_status";
  d.status.param = "int* {name}";
  d.status.record =
      "int none = 0;\n"
      "__atomic_compare_exchange_n({name}, &none, {code}, false, __ATOMIC_RELAXED, "
      "__ATOMIC_RELAXED);";
  std::vector<std::string> words = gpuReservedWords();
  d.reservedWords.insert(d.reservedWords.end(), words.begin(), words.end());
  return d;
}

Dialect cpuHostDialect() {
  Dialect d = gpuHostDialect();
  d.name = "C++ host (GPU kernels on the CPU)";
  d.host.launchPattern =
      "tessel_launch(rt, {id}, [&] {{ {name}({gx}, {gy}, {gz}, {bx}, {by}, {bz}{args}, "
      "rt.status); }});";
  d.host.bufferArgPattern = "{name}";
  return d;
}

Dialect irDialect() {
  Dialect d = cppDialect();
  d.name = "Tessel loop IR";
  d.prelude.clear();
  d.loopPragmas.parallel = "// loop: parallel";
  d.loopPragmas.simd = "// loop: simd";
  d.loopPragmas.parallelSimd = "// loop: parallel simd";
  d.loopPragmas.unrolled = "// loop: unrolled";
  d.host.allocPattern = "buffer {type} {name}[{count}];";
  d.host.copyPattern = "copy {dst} <- {src};  // {count} elements of {type}";
  d.functions.kernel = "kernel";
  d.kernels.intrinsicPatterns = {"global_id.{c}",  "local_id.{c}",   "group_id.{c}",
                                 "local_size.{c}", "num_groups.{c}", "global_size.{c}"};
  d.kernels.barrier = "barrier();";
  d.kernels.sharedArrayPattern = "shared {type} {name}[{count}];";
  d.kernels.launchBoundsPattern = "block({x}, {y}, {z})";
  d.kernels.launchBoundsMinBlocksPattern = "block({x}, {y}, {z}) min_blocks_per_sm({minBlocks})";
  d.host.launchPattern =
      "launch {name} grid({gx}, {gy}, {gz}) block({bx}, {by}, {bz}) args(status{args});";
  d.host.bufferArgPattern = "{name}";
  return d;
}

}  // namespace tessel
