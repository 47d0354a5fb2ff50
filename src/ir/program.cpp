#include "ir/program.h"

#include <stdexcept>

namespace tessel {

const char* assignOpSpelling(AssignOp op) {
  switch (op) {
    case AssignOp::Set: return "=";
    case AssignOp::Add: return "+=";
    case AssignOp::Sub: return "-=";
    case AssignOp::Mul: return "*=";
    case AssignOp::Div: return "/=";
  }
  return "?";
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

static int64_t ipow(int64_t b, int64_t e) {
  if (e < 0) throw std::domain_error("negative integer power");
  int64_t r = 1;
  while (e-- > 0) r *= b;
  return r;
}

int64_t evalInt(const ExprPtr& e, const ParamValues& p) {
  switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::BoolLit: return e->ival;
    case ExprKind::ParamRef: return p.at(e->index);
    case ExprKind::Unary: return -evalInt(e->args[0], p);
    case ExprKind::Binary: {
      int64_t a = evalInt(e->args[0], p), b = evalInt(e->args[1], p);
      switch (e->op) {
        case Op::Add: return a + b;
        case Op::Sub: return a - b;
        case Op::Mul: return a * b;
        case Op::Div:
          if (b == 0) throw std::domain_error("division by zero in an integer expression");
          return a / b;
        case Op::Mod:
          if (b == 0) throw std::domain_error("division by zero in an integer expression");
          return a % b;
        case Op::Pow: return ipow(a, b);
        default: break;
      }
      break;
    }
    default: break;
  }
  throw std::logic_error("evalInt: not an integer parameter expression");
}

int64_t elementCount(const std::vector<ExprPtr>& extents, const ParamValues& p) {
  int64_t n = 1;
  for (auto& e : extents) n *= evalInt(e, p);
  return n;
}

}  // namespace tessel
