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

  // Types, indexed by lir::CType (Bool, Int32, Int64, Float, Double).
  std::array<std::string, 5> typeNames;
  std::string uint64Name = "uint64_t";  // used by helpers only
  std::string restrictQualifier;        // after the `*` of a buffer pointer; "" for none
  std::string pointerAddressSpace;      // before the element type of a buffer pointer (OpenCL)

  // Literals and conversions.
  std::string boolTrue = "true", boolFalse = "false";
  std::string floatSuffix = "f";           // 1.5f
  std::string int64Suffix = "LL";          // index literals beyond the 32-bit range
  std::string floatInfinity = "INFINITY";  // a float expression; double infinities are cast
  std::string floatNan = "NAN";
  std::string castPattern = "({type}){expr}";  // {type}, {expr} (expr already parenthesised)

  // Loops: pragma lines printed before a For of the given kind ("" for none).
  std::string parallelPragma, simdPragma, parallelSimdPragma;

  // Functions: qualifiers per linkage, and for the helpers the emitter adds on demand.
  std::string internalQualifier = "static";
  std::string publicQualifier;
  std::string externCQualifier = "extern \"C\"";
  std::string helperQualifier = "static inline";

  // Buffers. Patterns take {type}, {name}, {count}, {restrict} (alloc) and {type}, {dst},
  // {src}, {count} (copy); an alloc must zero-fill and may span several lines.
  std::string allocPattern;
  std::string copyPattern;

  // Error status (lir::Status, loop_ir.h): a file-scope record of the first run-time error, set
  // by the helpers without trapping, cleared by ResetStatus and returned by a Return of the
  // status. Patterns take {name} (statusName) and, in statusRecord, {code} (an int expression).
  std::string statusName = "tessel_status";
  std::string statusDecl;    // its file-scope definition, holding 0 (no error)
  std::string statusRecord;  // statement(s): record {code} unless an error is recorded already
  std::string statusReset;   // statement: back to 0
  std::string statusRead;    // expression: the status, an int

  // Math: default names are fn (double) and fn + floatMathSuffix (float), or fn for both when
  // mathOverloaded; mathOverrides replace them per function. Int arguments of functions that
  // keep int (abs, min, max) use intName; their arguments are 64-bit integers.
  std::string floatMathSuffix = "f";
  bool mathOverloaded = false;
  std::map<std::string, MathSpelling> mathOverrides;

  // GPU kernels (CUDA, OpenCL); empty in host dialects.
  std::string kernelQualifier;  // before the `void` of a Linkage::Kernel function
  /// Element type of bool buffers and bool kernel parameters where not typeName(Bool) (OpenCL
  /// forbids bool in kernel arguments and buffers: uchar, one byte like a host bool).
  std::string boolStorageName;
  /// Spelling of each lir::Intrinsic (an int64 expression), by enum value; {d} is the dimension
  /// 0..2, {c} its letter x/y/z.
  std::array<std::string, 6> intrinsicPatterns;
  std::string barrier;  // the Barrier statement
  /// A kernel's shared-memory array (lir::SharedArray): {type}, {name}, {count}.
  std::string sharedArrayPattern;
  /// A kernel's required block shape (lir::Function::requiredBlock): {x} {y} {z} and {threads}
  /// (their product); printed after the kernel qualifier, or, when launchBoundsAfterResult,
  /// between the result type and the name (CUDA's `void __launch_bounds__(n) name(...)`).
  std::string launchBoundsPattern;
  /// The same with lir::Function::minBlocksPerSm ({minBlocks}) given.
  std::string launchBoundsMinBlocksPattern;
  bool launchBoundsAfterResult = false;
  /// Non-empty: the error status lives in device memory, not at file scope. Kernels have a
  /// pointer parameter named statusName (declared by the lowering), which the fallible helpers
  /// take first; this pattern declares it in their parameter lists ({name}); statusRecord then
  /// treats {name} as that pointer. statusDecl, statusReset and statusRead are unused.
  std::string statusParam;

  // Host code of a GPU target: a Launch statement, and how a device buffer is passed to it.
  // launchPattern takes {id} (the kernel's index), {name}, {dims} (1-3), {gx} {gy} {gz} (blocks;
  // 1 beyond dims), {bx} {by} {bz} (threads per block) and {args} (", "-separated, each
  // preceded by ", "); bufferArgPattern takes {name}.
  std::string launchPattern;
  std::string bufferArgPattern = "{name}";

  /// Identifiers generated code must not use for variables (keywords, library names, macros).
  std::vector<std::string> reservedWords;

  const std::string& typeName(lir::CType t) const { return typeNames[static_cast<int>(t)]; }
  /// Name of math function `fn` applied to arguments of type t (already converted to t).
  std::string mathName(const std::string& fn, ScalarType t) const;
  /// Every math-function spelling of this dialect (so variables can avoid them).
  std::vector<std::string> mathNames() const;
};

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

}  // namespace tessel
