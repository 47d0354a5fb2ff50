// Loop IR: a small imperative IR for generated code (loops, loads, stores, locals, calls).
//
// Backends lower the Algorithm IR into this IR and a CLikeEmitter prints it through a Dialect
// (architecture.md principle 2: an IR, not string concatenation). Nodes are immutable and built
// through validating factories. Expressions are tessel::Expr; generated code adds Var (a named
// variable), Load (buffer[linear index]) and Intrinsic (a GPU thread or block index).
//
// Kernels. The same IR describes GPU kernels (Linkage::Kernel functions, whose pointer
// parameters are device buffers in the dialect's address space), with neutral thread/block
// indices (intrinsic()), guards (If) and barriers, and the host code that launches them
// (Launch statements, runtime handles as opaque parameters). CUDA and OpenCL differ only in
// their Dialect tables.
//
// Integers. A language int value is 64-bit in generated code (as in the reference interpreter:
// int arithmetic in 64 bits, wrapped to int32 when stored), so loop indices, parameters, int
// scalars and int locals inside generated functions are Int64 variables, and Vars of type Int
// denote them. Int32 is the element type of int buffers (and of int scalars at a program's
// typed interface); a Cast to Int wraps to 32 bits. Loads of Int32 elements are 32-bit values,
// which the emitter widens where C would otherwise compute in 32 bits.
//
// Run-time errors. Integer division or remainder by zero and a negative integer exponent are
// run-time errors of the program (language.md 9.9). Generated code never traps on them: the
// helpers that compute these operations record a Status in the module's error status (the first
// error wins) and return a value, and the computation runs on. ResetStatus clears the status and
// a Return of the status hands it to the caller; the Dialect spells all three. In GPU kernels
// the status is an int in device memory, passed to every kernel (Dialect::status.param).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tessel::lir {

/// The error status of generated code: 0, or the first run-time error it met. The values are the
/// generated code's interface (the entry point returns them); never renumber.
enum class Status : int {
  Ok = 0,
  IntDivisionByZero = 1,   // integer `/` by zero
  NegativeExponent = 2,    // integer `^` with a negative exponent
  IntRemainderByZero = 3,  // integer `%` by zero
};
/// What a status means, as the reference interpreter words it ("integer division by zero");
/// empty for Ok and for values that are no Status.
std::string statusMessage(int status);

/// Types of generated variables and buffer elements.
enum class CType { Bool, Int32, Int64, Float, Double };
CType ctypeOf(ScalarType t);

enum class LoopKind {
  Serial,
  Parallel,      // iterations distributed over threads
  Simd,          // vectorised
  ParallelSimd,  // both (a 1-D nest)
  Unrolled,      // constant bounds: one copy of the body per iteration (pass unroll-loops)
};

enum class StmtKind {
  Block,        // body
  For,          // var from lo to hi inclusive, by step (1 when null), loop kind; body
  Store,        // buffer[index] = value
  LocalDecl,    // type name = init (const if isConst); pointer: type* name = (type*)init
  Assign,       // name = value (a LocalDecl'd variable)
  If,           // if (cond) body else orElse
  Comment,      // text (may hold several lines)
  Alloc,        // a zero-filled buffer of `count` elements of `type`, owned by the enclosing block
  Copy,         // copy `count` elements of `type` from buffer `source` to buffer `name`
  Call,         // name(args...)
  ResetStatus,  // clear the module's error status (Status::Ok)
  Return,       // return value; `return;` without one; the error status if `status` is set
  Barrier,      // kernels: every thread of the block (work-group) waits here; memory is ordered
  Launch,       // host code: run kernel `name` (id `value`) over a grid of blocks (see launch())
};

/// True when the emitter prints binary node `e` (not its operands) as a call of a helper that
/// takes the error status: integer `/` and `%` by anything but a literal other than 0 and -1
/// (which cannot fail), and integer `^`.
bool callsStatusHelper(const Expr& e);
/// True when `e` or any of its operands does.
bool usesStatusHelper(const ExprPtr& e);

