// The Algorithm IR: a checked program, what it computes, independent of how (language.md).
//
// Sema instantiates every call: the stencil body is copied with its formal arguments replaced by
// the actual global arrays and scalars, and typed. A CallInst is therefore self-contained: its
// statements name global arrays (ArrayId{local=false}), the call's own local arrays
// (ArrayId{local=true}), global scalars, per-point local scalars and initialised locals.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "support/source.h"

namespace tessel {

/// Integer problem-size symbol. The i-th declared parameter is the extent of the i-th iterator.
struct Param {
  std::string name;
  ExprPtr defaultValue;  // int expression over earlier parameters; null: must be given at run time
  SourceLoc loc;
  bool fromIterate = false;  // introduced by an `iterate` bound: a run-time value, not an extent
};

struct Iterator {
  std::string name;
  SourceLoc loc;
};

/// How an array or scalar moves between host and device (section 3 data lists).
struct DataFlags {
  bool copyin = false;
  bool allocin = false;
  bool copyout = false;
  bool constant = false;
  bool coefficient = false;
};

struct ArrayDecl {
  std::string name;
  ScalarType type = ScalarType::Double;
  std::vector<ExprPtr> extents;  // elements per dimension (int expressions over parameters)
  SourceLoc loc;
  DataFlags data;
};

struct ScalarDecl {
  std::string name;
  ScalarType type = ScalarType::Double;
  SourceLoc loc;
  DataFlags data;
};

/// Inclusive integer range [lo, hi]; bounds are int expressions over parameters.
struct Range {
  ExprPtr lo, hi;
};
/// One range per iterator, in iterator order.
using Domain = std::vector<Range>;

/// A validated `#pragma`/`#assign`/placement hint set (section 8). Hints never change results;
/// later passes read them into a Schedule.
struct Hints {
  struct Clause {
    std::string name;                // stream, block, unroll, ...
    std::vector<std::string> words;  // identifiers (iterator names, perspectives, distributions)
    std::vector<double> numbers;     // numeric values in order
    std::vector<std::pair<std::string, int64_t>> assignments;  // unroll j=2
    SourceLoc loc;
  };
  std::vector<Clause> clauses;
  /// A placement of one array (a body list or an `#assign`), where it is written.
  struct Placed {
    std::string array;
    SourceLoc loc;
  };
  std::vector<Placed> shmem, noShmem, gmem;  // per-array placement
};

struct Formal {
  std::string name;
  bool inout = false;
  SourceLoc loc;
};

struct StencilDef {
  std::string name;
  SourceLoc loc;
  std::vector<Formal> formals;
  Hints hints;
  std::vector<int> calls;  // indices into Program::calls
};

struct LocalArray {
  std::string name;
  ScalarType type = ScalarType::Double;
  std::vector<ExprPtr> extents;
  SourceLoc loc;
  /// >= 0: a private copy of this global array (an unmarked array written in a stencil that has
  /// `inout:` marks, language.md 9.4): initialised from the global at call entry, discarded after.
  int scratchOf = -1;
};

struct LocalScalar {
  std::string name;
  ScalarType type = ScalarType::Double;
  SourceLoc loc;
};

/// `double c = b*h2inv;` evaluated once per call, in declaration order.
struct InitLocal {
  std::string name;
  ScalarType type = ScalarType::Double;
  ExprPtr value;  // may use literals, global scalars, parameters, earlier InitLocals
  SourceLoc loc;
};

enum class AssignOp { Set, Add, Sub, Mul, Div };
const char* assignOpSpelling(AssignOp op);
/// The binary operator of a compound assignment (`+=` -> Add); Set is not one (logic_error).
Op compoundOp(AssignOp op);

struct Stmt {
  SourceLoc loc;
  ExprPtr lhs;  // ArrayRef (every iterator, in order, no fixed planes) or ScalarRef(Local)
  AssignOp op = AssignOp::Set;
  ExprPtr rhs;                   // already typed; converted to lhs->type on store
  std::optional<Domain> domain;  // statement domain, intersected with the region
  bool lhsIsScalar() const { return lhs->kind == ExprKind::ScalarRef; }
};

/// One call of a stencil, instantiated.
struct CallInst {
  int stencil = -1;
  std::string name;  // the stencil's name
  SourceLoc loc;
  std::vector<std::string> actualNames;
  Domain domain;  // the call domain, explicit or default [0 : P_d - 1]
  std::vector<LocalArray> localArrays;
  std::vector<LocalScalar> localScalars;
  std::vector<InitLocal> inits;
  std::vector<Stmt> stmts;
};

/// The call sequence: calls and `iterate` loops, in textual order.
struct ExecNode {
  enum class Kind { Call, Iterate } kind = Kind::Call;
  int call = -1;   // Kind::Call: index into Program::calls
  ExprPtr lo, hi;  // Kind::Iterate: inclusive bounds, evaluated on entry
  std::vector<ExecNode> body;
  SourceLoc loc;
};

struct Program {
  const SourceFile* file = nullptr;
  std::vector<Iterator> iterators;
  std::vector<Param> params;
  std::vector<ArrayDecl> arrays;
  std::vector<ScalarDecl> scalars;
  std::vector<StencilDef> stencils;
  std::vector<CallInst> calls;
  std::vector<ExecNode> body;

  int dims() const { return static_cast<int>(iterators.size()); }
  std::vector<std::string> iteratorNames() const;
  int findParam(const std::string& name) const;
  int findArray(const std::string& name) const;
  int findScalar(const std::string& name) const;
  /// Extents of an array (global or the call's local) as int expressions.
  const std::vector<ExprPtr>& extents(const CallInst& c, ArrayId a) const;
  ScalarType elementType(const CallInst& c, ArrayId a) const;
  const std::string& arrayName(const CallInst& c, ArrayId a) const;
};

/// Copy of `e` whose array references carry the call's actual array names (a CallInst's
/// expressions keep the stencil's formal names for messages inside the stencil).
ExprPtr withActualNames(const Program& prog, const CallInst& call, const ExprPtr& e);
/// "out[k][j][i] = c0 * in[k][j][i] + ..." with the call's actual array names.
std::string statementText(const Program& prog, const CallInst& call, const Stmt& st);

/// Values of every parameter, indexed like Program::params.
using ParamValues = std::vector<int64_t>;

/// Evaluates an int expression over parameters (literals, ParamRef, + - * / % ^ unary -, and
/// comparisons, && and || as 0 or 1).
int64_t evalInt(const ExprPtr& e, const ParamValues& params);

/// Every array element count: product of evaluated extents.
int64_t elementCount(const std::vector<ExprPtr>& extents, const ParamValues& params);

}  // namespace tessel
