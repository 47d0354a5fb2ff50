#include "runtime/expr_eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "runtime/errors.h"
#include "runtime/state.h"

namespace tessel {

namespace {

using ST = ScalarType;

constexpr bool floatingT(ST t) { return t == ST::Float || t == ST::Double; }

// ---- typed access to Val ----------------------------------------------------------------------

template <ST T>
struct Tr;
template <>
struct Tr<ST::Double> {
  using C = double;
  static C get(Val v) { return v.d; }
  static Val put(C x) {
    Val v;
    v.d = x;
    return v;
  }
};
template <>
struct Tr<ST::Float> {
  using C = float;
  static C get(Val v) { return v.f; }
  static Val put(C x) {
    Val v;
    v.f = x;
    return v;
  }
};
template <>
struct Tr<ST::Int> {
  using C = int64_t;
  static C get(Val v) { return v.i; }
  static Val put(C x) {
    Val v;
    v.i = x;
    return v;
  }
};
template <>
struct Tr<ST::Bool> {
  using C = int64_t;
  static C get(Val v) { return v.i; }
  static Val put(C x) {
    Val v;
    v.i = x != 0 ? 1 : 0;
    return v;
  }
};

Val mkInt(int64_t x) { return Tr<ST::Int>::put(x); }

// Wrapping 64-bit integer arithmetic (no undefined behaviour on overflow).
int64_t wadd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wsub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wmul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t wneg(int64_t a) { return wsub(0, a); }
int64_t wabs(int64_t a) { return a < 0 ? wneg(a) : a; }
int64_t wpow(int64_t b, int64_t e) {  // e >= 0; by squaring, wrapping
  int64_t r = 1;
  while (e > 0) {
    if (e & 1) r = wmul(r, b);
    b = wmul(b, b);
    e >>= 1;
  }
  return r;
}

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

// ---- error context ----------------------------------------------------------------------------

/// Where a node came from, for run-time error messages.
struct ErrInfo {
  std::string where;  // "file:line:col: " or empty
  std::string text;   // the expression
  std::vector<std::string> iters;

  [[noreturn]] void fail(const std::string& what, const int64_t* pt) const {
    std::string names, coords;
    for (size_t d = 0; d < iters.size(); ++d) {
      names += (d ? ", " : "") + iters[d];
      coords += fmt::format("{}{}", d ? ", " : "", pt[d]);
    }
    throw RuntimeError(
        fmt::format("{}{} in '{}' at ({}) = ({})", where, what, text, names, coords));
  }
};
using ErrPtr = std::shared_ptr<const ErrInfo>;

ErrPtr errInfo(const ExprPtr& e, const CompileEnv& env) {
  auto info = std::make_shared<ErrInfo>();
  if (e->loc.valid())
    info->where = fmt::format("{}:{}:{}: ", e->loc.file->name(), e->loc.line(), e->loc.col());
  info->text = toString(e, env.iterNames());
  info->iters = env.iterNames();
  return info;
}

// ---- nodes ------------------------------------------------------------------------------------

class ConstNode final : public Node {
 public:
  explicit ConstNode(Val v) : v_(v) {}
  Val eval(const int64_t*) const override { return v_; }

 private:
  Val v_;
};

class IterNode final : public Node {
 public:
  explicit IterNode(int d) : d_(d) {}
  Val eval(const int64_t* pt) const override { return mkInt(pt[d_]); }

 private:
  int d_;
};

template <ST T>
class LoadNode final : public Node {
 public:
  explicit LoadNode(Addr a) : a_(a) {}
  Val eval(const int64_t* pt) const override {
    return Tr<T>::put(static_cast<typename Tr<T>::C>(a_.base[a_.at(pt)]));
  }

 private:
  Addr a_;
};

class ConvNode final : public Node {
 public:
  ConvNode(NodePtr a, ConvFn f) : a_(std::move(a)), f_(f) {}
  Val eval(const int64_t* pt) const override { return f_(a_->eval(pt)); }

