// Internal declarations shared by the reference interpreter's expression files: typed access to
// a Val (Tr<T>), wrapping 64-bit integer arithmetic, and the compilers of binary operators
// (expr_binary.cpp) and math-function calls (expr_math.cpp) that compileExpr (expr_eval.cpp)
// hands its Binary and Call nodes to.
#pragma once

#include <cstdint>

#include "runtime/expr_eval.h"

namespace tessel::eval_detail {

using ST = ScalarType;

constexpr bool floatingT(ST t) { return t == ST::Float || t == ST::Double; }

// ---- typed access to Val ----------------------------------------------------------------------

/// Access to the member M of a Val as a value of the C++ type CT.
template <typename CT, CT Val::*M>
struct ValMember {
  using C = CT;
  static C get(Val v) { return v.*M; }
  static Val put(C x) {
    Val v;
    v.*M = x;
    return v;
  }
};

/// Tr<T>::C is the C++ type that values of expression type T are computed in; get() reads it from
/// a Val, put() makes a Val of it.
template <ST T>
struct Tr;
template <>
struct Tr<ST::Double> : ValMember<double, &Val::d> {};
template <>
struct Tr<ST::Float> : ValMember<float, &Val::f> {};
template <>
struct Tr<ST::Int> : ValMember<int64_t, &Val::i> {};
/// A bool is held like an int, made 0 or 1.
template <>
struct Tr<ST::Bool> : ValMember<int64_t, &Val::i> {
  static Val put(C x) { return Tr<ST::Int>::put(x != 0 ? 1 : 0); }
};

inline Val mkInt(int64_t x) { return Tr<ST::Int>::put(x); }

// Wrapping 64-bit integer arithmetic (no undefined behaviour on overflow).
inline int64_t wadd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wsub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wmul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
inline int64_t wneg(int64_t a) { return wsub(0, a); }
inline int64_t wabs(int64_t a) { return a < 0 ? wneg(a) : a; }
inline int64_t wpow(int64_t b, int64_t e) {  // e >= 0; by squaring, wrapping
  int64_t r = 1;
  while (e > 0) {
    if (e & 1) r = wmul(r, b);
    b = wmul(b, b);
    e >>= 1;
  }
  return r;
}

// ---- compilers of the node kinds that have files of their own ---------------------------------

/// A Binary expression: arithmetic, comparison or `&`/`|` (expr_binary.cpp).
NodePtr compileBinary(const ExprPtr& e, const CompileEnv& env);
/// A Call of a math function (expr_math.cpp).
NodePtr compileCall(const ExprPtr& e, const CompileEnv& env);

}  // namespace tessel::eval_detail
