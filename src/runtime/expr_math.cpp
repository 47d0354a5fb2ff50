// Calls of math functions in the reference interpreter: the float, double and int overloads of
// each function the language knows (sqrt, exp, ..., pow, min, max) and the one- and two-argument
// nodes that apply them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "runtime/expr_eval_internal.h"

namespace tessel::eval_detail {

namespace {

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

}  // namespace

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

}  // namespace tessel::eval_detail
