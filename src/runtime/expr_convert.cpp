// Conversions between the interpreter's value types: the C-like conversions that promotions and
// casts compile to (convFn), what an element of a type holds after a store (heldFn, toHeld), and
// the way back from a held double to a typed value (fromHeld, asDouble).
#include "runtime/expr_eval.h"
#include "runtime/expr_eval_internal.h"
#include "runtime/state.h"

namespace tessel {

namespace {

using eval_detail::floatingT;
using eval_detail::mkInt;
using eval_detail::ST;
using eval_detail::Tr;

// ---- conversions ------------------------------------------------------------------------------

template <ST F, ST T>
Val conv(Val v) {
  auto x = Tr<F>::get(v);
  if constexpr (T == ST::Bool) {
    return Tr<ST::Bool>::put(x != 0 ? 1 : 0);
  } else if constexpr (T == ST::Int && floatingT(F)) {
    return mkInt(static_cast<int64_t>(convertTo(ST::Int, static_cast<double>(x))));
  } else {
    return Tr<T>::put(static_cast<typename Tr<T>::C>(x));
  }
}

template <ST F, ST T>
double held(Val v) {
  if constexpr (T == ST::Int && !floatingT(F)) {
    return static_cast<double>(static_cast<int32_t>(Tr<F>::get(v)));  // modular since C++20
  } else if constexpr (T == ST::Float) {
    return static_cast<double>(Tr<ST::Float>::get(conv<F, ST::Float>(v)));
  } else {
    return convertTo(T, static_cast<double>(Tr<F>::get(v)));
  }
}

template <ST F>
ConvFn convFrom(ST to) {
  switch (to) {
    case ST::Double:
      return &conv<F, ST::Double>;
    case ST::Float:
      return &conv<F, ST::Float>;
    case ST::Int:
      return &conv<F, ST::Int>;
    case ST::Bool:
      return &conv<F, ST::Bool>;
  }
  return nullptr;
}

template <ST F>
HeldFn heldFrom(ST to) {
  switch (to) {
    case ST::Double:
      return &held<F, ST::Double>;
    case ST::Float:
      return &held<F, ST::Float>;
    case ST::Int:
      return &held<F, ST::Int>;
    case ST::Bool:
      return &held<F, ST::Bool>;
  }
  return nullptr;
}

}  // namespace

Val fromHeld(ScalarType t, double h) {
  switch (t) {
    case ST::Double:
      return Tr<ST::Double>::put(h);
    case ST::Float:
      return Tr<ST::Float>::put(static_cast<float>(h));
    case ST::Int:
      return mkInt(static_cast<int64_t>(h));
    case ST::Bool:
      return Tr<ST::Bool>::put(h != 0 ? 1 : 0);
  }
  return Tr<ST::Double>::put(h);
}

double asDouble(ScalarType from, Val v) {
  switch (from) {
    case ST::Double:
      return v.d;
    case ST::Float:
      return v.f;
    case ST::Int:
    case ST::Bool:
      return static_cast<double>(v.i);
  }
  return v.d;
}

ConvFn convFn(ScalarType from, ScalarType to) {
  switch (from) {
    case ST::Double:
      return convFrom<ST::Double>(to);
    case ST::Float:
      return convFrom<ST::Float>(to);
    case ST::Int:
      return convFrom<ST::Int>(to);
    case ST::Bool:
      return convFrom<ST::Bool>(to);
  }
  return nullptr;
}

HeldFn heldFn(ScalarType from, ScalarType to) {
  switch (from) {
    case ST::Double:
      return heldFrom<ST::Double>(to);
    case ST::Float:
      return heldFrom<ST::Float>(to);
    case ST::Int:
      return heldFrom<ST::Int>(to);
    case ST::Bool:
      return heldFrom<ST::Bool>(to);
  }
  return nullptr;
}

double toHeld(ScalarType from, ScalarType to, Val v) { return heldFn(from, to)(v); }

}  // namespace tessel