 private:
  NodePtr a_;
  ConvFn f_;
};

template <ST T, Op O>
class ArithNode final : public Node {
 public:
  ArithNode(NodePtr a, NodePtr b, ErrPtr err) : a_(std::move(a)), b_(std::move(b)), err_(err) {}
  Val eval(const int64_t* pt) const override {
    auto x = Tr<T>::get(a_->eval(pt));
    auto y = Tr<T>::get(b_->eval(pt));
    if constexpr (T == ST::Int) {
      if constexpr (O == Op::Add) return mkInt(wadd(x, y));
      if constexpr (O == Op::Sub) return mkInt(wsub(x, y));
      if constexpr (O == Op::Mul) return mkInt(wmul(x, y));
      if constexpr (O == Op::Div) {
        if (y == 0) err_->fail("integer division by zero", pt);
        return mkInt(y == -1 ? wneg(x) : x / y);
      }
      if constexpr (O == Op::Mod) {
        if (y == 0) err_->fail("integer remainder by zero", pt);
        return mkInt(y == -1 ? 0 : x % y);
      }
      if constexpr (O == Op::Pow) {
        if (y < 0) err_->fail(fmt::format("negative exponent {} in an integer power", y), pt);
        return mkInt(wpow(x, y));
      }
    } else {
      if constexpr (O == Op::Add) return Tr<T>::put(x + y);
      if constexpr (O == Op::Sub) return Tr<T>::put(x - y);
      if constexpr (O == Op::Mul) return Tr<T>::put(x * y);
      if constexpr (O == Op::Div) return Tr<T>::put(x / y);
      if constexpr (O == Op::Mod) return Tr<T>::put(std::fmod(x, y));
      if constexpr (O == Op::Pow) return Tr<T>::put(std::pow(x, y));
    }
  }

 private:
  NodePtr a_, b_;
  ErrPtr err_;
};

template <ST T, Op O>
class CmpNode final : public Node {
 public:
  CmpNode(NodePtr a, NodePtr b) : a_(std::move(a)), b_(std::move(b)) {}
  Val eval(const int64_t* pt) const override {
    auto x = Tr<T>::get(a_->eval(pt));
    auto y = Tr<T>::get(b_->eval(pt));
    bool r = false;
    if constexpr (O == Op::Lt) r = x < y;
    if constexpr (O == Op::Le) r = x <= y;
    if constexpr (O == Op::Gt) r = x > y;
    if constexpr (O == Op::Ge) r = x >= y;
    if constexpr (O == Op::Eq) r = x == y;
    if constexpr (O == Op::Ne) r = x != y;
    return mkInt(r ? 1 : 0);
  }

 private:
  NodePtr a_, b_;
};

// `&` and `|`: logical on bool, bitwise on int, logical (1 or 0) on floating operands. Both
// operands are always evaluated (no short circuit), like C's `&` on bools.
template <ST T, Op O>
class LogicNode final : public Node {
 public:
  LogicNode(NodePtr a, NodePtr b) : a_(std::move(a)), b_(std::move(b)) {}
  Val eval(const int64_t* pt) const override {
    auto x = Tr<T>::get(a_->eval(pt));
    auto y = Tr<T>::get(b_->eval(pt));
    if constexpr (T == ST::Int) {
      return mkInt(O == Op::And ? (x & y) : (x | y));
    } else {
      bool r = O == Op::And ? (x != 0 && y != 0) : (x != 0 || y != 0);
      return Tr<T>::put(r ? 1 : 0);
    }
  }

 private:
  NodePtr a_, b_;
};

template <ST T>
class NegNode final : public Node {
 public:
  explicit NegNode(NodePtr a) : a_(std::move(a)) {}
  Val eval(const int64_t* pt) const override {
    auto x = Tr<T>::get(a_->eval(pt));
    if constexpr (T == ST::Int)
      return mkInt(wneg(x));
    else
      return Tr<T>::put(-x);
  }

 private:
  NodePtr a_;
};

class SelectNode final : public Node {
 public:
  SelectNode(NodePtr c, NodePtr a, NodePtr b)
      : c_(std::move(c)), a_(std::move(a)), b_(std::move(b)) {}
  Val eval(const int64_t* pt) const override {
    return c_->eval(pt).i != 0 ? a_->eval(pt) : b_->eval(pt);
  }