/// A function parameter: a typed buffer pointer, or a scalar value passed by value.
struct Param {
  std::string name;
  CType type = CType::Double;
  bool pointer = false;
  bool constData = false;  // pointer to const elements
  bool slots = false;      // an untyped table of buffer pointers (`void* const*`); type unused
  /// Host code: a handle of the host runtime, its C type spelled as given (`tessel_runtime&`);
  /// type, pointer and constData unused. Arguments for it are Vars naming the handle.
  std::string opaqueType = {};
  /// The body may not use it (a kernel's error status where nothing can fail): the emitter
  /// marks it used (`(void)name;`) so that compilers do not warn.
  bool maybeUnused = false;
};

struct Stmt;
using StmtPtr = std::shared_ptr<const Stmt>;

/// What a builder says, for pass prefetch-planes (transforms/prefetch_planes.h; paper 000
/// III-A4), about a streamed input whose newest plane a sweep loads into shared memory.
struct PlaneFetch {
  std::string input;  // the input as the kernel report names it: "'in'"
  std::string stem;   // the key, and how its prefetch registers' names start: "pf_in"
  /// planeLoad: the variable that numbers the sweep's planes (the next plane's load is this
  /// block with it one larger), and whether the sweep loads a plane after this one.
  std::string plane;
  ExprPtr hasNext;
  /// planeStart: the plane variable's value at the sweep's first plane.
  ExprPtr first;
};

struct Stmt {
  StmtKind kind = StmtKind::Block;
  std::string name;            // For/LocalDecl/Assign: the variable; Store/Alloc/Copy: the buffer;
                               // Call: the function; Comment: the text
  std::string source;          // Copy: the source buffer
  CType type = CType::Double;  // LocalDecl, Alloc, Copy
  bool isConst = false;        // LocalDecl
  bool pointer = false;        // LocalDecl: a typed pointer unpacked from an untyped slot
  bool status = false;         // Return: returns the module's error status (an Int32)
  bool disjoint = false;       // Block: one phase (see phaseBlock)
  bool fresh = false;          // Block: its shared stores race with nothing before it (freshBlock)
  /// Block: the load of a streamed input's newest plane (planeLoad); Comment: where that
  /// input's prefetch registers start (planeStart). Pass prefetch-planes consumes both.
  std::shared_ptr<const PlaneFetch> fetch;
  LoopKind loop = LoopKind::Serial;
  ExprPtr lo, hi;             // For (inclusive)
  ExprPtr step;               // For: the increment, a positive integer expression; null: 1
  bool rolled = false;        // For: kept rolled (a cooperative loop: see cooperativeLoop)
  ExprPtr index;              // Store
  ExprPtr value;              // Store/Assign value, LocalDecl init, If condition, Alloc/Copy count
  std::vector<ExprPtr> args;  // Call
  std::vector<StmtPtr> body;  // Block, For, If (then)
  std::vector<StmtPtr> orElse;  // If (else)
  // Launch: the grid (blocks per dimension) and the block (threads per dimension), x first,
  // 1 to 3 entries each; the kernel's parameters, matched one to one by `args`.
  std::vector<ExprPtr> grid, blockShape;
  std::vector<Param> kernelParams;
};

