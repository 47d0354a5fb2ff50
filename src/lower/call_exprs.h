// The translation of one call's Algorithm IR into loop IR, shared by the C++ lowering
// (lower_cpp.cpp) and the GPU lowering (lower_gpu.cpp): references to parameters, iterators,
// scalars, initialised locals, local scalars (buffers over the call-domain box) and arrays
// (row-major loads), region bounds, a statement's store, and the declarations of the call's
// locals. What a target records about the references it translates (the parameters a function
// takes) is its own: it hears of every reference through a RefObserver. Not a public interface.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/regions.h"
#include "ir/loop_ir.h"
#include "ir/program.h"
#include "lower/namer.h"

namespace tessel {

/// C names of the program's global symbols, shared by every generated function.
struct ProgramNames {
  Namer namer;  // everything taken at file scope (also avoided inside functions)
  std::vector<std::string> arrays, scalars, params, iters, callFns;
};

/// C names of one call's own values, in declaration order (filled by declareLocals).
struct CallNames {
  std::vector<std::string> inits, localArrays, localScalars;
  std::vector<std::string> boxLo, boxN;  // the local-scalar box's first point and extent, per dim
};

/// The global arrays, scalars and parameters a call's host function takes.
struct HostUses {
  std::set<int> arrays, scalars, params;
  /// The values the caller passes for them, in that order (by their global names).
  std::vector<ExprPtr> args(const Program& prog, const ProgramNames& g) const;
};

/// Hears of the references a CallExprs translates.
class RefObserver {
 public:
  virtual ~RefObserver() = default;
  /// A parameter, iterator, scalar or array reference about to be translated (an array one
  /// only when `replace` kept it).
  virtual void uses(const Expr& ref) {}
  /// What replaces array reference `ref` (a staged read) or local-scalar reference `ref` (a
  /// register), or null: a load from its buffer.
  virtual ExprPtr replace(const Expr& ref) { return nullptr; }
};

/// A statement's store at the current point: `buffer[index] = value`, the value converted to
/// the left-hand side's type (a compound form reads the left side).
struct Assignment {
  std::string buffer;
  ExprPtr index, value;
  /// A local scalar the observer keeps in a register (RefObserver::replace): assign it instead
  /// (`buffer` and `index` are then unset).
  ExprPtr registerVar;
};

// valueType, allOf and zeroOf: ir/loop_ir.h (the passes use them too).
using lir::allOf;
using lir::valueType;
using lir::zeroOf;

/// Copy of e with its arguments replaced (types and everything else kept).
ExprPtr withArgs(const ExprPtr& e, std::vector<ExprPtr> args);

/// An expression over parameters with each parameter replaced by its C variable.
ExprPtr paramsToVars(const ExprPtr& e, const ProgramNames& g);

/// The statement's description ("Statement 2 (line 7): a[i] = ...\nRegion: i in ..."); an
/// empty region lists no iterator.
std::string statementHeading(const Program& prog, const CallInst& call, size_t k,
                             const StmtRegion& reg);

/// Translates the expressions of one call, at the point the iterator variables name.
class CallExprs {
 public:
  CallExprs(const Program& prog, const CallInst& call, const ProgramNames& g,
            const CallNames& names, RefObserver& observer)
      : prog_(prog), call_(call), g_(g), names_(names), observer_(observer) {}

  ExprPtr lower(const ExprPtr& e);
  /// Row-major over the array's own extents: ((s0 * E1 + s1) * E2 + s2), each subscript
  /// naming its iterator (or a fixed plane).
  ExprPtr linearIndex(const Expr& ref);
  /// The point's index in the local-scalar buffers (row-major over the call-domain box).
  ExprPtr boxIndex() const;
  /// A symbolic region bound: the max (lower bound) or min (upper) of its terms.
  ExprPtr bound(const SymBound& b);
  /// The product of `extents`.
  ExprPtr count(const std::vector<ExprPtr>& extents);
  const std::string& bufferOf(ArrayId a) const {
    return a.local ? names_.localArrays.at(a.index) : g_.arrays.at(a.index);
  }
  Assignment assignment(const tessel::Stmt& st);

 private:
  const Program& prog_;
  const CallInst& call_;
  const ProgramNames& g_;
  const CallNames& names_;
  RefObserver& observer_;
};

/// How a target's host code names and describes the call's locals.
struct LocalsStyle {
  std::string initsNote;  // the comment before the initialised locals
  std::string boxPrefix;  // before "lo_<iter>" and "n_<iter>"
  bool storageNames;      // buffers also declare `<name>_storage` (Namer::takeBuffer)
  /// The local arrays' and local scalars' buffers exist already (the GPU host allocates them
  /// once per run and passes them in): a scratch copy is copied into its buffer, nothing is
  /// allocated.
  bool preallocated = false;
  /// Per local scalar: every statement that uses it keeps it in a register (a fused group,
  /// analysis/stmt_fusion.h), so it gets no buffer. Empty: every one has a buffer.
  std::vector<bool> inRegister;
};

/// Declares the call's initialised locals, local arrays (a scratch copy starts as a copy of its
/// global array) and local-scalar buffers over the call-domain box, naming them in `names`
/// The statements of a fused group `ks` (analysis/stmt_fusion.h) that can run: those whose
/// region is not known empty at compile time (its bounds, or a plane condition that fails).
/// Nullopt where a plane condition is known only at run time: the group then runs statement by
/// statement, whose code tests it.
std::optional<std::vector<size_t>> fusedStatementsThatRun(CallExprs& x, const CallRegions& regions,
                                                          const std::vector<size_t>& ks);

/// A fused group's bounds, declared into `out` as locals named in `scope`: per statement of `ks`
/// its region's bounds (`lo_s3_k`, `hi_s3_k`), then their bounding box (`lo_k`, `hi_k`).
struct GroupBounds {
  std::vector<std::vector<std::string>> lo, hi;  // per statement, per iterator
  std::vector<std::string> boxLo, boxHi;         // per iterator
  ExprPtr any;                                   // some statement's region is not empty
};
GroupBounds declareGroupBounds(CallExprs& x, const ProgramNames& g, const CallRegions& regions,
                               const std::vector<size_t>& ks, Namer& scope,
                               std::vector<lir::StmtPtr>& out);

/// (from `scope`); `x` translates the values and extents.
std::vector<lir::StmtPtr> declareLocals(const Program& prog, const CallInst& call,
                                        const ProgramNames& g, const LocalsStyle& style,
                                        Namer& scope, CallNames& names, CallExprs& x);

/// The function that runs call `index` (`call`), named `name`, internal, with the comment both
/// targets start it with: "Call 0: j2d5pt(out, in) at line 12". The caller adds the rest.
lir::Function callFunction(const CallInst& call, int index, const std::string& name);

/// The program's tables as parameters of its entry function: `arrays` (a pointer per global
/// array), `scalars` (doubles) and `params` (64-bit integers), in that order.
std::vector<lir::Param> programTableParams();

}  // namespace tessel
