// Compiled expressions for the reference interpreter.
//
// An Expr is compiled once per call into a tree of small typed nodes: every node produces a value
// of its expression's static type (Expr::type), operand promotions are explicit conversion nodes,
// and array and local-scalar accesses are resolved to a base pointer plus strides. Evaluating a
// node at a point costs no lookup by name. Arithmetic follows language.md 9.9 with C semantics:
// float op float is computed and rounded in float, double in double, int in 64-bit integers
// (stored truncated to int32), bool is 0/1 and becomes int for arithmetic.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/program.h"

namespace tessel {

constexpr int kMaxDims = 4;

/// One value of a known static type: Double in d, Float in f, Int and Bool (0/1) in i.
union Val {
  double d;
  float f;
  int64_t i;
};

/// The value of type t for a held (stored, already converted) double.
Val fromHeld(ScalarType t, double held);
/// The value v of type `from` as an exact double (int64 beyond 2^53 rounds).
double asDouble(ScalarType from, Val v);
/// What an element of type `to` holds after storing v of type `from` (convertTo semantics; an
/// int is wrapped to int32 directly from its 64-bit value).
double toHeld(ScalarType from, ScalarType to, Val v);
using HeldFn = double (*)(Val);
HeldFn heldFn(ScalarType from, ScalarType to);
/// C-like conversion between expression types (promotion and casts); to int truncates toward
/// zero and wraps to int32 like convertTo.
using ConvFn = Val (*)(Val);
ConvFn convFn(ScalarType from, ScalarType to);

/// An element address: offset + sum over k of pt[iter[k]] * stride[k] (iter < 0: no term).
struct Addr {
  double* base = nullptr;
  int64_t offset = 0;
  int n = 0;
  int iter[kMaxDims] = {};
  int64_t stride[kMaxDims] = {};
  int64_t at(const int64_t* pt) const {
    int64_t o = offset;
    for (int k = 0; k < n; ++k) o += pt[iter[k]] * stride[k];
    return o;
  }
};

class Node {
 public:
  virtual ~Node() = default;
  /// The value at point pt (one coordinate per iterator dimension).
  virtual Val eval(const int64_t* pt) const = 0;
};
using NodePtr = std::unique_ptr<const Node>;

/// What compiled expressions refer to; supplied by the interpreter for one call.
class CompileEnv {
 public:
  virtual ~CompileEnv() = default;
  /// Address of the element an ArrayRef reads, as a function of the point.
  virtual Addr arrayAddr(const Expr& ref) const = 0;
  /// Address of a per-point local scalar at the point.
  virtual Addr localScalarAddr(int index) const = 0;
  /// Held value of a global scalar (ScalarKind::Global) or initialised local (ScalarKind::Init).
  virtual double scalarValue(ScalarKind kind, int index) const = 0;
  virtual int64_t paramValue(int index) const = 0;
  /// Iterator names, for error messages.
  virtual const std::vector<std::string>& iterNames() const = 0;
};

/// Compiles e; the node yields values of e->type.
NodePtr compileExpr(const ExprPtr& e, const CompileEnv& env);
/// Compiles e converted to type t.
NodePtr compileAs(const ExprPtr& e, ScalarType t, const CompileEnv& env);

}  // namespace tessel