// Validating factories.
StmtPtr block(std::vector<StmtPtr> body);
/// A block whose statements the builder knows to be one phase of the thread block: they write
/// disjoint elements of every shared array and none reads an element another writes (a thread's
/// own point of a plane, then the halo loaded around it; the planes of a ring, each to its
/// slot). Pass insert-barriers places no barrier inside it; the Oclgrind check of the tests
/// reports a race if the claim is ever wrong.
StmtPtr phaseBlock(std::vector<StmtPtr> body);
/// A block whose stores to shared memory write only elements that no access since the last
/// barrier before it reads or writes: a ring's newest plane, loaded into the slot that no thread
/// reads any more (a ring of one plane more than its readers need). Pass insert-barriers then
/// places no barrier before it for its writes (a read of it after them still needs one); the
/// Oclgrind check of the tests reports a race if the claim is ever wrong.
StmtPtr freshBlock(std::vector<StmtPtr> body);
/// Block `load` (a block, phase block or fresh block of cooperative loops that store a plane of
/// an input into shared memory; `own` stores of the thread's points may precede them), marked
/// for pass prefetch-planes: it may turn the loops' global loads into register reads loaded a
/// plane ahead. `f.plane` and `f.hasNext` are required.
StmtPtr planeLoad(StmtPtr load, PlaneFetch f);
/// A comment marking where the prefetch registers of `f.stem` are declared and the sweep's
/// first plane loaded into them (`f.first` required), should pass prefetch-planes prefetch it.
StmtPtr planeStart(PlaneFetch f);
StmtPtr forLoop(std::string var, ExprPtr lo, ExprPtr hi, LoopKind kind, std::vector<StmtPtr> body);
/// A serial loop `for (var = lo; var <= hi; var += step)`; step must be positive (a literal
/// step is checked here). Cooperative loops: lo = the thread's index, step = threads per block.
StmtPtr forStep(std::string var, ExprPtr lo, ExprPtr hi, ExprPtr step, std::vector<StmtPtr> body);
/// A cooperative loop over a tile (lo = the thread's index, step = threads per block) that the
/// target compiler should keep rolled: it runs a few times per thread, and unrolled copies of
/// its guards and index arithmetic cost registers (ptxas: 8 more for the stream kernel of
/// j3d7pt). CUDA spells it `#pragma unroll 1`.
StmtPtr cooperativeLoop(std::string var, ExprPtr lo, ExprPtr hi, ExprPtr step,
                        std::vector<StmtPtr> body);
StmtPtr store(std::string buffer, ExprPtr index, ExprPtr value);
StmtPtr localDecl(CType type, std::string name, ExprPtr init, bool isConst = true);
/// `type* name = (type*)slot;` where slot is an untyped pointer (e.g. load("arrays", 0, ...)).
StmtPtr pointerDecl(CType type, std::string name, ExprPtr slot);
StmtPtr assign(std::string name, ExprPtr value);
StmtPtr ifThen(ExprPtr cond, std::vector<StmtPtr> then, std::vector<StmtPtr> orElse = {});
StmtPtr comment(std::string text);
StmtPtr alloc(CType type, std::string buffer, ExprPtr count);
StmtPtr copy(CType type, std::string dst, std::string src, ExprPtr count);
StmtPtr callFn(std::string function, std::vector<ExprPtr> args);
StmtPtr resetStatus();
/// `return value;`, or `return;` for a null value (a function without a result).
StmtPtr returnValue(ExprPtr value = nullptr);
/// Returns the module's error status (a function whose result is Int32).
StmtPtr returnStatus();
/// Kernels: a barrier of the thread block (CUDA __syncthreads, OpenCL barrier).
StmtPtr barrier();
/// Host code: launches kernel `kernel` (its index `id` among the module's kernels) over `grid`
/// blocks of `block` threads (x first; the same number of dimensions, 1 to 3), passing `args`
/// for the kernel's `params` (pointer params: a Var naming the device buffer; scalar params:
/// a value, converted to the parameter's type).
StmtPtr launch(std::string kernel, int id, std::vector<ExprPtr> grid, std::vector<ExprPtr> block,
               std::vector<Param> params, std::vector<ExprPtr> args);

/// The language type whose Var has C type t (ints of either width are Int).
ScalarType scalarTypeOf(CType t);
/// Arguments that pass each parameter's own variable of the same name (pointer parameters: a
/// Var naming the buffer), e.g. for a Launch from a host scope that holds them all.
std::vector<ExprPtr> argsNamingParams(const std::vector<Param>& params);

/// GPU thread and block indices, neutral: each dialect spells them (CUDA threadIdx/blockIdx,
/// OpenCL get_local_id/get_group_id). Values are 64-bit ints; dimension 0 is x, the fastest.
enum class Intrinsic {
  GlobalId,    // the thread's index in the whole grid: group id * block size + local id
  LocalId,     // the thread's index in its block
  GroupId,     // the block's index in the grid
  LocalSize,   // threads per block
  NumGroups,   // blocks in the grid
  GlobalSize,  // threads in the grid
};
/// An intrinsic index along hardware dimension `dim` (0 = x, 1 = y, 2 = z): an Int expression.
ExprPtr intrinsic(Intrinsic k, int dim);

