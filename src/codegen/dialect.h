// Dialects: how one C-like language spells what the loop IR means (architecture.md principle 2).
//
// A Dialect is data, not code: the CLikeEmitter prints every target through one of these tables.
// C++/OpenMP is the first; CUDA and OpenCL are further tables (qualifiers, address spaces, math
// names, pragmas), not further printers.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "ir/loop_ir.h"
#include "ir/types.h"

namespace tessel {

/// Spelling of one math function per argument type ("" falls back to the default rule).
struct MathSpelling {
  std::string intName, floatName, doubleName;
};

struct Dialect {
  std::string name;                  // "C++/OpenMP"
  std::vector<std::string> prelude;  // first lines of a file (includes, pragmas)
  /// Identifiers generated code must not use for variables (keywords, library names, macros).
  std::vector<std::string> reservedWords;
  /// The error status (lir::Status, loop_ir.h): a file-scope record of the first run-time error,
  /// set by the helpers without trapping, cleared by ResetStatus and returned by a Return of the
  /// status; `status` spells it. This is its identifier (the lowerings reserve it).
  std::string statusName = "tessel_status";

  struct Types {
    std::array<std::string, 5> names;  // indexed by lir::CType (Bool, Int32, Int64, Float, Double)
    std::string uint64 = "uint64_t";   // used by helpers only
    /// Element type of bool buffers and bool kernel parameters where not names[Bool] (OpenCL
    /// forbids bool in kernel arguments and buffers: uchar, one byte like a host bool).
    std::string boolStorage;
    std::string restrictQualifier;    // after the `*` of a buffer pointer; "" for none
    std::string pointerAddressSpace;  // before the element type of a buffer pointer (OpenCL)
  } types;

  struct Literals {  // and conversions
    std::string boolTrue = "true", boolFalse = "false";
    std::string floatSuffix = "f";           // 1.5f
    std::string int64Suffix = "LL";          // index literals beyond the 32-bit range
    std::string floatInfinity = "INFINITY";  // a float expression; double infinities are cast
    std::string floatNan = "NAN";
    std::string castPattern = "({type}){expr}";  // {type}, {expr} (expr already parenthesised)
  } literals;

  /// Loops: pragma lines printed before a For of the given kind ("" for none).
  struct LoopPragmas {
    std::string parallel, simd, parallelSimd, unrolled;
    std::string rolled;  // a cooperative loop the compiler should not unroll (Stmt::rolled)
  } loopPragmas;

  /// Functions: qualifiers per linkage (lir::Linkage), and for the helpers the emitter adds on
  /// demand.
  struct FunctionQualifiers {
    std::string internal = "static";
    std::string external;  // Linkage::Public, an ordinary external function
    std::string externC = "extern \"C\"";
    /// Before the `void` of a Linkage::Kernel function; empty in host dialects (no kernels).
    std::string kernel;
    std::string helper = "static inline";
    /// Appended to the helpers' names (tessel_idiv, tessel_toint_d, tessel_fail, ...): the host
    /// code's, which share a file with the device code's in CUDA and on the C++ target.
    std::string helperSuffix;
  } functions;

  /// Host code. Buffers: patterns take {type}, {name}, {count}, {restrict} (alloc) and {type},
  /// {dst}, {src}, {count} (copy); an alloc must zero-fill and may span several lines. A GPU
  /// target's Launch statement, and how a device buffer is passed to it: launchPattern takes
  /// {id} (the kernel's index), {name}, {dims} (1-3), {gx} {gy} {gz} (blocks; 1 beyond dims),
  /// {bx} {by} {bz} (threads per block) and {args} (", "-separated, each preceded by ", ");
  /// bufferArgPattern takes {name}.
  struct Host {
    std::string allocPattern;
    std::string copyPattern;
    std::string launchPattern;
    std::string bufferArgPattern = "{name}";
  } host;

  /// How the error status (statusName) is spelled. Patterns take {name} (statusName) and, in
  /// record, {code} (an int expression).
  struct Status {
    std::string decl;    // its file-scope definition, holding 0 (no error)
    std::string record;  // statement(s): record {code} unless an error is recorded already
    std::string reset;   // statement: back to 0
    std::string read;    // expression: the status, an int
    /// Non-empty: the error status lives in device memory, not at file scope. Kernels have a
    /// pointer parameter named statusName (declared by the lowering), which the fallible helpers
    /// take first; this pattern declares it in their parameter lists ({name}); record then
    /// treats {name} as that pointer. decl, reset and read are unused.
    std::string param;
  } status;

  /// Math: default names are fn (double) and fn + floatSuffix (float), or fn for both when
  /// overloaded; overrides replace them per function. Int arguments of functions that keep int
  /// (abs, min, max) use intName; their arguments are 64-bit integers.
  struct Math {
    std::string floatSuffix = "f";
    bool overloaded = false;
    std::map<std::string, MathSpelling> overrides;
  } math;

