// Expressions: immutable nodes shared by the Algorithm IR (stencil bodies, bounds) and later IRs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/types.h"
#include "support/source.h"

namespace tessel {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

enum class ExprKind {
  IntLit,     // ival
  FloatLit,   // fval, type Float or Double
  BoolLit,    // ival 0/1
  ParamRef,   // index = parameter id (an int value); name
  IterRef,    // index = iterator dimension (an int value: the current point's coordinate)
  ScalarRef,  // index into the owner's scalar table, scalarKind says which table; name
  ArrayRef,   // array = which array, subs = one subscript per array dimension
  Unary,      // op (Neg, Not), args[0]
  Binary,     // op, args[0], args[1]
  Call,       // name (math function), args
  Select,     // args = {cond, a, b}
  Cast,       // convert args[0] to `type`
  // Generated-code kinds (codegen's loop IR):
  Var,        // a named variable of `type` (loop index, local, function parameter); name
  Load,       // name = buffer, args[0] = linear element index (an int expression); element `type`
  Intrinsic,  // a GPU thread/block index (lir::Intrinsic in ival, hardware dimension 0-2 in
              // index: 0 is x, the fastest); an int value; name for printing
};

enum class Op { Add, Sub, Mul, Div, Mod, Pow, Lt, Le, Gt, Ge, Eq, Ne, And, Or, Neg };
const char* opSpelling(Op op);

/// Which scalar table a ScalarRef indexes.
enum class ScalarKind {
  Global,  // Program::scalars
  Local,   // CallInst::localScalars: per point
  Init,    // CallInst::inits: evaluated once per call
};

/// Which array an ArrayRef names.
struct ArrayId {
  bool local = false;  // false: Program::arrays; true: CallInst::localArrays
  int index = -1;
  bool operator==(const ArrayId&) const = default;
  auto operator<=>(const ArrayId&) const = default;
};

/// One subscript: `iter + offset` (iter >= 0, an iterator dimension) or a fixed plane `offset`
/// (iter == -1).
struct Subscript {
  int iter = -1;
  int64_t offset = 0;
  bool fixed() const { return iter < 0; }
  bool operator==(const Subscript&) const = default;
};

struct Expr {
  ExprKind kind;
  ScalarType type = ScalarType::Double;
  SourceLoc loc;
  int64_t ival = 0;
  double fval = 0;
  Op op = Op::Add;
  ScalarKind scalarKind = ScalarKind::Global;
  int index = -1;
  ArrayId array;
  std::string name;  // symbol or function name, for printing and messages
  std::vector<Subscript> subs;
  std::vector<ExprPtr> args;
};

// Validating factories. Types follow language.md 9.9.
ExprPtr intLit(int64_t v, SourceLoc loc = {});
ExprPtr floatLit(double v, ScalarType t, SourceLoc loc = {});
ExprPtr boolLit(bool v, SourceLoc loc = {});
ExprPtr paramRef(int index, std::string name, SourceLoc loc = {});
ExprPtr iterRef(int dim, std::string name, SourceLoc loc = {});
ExprPtr scalarRef(ScalarKind k, int index, std::string name, ScalarType t, SourceLoc loc = {});
ExprPtr arrayRef(ArrayId a, std::string name, ScalarType t, std::vector<Subscript> subs,
                 SourceLoc loc = {});
ExprPtr unary(Op op, ExprPtr a, SourceLoc loc = {});
ExprPtr binary(Op op, ExprPtr a, ExprPtr b, SourceLoc loc = {});
ExprPtr call(std::string fn, std::vector<ExprPtr> args, SourceLoc loc = {});
ExprPtr select(ExprPtr c, ExprPtr a, ExprPtr b, SourceLoc loc = {});
ExprPtr cast(ScalarType t, ExprPtr a, SourceLoc loc = {});
/// Generated code: a named variable, and an element of a buffer at a linear index.
ExprPtr var(std::string name, ScalarType t);
ExprPtr load(std::string buffer, ExprPtr index, ScalarType t);

/// The result type of a binary operator on operands of types a and b.
ScalarType binaryResultType(Op op, ScalarType a, ScalarType b);
/// The result type of math function `fn` on arguments of the given types.
ScalarType callResultType(const std::string& fn, const std::vector<ScalarType>& args);
/// Number of arguments a math function takes; -1 if unknown.
int mathFunctionArity(const std::string& fn);
/// Every math function the language knows (for suggestions and documentation).
const std::vector<std::string>& mathFunctionNames();

/// Whether `e` reads a per-point local scalar (ScalarKind::Local).
inline bool isLocalScalarRef(const Expr& e) {
  return e.kind == ExprKind::ScalarRef && e.scalarKind == ScalarKind::Local;
}

/// Calls f on e and every sub-expression (pre-order).
template <typename F>
void visitExpr(const ExprPtr& e, F&& f) {
  f(e);
  for (auto& a : e->args) visitExpr(a, f);
}

/// Source-like rendering (`a*in[k][j][i+1]`), for messages and `tessel info`.
std::string toString(const ExprPtr& e, const std::vector<std::string>& iterNames);

}  // namespace tessel