enum class Linkage {
  Internal,  // a helper of this translation unit
  Public,    // an ordinary external function
  ExternC,   // the C entry point loaded with dlopen
  Kernel,    // a GPU kernel (CUDA __global__, OpenCL __kernel): returns nothing
};

/// A kernel's shared-memory array (CUDA `__shared__`, OpenCL `__local`): one per thread block,
/// `count` elements of `type`, declared at the top of the kernel's body (OpenCL allows local
/// variables only at kernel scope). Loads and Stores name it like a buffer.
struct SharedArray {
  CType type = CType::Double;
  std::string name;
  int64_t count = 1;
};
/// A shared array, checked: a name, and 1 <= count.
SharedArray sharedArray(CType type, std::string name, int64_t count);
/// Bytes of one element of `t` in device memory (bool: 1).
int byteSize(CType t);

struct Function {
  std::string name;
  std::string comment;  // printed above the function (may hold several lines)
  Linkage linkage = Linkage::Internal;
  std::vector<Param> params;
  StmtPtr body;                                // a Block
  std::optional<CType> result = std::nullopt;  // the type it returns; none: void
  /// Kernels: shared-memory arrays of each thread block.
  std::vector<SharedArray> shared = {};
  /// Kernels: the exact block shape it is launched with (x, y, z), declared to the compiler
  /// (CUDA `__launch_bounds__(x*y*z)`, OpenCL `reqd_work_group_size(x, y, z)`); {0, 0, 0}:
  /// not declared. The host must launch it with this shape.
  std::array<int, 3> requiredBlock = {0, 0, 0};
  /// Kernels with a required block: the blocks that should fit on one multiprocessor at once
  /// (CUDA's second __launch_bounds__ argument, which caps registers per thread); 0: unsaid.
  int minBlocksPerSm = 0;
  /// Kernels: a register cap per thread (CUDA `__maxnreg__`, which replaces the launch bounds:
  /// CUDA takes one or the other); 0: none.
  int maxRegisters = 0;
  /// Kernels: the width of the language's int values in this kernel, 64 (see "Integers" above)
  /// or 32 where pass narrow-indices (transforms/narrow_indices.h) proved that every int value
  /// it computes is an index that fits: then its loop indices, int locals, thread indices and
  /// int parameters are 32-bit (its buffers' elements keep their types).
  int intBits = 64;
};

/// One generated translation unit.
struct Module {
  std::vector<std::string> header;  // comment lines at the top of the file
  std::vector<Function> functions;  // in definition order (callees first)
};

/// `m` with `pass` applied to each of its functions: how a pass over functions (one kernel at a
/// time) runs on a module.
Module eachFunction(const Module& m, Function (*pass)(const Function&));

/// The C type of a language value in generated code (ints are 64-bit values).
CType valueType(ScalarType t);
/// `acc && x`, or the one given when the other is absent (building a guard term by term).
ExprPtr allOf(ExprPtr acc, ExprPtr x);
/// The zero of a language type (false, 0, 0.0 with the type's suffix).
ExprPtr zeroOf(ScalarType t);

/// Index arithmetic with light folding (`k + 0` -> `k`, `k + -1` -> `k - 1`, literal folding).
ExprPtr indexAdd(ExprPtr a, ExprPtr b);
ExprPtr indexAddConst(ExprPtr a, int64_t c);
ExprPtr indexSub(ExprPtr a, ExprPtr b);
ExprPtr indexMul(ExprPtr a, ExprPtr b);
/// max/min of index expressions (calls of the math functions max/min on Int).
ExprPtr indexMax(ExprPtr a, ExprPtr b);
ExprPtr indexMin(ExprPtr a, ExprPtr b);

}  // namespace tessel::lir
