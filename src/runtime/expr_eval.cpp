// Compilation of Algorithm IR expressions into the reference interpreter's node trees:
// constants, iterators, array and local-scalar loads, conversions, negation and select, with
// compileExpr/compileAs dispatching on the expression kind. Binary operators are compiled in
// expr_binary.cpp, math-function calls in expr_math.cpp, value conversions in expr_convert.cpp.
#include "runtime/expr_eval.h"

#include <stdexcept>

#include "runtime/expr_eval_internal.h"

namespace tessel {

namespace {

using eval_detail::mkInt;
using eval_detail::ST;
using eval_detail::Tr;
using eval_detail::wneg;

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
      return eval_detail::compileBinary(e, env);
    case ExprKind::Call:
      return eval_detail::compileCall(e, env);
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
