#include "ir/program.h"

#include <cstdint>
#include <stdexcept>

namespace tessel {

const char* assignOpSpelling(AssignOp op) {
  switch (op) {
    case AssignOp::Set:
      return "=";
    case AssignOp::Add:
      return "+=";
    case AssignOp::Sub:
      return "-=";
    case AssignOp::Mul:
      return "*=";
    case AssignOp::Div:
      return "/=";
  }
  return "?";
}

Op compoundOp(AssignOp op) {
  switch (op) {
    case AssignOp::Add:
      return Op::Add;
    case AssignOp::Sub:
      return Op::Sub;
    case AssignOp::Mul:
      return Op::Mul;
    case AssignOp::Div:
      return Op::Div;
    case AssignOp::Set:
      break;
  }
  throw std::logic_error("compoundOp: not a compound assignment");
}

std::vector<std::string> Program::iteratorNames() const {
  std::vector<std::string> v;
  for (auto& it : iterators) v.push_back(it.name);
  return v;
}

int Program::findParam(const std::string& n) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == n) return static_cast<int>(i);
  return -1;
}
int Program::findArray(const std::string& n) const {
  for (size_t i = 0; i < arrays.size(); ++i)
    if (arrays[i].name == n) return static_cast<int>(i);
  return -1;
}
int Program::findScalar(const std::string& n) const {
  for (size_t i = 0; i < scalars.size(); ++i)
    if (scalars[i].name == n) return static_cast<int>(i);
  return -1;
}

const std::vector<ExprPtr>& Program::extents(const CallInst& c, ArrayId a) const {
  return a.local ? c.localArrays.at(a.index).extents : arrays.at(a.index).extents;
}
ScalarType Program::elementType(const CallInst& c, ArrayId a) const {
  return a.local ? c.localArrays.at(a.index).type : arrays.at(a.index).type;
}
const std::string& Program::arrayName(const CallInst& c, ArrayId a) const {
  return a.local ? c.localArrays.at(a.index).name : arrays.at(a.index).name;
}

// Integer parameter arithmetic is checked: overflow, division by zero and negative powers are
// reported (as std::domain_error) instead of wrapping, trapping or looping.
static void checkOverflow(bool overflow) {
  if (overflow) throw std::domain_error("integer overflow in a parameter expression");
}

static int64_t ipow(int64_t b, int64_t e) {
  if (e < 0) throw std::domain_error("negative integer power");
  int64_t r = 1;
  while (e > 0) {  // square and multiply: at most 63 rounds
    if (e & 1) checkOverflow(__builtin_mul_overflow(r, b, &r));
    e >>= 1;
    if (e > 0) checkOverflow(__builtin_mul_overflow(b, b, &b));
  }
  return r;
}

int64_t evalInt(const ExprPtr& e, const ParamValues& p) {
  switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::BoolLit:
      return e->ival;
    case ExprKind::ParamRef:
      return p.at(e->index);
    case ExprKind::Unary: {
      int64_t a = evalInt(e->args[0], p), r = 0;
      checkOverflow(__builtin_sub_overflow(int64_t{0}, a, &r));
      return r;
    }
    case ExprKind::Binary: {
      int64_t a = evalInt(e->args[0], p), r = 0;
      // && and || evaluate their right operand only where it decides (a guard before a
      // product that could overflow).
      if (e->op == Op::And) return a != 0 && evalInt(e->args[1], p) != 0;
      if (e->op == Op::Or) return a != 0 || evalInt(e->args[1], p) != 0;
      const int64_t b = evalInt(e->args[1], p);
      switch (e->op) {
        case Op::Lt:
          return a < b;
        case Op::Le:
          return a <= b;
        case Op::Gt:
          return a > b;
        case Op::Ge:
          return a >= b;
        case Op::Eq:
          return a == b;
        case Op::Ne:
          return a != b;
        case Op::Add:
          checkOverflow(__builtin_add_overflow(a, b, &r));
          return r;
        case Op::Sub:
          checkOverflow(__builtin_sub_overflow(a, b, &r));
          return r;
        case Op::Mul:
          checkOverflow(__builtin_mul_overflow(a, b, &r));
          return r;
        case Op::Div:
        case Op::Mod:
          if (b == 0) throw std::domain_error("division by zero in an integer expression");
          if (a == INT64_MIN && b == -1)
            throw std::domain_error("integer overflow in a parameter expression");
          return e->op == Op::Div ? a / b : a % b;
        case Op::Pow:
          return ipow(a, b);
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  throw std::logic_error("evalInt: not an integer parameter expression");
}

int64_t elementCount(const std::vector<ExprPtr>& extents, const ParamValues& p) {
  int64_t n = 1;
  for (auto& e : extents) checkOverflow(__builtin_mul_overflow(n, evalInt(e, p), &n));
  return n;
}

ExprPtr withActualNames(const Program& prog, const CallInst& call, const ExprPtr& e) {
  auto copy = std::make_shared<Expr>(*e);
  if (e->kind == ExprKind::ArrayRef) copy->name = prog.arrayName(call, e->array);
  for (auto& a : copy->args) a = withActualNames(prog, call, a);
  return copy;
}

std::string statementText(const Program& prog, const CallInst& call, const Stmt& st) {
  auto iters = prog.iteratorNames();
  return toString(withActualNames(prog, call, st.lhs), iters) + " " + assignOpSpelling(st.op) +
         " " + toString(withActualNames(prog, call, st.rhs), iters);
}

}  // namespace tessel
