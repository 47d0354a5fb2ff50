// The binary operators of the reference interpreter: arithmetic (wrapping in 64-bit integers,
// with run-time errors for an integer division or remainder by zero and a negative integer
// power), comparisons in the widest operand type, and `&`/`|`, each a node typed by its operands.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "runtime/errors.h"
#include "runtime/expr_eval_internal.h"

namespace tessel::eval_detail {

namespace {

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

}  // namespace

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

}  // namespace tessel::eval_detail