  /// GPU kernels (CUDA, OpenCL); empty in host dialects.
  struct Kernels {
    /// Spelling of each lir::Intrinsic (an int64 expression), by enum value; {d} is the dimension
    /// 0..2, {c} its letter x/y/z.
    std::array<std::string, 6> intrinsicPatterns;
    std::string barrier;  // the Barrier statement
    /// A kernel's shared-memory array (lir::SharedArray): {type}, {name}, {count}.
    std::string sharedArrayPattern;
    /// Shared memory beyond what a kernel may declare statically (CUDA: 48 KiB; 0: no such
    /// limit, every array is declared with sharedArrayPattern): the arrays of a kernel above it
    /// are carved out of one dynamic allocation declared by dynamicSharedPattern ({name}), each
    /// a pointer (dynamicSharedArrayPattern: {type}, {name}, {base}, {offset} in bytes, a
    /// multiple of 16), and the launch passes the bytes (dynamicSharedBytes()).
    int64_t staticSharedLimit = 0;
    std::string dynamicSharedPattern;
    std::string dynamicSharedArrayPattern;
    /// A kernel's required block shape (lir::Function::requiredBlock): {x} {y} {z} and {threads}
    /// (their product); printed after the kernel qualifier, or, when launchBoundsAfterResult,
    /// between the result type and the name (CUDA's `void __launch_bounds__(n) name(...)`).
    std::string launchBoundsPattern;
    /// The same with lir::Function::minBlocksPerSm ({minBlocks}) given.
    std::string launchBoundsMinBlocksPattern;
    bool launchBoundsAfterResult = false;
    /// A kernel's register cap (lir::Function::maxRegisters): {n}; printed where the launch
    /// bounds go, instead of them. Empty: the dialect has none (OpenCL), the cap is not printed.
    std::string maxRegistersPattern;
    /// Kernels whose ints are 32-bit (lir::Function::intBits == 32; index32Dialect()): the
    /// intrinsics' spellings, and the int-argument names of math functions (abs, min, max).
    std::array<std::string, 6> intrinsicPatterns32;
    std::map<std::string, std::string> intMath32;
  } kernels;

  const std::string& typeName(lir::CType t) const { return types.names[static_cast<int>(t)]; }
  /// Name of math function `fn` applied to arguments of type t (already converted to t).
  std::string mathName(const std::string& fn, ScalarType t) const;
  /// Every math-function spelling of this dialect (so variables can avoid them).
  std::vector<std::string> mathNames() const;
};

/// How `d` spells a kernel whose ints are 32-bit (lir::Function::intBits == 32): ints, loop
/// indices and thread indices in 32 bits (Int64 spelled as Int32), abs/min/max on ints by their
/// 32-bit names. Dialects without the 32-bit spellings keep their own (the IR printer).
Dialect index32Dialect(const Dialect& d);

/// C++17 with OpenMP, compiled by the host compiler (g++/clang++).
Dialect cppDialect();

/// CUDA C++ device code (kernels and their helpers), for nvcc; compile with -fmad=false so that
/// a*b+c is not contracted into an FMA (exact agreement with the reference interpreter).
Dialect cudaDialect();
/// OpenCL C 1.2 device code (kernels and their helpers): FP_CONTRACT off, cl_khr_fp64.
Dialect openclDialect();
/// C++17 host code of a GPU target: cppDialect without OpenMP, plus the Launch spelling of the
/// generated host runtime (codegen/gpu_host_runtime.h).
Dialect gpuHostDialect();
/// The kernels of a GPU target run on the CPU (after pass work-item-loops: plain functions
/// with OpenMP-parallel block loops): cppDialect with the error status passed to kernels and
/// helpers as a pointer, recorded atomically, as on a GPU.
Dialect cpuKernelDialect();
/// Host code of the CPU run of GPU kernels: gpuHostDialect with a launch that calls the
/// kernel's CPU function over the grid (codegen/gpu_host_runtime_cpu.cpp).
Dialect cpuHostDialect();
/// The loop IR as `--print-ir-after-all` shows it: C-like, target-neutral (thread indices as
/// local_id.x, group_id.y, ...; `barrier();`; `shared` arrays; `launch` statements; loop kinds
/// as comments). Printed only, never compiled.
Dialect irDialect();

/// The bytes of dynamic shared memory kernel `f` takes in dialect `d` (its shared arrays, each
/// at a 16-byte-aligned offset), or 0 where it declares them statically (the dialect has no
/// static limit, or they fit under it).
int64_t dynamicSharedBytes(const lir::Function& f, const Dialect& d);
/// The byte offset of each of `f`'s shared arrays in that allocation, in order.
std::vector<int64_t> dynamicSharedOffsets(const lir::Function& f);

}  // namespace tessel