 private:
  NodePtr c_, a_, b_;
};

template <ST T>
class Fn1Node final : public Node {
 public:
  using C = typename Tr<T>::C;
  Fn1Node(NodePtr a, C (*f)(C)) : a_(std::move(a)), f_(f) {}
  Val eval(const int64_t* pt) const override { return Tr<T>::put(f_(Tr<T>::get(a_->eval(pt)))); }

 private:
  NodePtr a_;
  C (*f_)(C);
};

template <ST T>
class Fn2Node final : public Node {
 public:
  using C = typename Tr<T>::C;
  Fn2Node(NodePtr a, NodePtr b, C (*f)(C, C)) : a_(std::move(a)), b_(std::move(b)), f_(f) {}
  Val eval(const int64_t* pt) const override {
    return Tr<T>::put(f_(Tr<T>::get(a_->eval(pt)), Tr<T>::get(b_->eval(pt))));
  }

 private:
  NodePtr a_, b_;
  C (*f_)(C, C);
};

// ---- math functions ---------------------------------------------------------------------------

// Float arguments use the float overloads (sqrtf, ...), double the double ones; int results
// (abs, min, max of ints) stay int.
struct MathImpl {
  float (*f1)(float) = nullptr;
  double (*d1)(double) = nullptr;
  int64_t (*i1)(int64_t) = nullptr;
  float (*f2)(float, float) = nullptr;
  double (*d2)(double, double) = nullptr;
  int64_t (*i2)(int64_t, int64_t) = nullptr;
};

#define TESSEL_MATH1(fn)                                                               \
  MathImpl {                                                                           \
    +[](float x) -> float { return std::fn(x); }, +[](double x) { return std::fn(x); } \
  }

const std::map<std::string, MathImpl>& mathImpls() {
  static const std::map<std::string, MathImpl> m = [] {
    std::map<std::string, MathImpl> t;
    t["sqrt"] = TESSEL_MATH1(sqrt);
    t["exp"] = TESSEL_MATH1(exp);
    t["log"] = TESSEL_MATH1(log);
    t["log10"] = TESSEL_MATH1(log10);
    t["fabs"] = TESSEL_MATH1(fabs);
    t["sin"] = TESSEL_MATH1(sin);
    t["cos"] = TESSEL_MATH1(cos);
    t["tan"] = TESSEL_MATH1(tan);
    t["tanh"] = TESSEL_MATH1(tanh);
    t["atan"] = TESSEL_MATH1(atan);
    t["floor"] = TESSEL_MATH1(floor);
    t["ceil"] = TESSEL_MATH1(ceil);
    t["abs"] = TESSEL_MATH1(fabs);
    t["abs"].i1 = &wabs;
    MathImpl pw;
    pw.f2 = +[](float x, float y) -> float { return std::pow(x, y); };
    pw.d2 = +[](double x, double y) { return std::pow(x, y); };
    t["pow"] = pw;
    MathImpl mn;
    mn.f2 = +[](float x, float y) -> float { return std::fmin(x, y); };
    mn.d2 = +[](double x, double y) { return std::fmin(x, y); };
    mn.i2 = +[](int64_t x, int64_t y) { return std::min(x, y); };
    t["min"] = mn;
    MathImpl mx;
    mx.f2 = +[](float x, float y) -> float { return std::fmax(x, y); };
    mx.d2 = +[](double x, double y) { return std::fmax(x, y); };
    mx.i2 = +[](int64_t x, int64_t y) { return std::max(x, y); };
    t["max"] = mx;
    return t;
  }();
  return m;
}
#undef TESSEL_MATH1

NodePtr compileCall(const ExprPtr& e, const CompileEnv& env) {
  auto it = mathImpls().find(e->name);
  if (it == mathImpls().end())
    throw std::logic_error(fmt::format("interpreter: unknown function '{}'", e->name));
  const MathImpl& m = it->second;
  ST r = e->type;  // Int (abs/min/max of ints), Float or Double (int arguments in double)
  auto arg = [&](size_t k) { return compileAs(e->args.at(k), r, env); };
  size_t n = e->args.size();
  if (n == 1) {
    if (r == ST::Int && m.i1) return std::make_unique<Fn1Node<ST::Int>>(arg(0), m.i1);
    if (r == ST::Float && m.f1) return std::make_unique<Fn1Node<ST::Float>>(arg(0), m.f1);
    if (r == ST::Double && m.d1) return std::make_unique<Fn1Node<ST::Double>>(arg(0), m.d1);
  } else if (n == 2) {
    if (r == ST::Int && m.i2) return std::make_unique<Fn2Node<ST::Int>>(arg(0), arg(1), m.i2);
    if (r == ST::Float && m.f2) return std::make_unique<Fn2Node<ST::Float>>(arg(0), arg(1), m.f2);
    if (r == ST::Double && m.d2) return std::make_unique<Fn2Node<ST::Double>>(arg(0), arg(1), m.d2);
  }
  throw std::logic_error(
      fmt::format("interpreter: bad call of '{}' with {} arguments of result "
                  "type {}",
                  e->name, n, typeName(r)));
}

// ---- binary operators -------------------------------------------------------------------------

template <ST T>
NodePtr makeArith(Op op, NodePtr a, NodePtr b, ErrPtr err) {
  switch (op) {
    case Op::Add:
      return std::make_unique<ArithNode<T, Op::Add>>(std::move(a), std::move(b), err);
    case Op::Sub:
      return std::make_unique<ArithNode<T, Op::Sub>>(std::move(a), std::move(b), err);
    case Op::Mul:
      return std::make_unique<ArithNode<T, Op::Mul>>(std::move(a), std::move(b), err);
    case Op::Div:
      return std::make_unique<ArithNode<T, Op::Div>>(std::move(a), std::move(b), err);
    case Op::Mod:
      return std::make_unique<ArithNode<T, Op::Mod>>(std::move(a), std::move(b), err);
    case Op::Pow:
      return std::make_unique<ArithNode<T, Op::Pow>>(std::move(a), std::move(b), err);
    default:
      break;
  }
  throw std::logic_error("interpreter: not an arithmetic operator");
}

template <ST T>
NodePtr makeCmp(Op op, NodePtr a, NodePtr b) {
  switch (op) {
    case Op::Lt:
      return std::make_unique<CmpNode<T, Op::Lt>>(std::move(a), std::move(b));
    case Op::Le:
      return std::make_unique<CmpNode<T, Op::Le>>(std::move(a), std::move(b));
    case Op::Gt:
      return std::make_unique<CmpNode<T, Op::Gt>>(std::move(a), std::move(b));
    case Op::Ge:
      return std::make_unique<CmpNode<T, Op::Ge>>(std::move(a), std::move(b));
    case Op::Eq:
      return std::make_unique<CmpNode<T, Op::Eq>>(std::move(a), std::move(b));
    case Op::Ne:
      return std::make_unique<CmpNode<T, Op::Ne>>(std::move(a), std::move(b));
    default:
      break;
  }
  throw std::logic_error("interpreter: not a comparison");
}

template <ST T>
NodePtr makeLogic(Op op, NodePtr a, NodePtr b) {
  if (op == Op::And) return std::make_unique<LogicNode<T, Op::And>>(std::move(a), std::move(b));
  return std::make_unique<LogicNode<T, Op::Or>>(std::move(a), std::move(b));
}

NodePtr compileBinary(const ExprPtr& e, const CompileEnv& env) {
  Op op = e->op;
  ST ta = e->args[0]->type, tb = e->args[1]->type;
  switch (op) {
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne: {
      ST w = binaryResultType(Op::Add, ta, tb);  // compared in the widest type, bool as int
      NodePtr a = compileAs(e->args[0], w, env), b = compileAs(e->args[1], w, env);
      if (w == ST::Double) return makeCmp<ST::Double>(op, std::move(a), std::move(b));
      if (w == ST::Float) return makeCmp<ST::Float>(op, std::move(a), std::move(b));
      return makeCmp<ST::Int>(op, std::move(a), std::move(b));
    }
    case Op::And:
    case Op::Or: {
      ST r = e->type;
      NodePtr a = compileAs(e->args[0], r, env), b = compileAs(e->args[1], r, env);
      switch (r) {
        case ST::Bool:
          return makeLogic<ST::Bool>(op, std::move(a), std::move(b));
        case ST::Int:
          return makeLogic<ST::Int>(op, std::move(a), std::move(b));
        case ST::Float:
          return makeLogic<ST::Float>(op, std::move(a), std::move(b));
        case ST::Double:
          return makeLogic<ST::Double>(op, std::move(a), std::move(b));
      }
      break;
    }
    default: {
      ST r = e->type;
      NodePtr a = compileAs(e->args[0], r, env), b = compileAs(e->args[1], r, env);
      ErrPtr err = r == ST::Int ? errInfo(e, env) : nullptr;
      if (r == ST::Double) return makeArith<ST::Double>(op, std::move(a), std::move(b), err);
      if (r == ST::Float) return makeArith<ST::Float>(op, std::move(a), std::move(b), err);
      if (r == ST::Int) return makeArith<ST::Int>(op, std::move(a), std::move(b), err);
      break;
    }
  }
  throw std::logic_error(fmt::format("interpreter: bad operand types for '{}'", opSpelling(op)));
}

NodePtr makeLoad(ST t, const Addr& a) {
  switch (t) {
    case ST::Double:
      return std::make_unique<LoadNode<ST::Double>>(a);
    case ST::Float:
      return std::make_unique<LoadNode<ST::Float>>(a);
    case ST::Int:
      return std::make_unique<LoadNode<ST::Int>>(a);
    case ST::Bool:
      return std::make_unique<LoadNode<ST::Bool>>(a);
  }
  return nullptr;
}

}  // namespace

// ---- public -----------------------------------------------------------------------------------

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

NodePtr compileAs(const ExprPtr& e, ScalarType t, const CompileEnv& env) {
  NodePtr n = compileExpr(e, env);
  if (e->type == t) return n;
  return std::make_unique<ConvNode>(std::move(n), convFn(e->type, t));
}

NodePtr compileExpr(const ExprPtr& e, const CompileEnv& env) {
  switch (e->kind) {
    case ExprKind::IntLit:
      return std::make_unique<ConstNode>(mkInt(e->ival));
    case ExprKind::FloatLit:
      return std::make_unique<ConstNode>(e->type == ST::Float
                                             ? Tr<ST::Float>::put(static_cast<float>(e->fval))
                                             : Tr<ST::Double>::put(e->fval));
    case ExprKind::BoolLit:
      return std::make_unique<ConstNode>(Tr<ST::Bool>::put(e->ival));
    case ExprKind::ParamRef:
      return std::make_unique<ConstNode>(mkInt(env.paramValue(e->index)));
    case ExprKind::IterRef:
      return std::make_unique<IterNode>(e->index);
    case ExprKind::ScalarRef:
      if (e->scalarKind == ScalarKind::Local)
        return makeLoad(e->type, env.localScalarAddr(e->index));
      return std::make_unique<ConstNode>(
          fromHeld(e->type, env.scalarValue(e->scalarKind, e->index)));
    case ExprKind::ArrayRef:
      return makeLoad(e->type, env.arrayAddr(*e));
    case ExprKind::Unary: {
      ST r = e->type;
      NodePtr a = compileAs(e->args.at(0), r, env);
      if (r == ST::Double) return std::make_unique<NegNode<ST::Double>>(std::move(a));
      if (r == ST::Float) return std::make_unique<NegNode<ST::Float>>(std::move(a));
      return std::make_unique<NegNode<ST::Int>>(std::move(a));
    }
    case ExprKind::Binary:
      return compileBinary(e, env);
    case ExprKind::Call:
      return compileCall(e, env);
    case ExprKind::Select:
      return std::make_unique<SelectNode>(compileAs(e->args.at(0), ST::Bool, env),
                                          compileAs(e->args.at(1), e->type, env),
                                          compileAs(e->args.at(2), e->type, env));
    case ExprKind::Cast:
      return compileAs(e->args.at(0), e->type, env);
    case ExprKind::Var:
    case ExprKind::Load:
    case ExprKind::Intrinsic:
      break;  // generated-code kinds never occur in the Algorithm IR
  }
  throw std::logic_error("interpreter: expression kind outside the Algorithm IR");
}

}  // namespace tessel
