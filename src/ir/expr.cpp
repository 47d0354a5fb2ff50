#include "ir/expr.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <stdexcept>

namespace tessel {

const char* opSpelling(Op op) {
  switch (op) {
    case Op::Add:
      return "+";
    case Op::Sub:
      return "-";
    case Op::Mul:
      return "*";
    case Op::Div:
      return "/";
    case Op::Mod:
      return "%";
    case Op::Pow:
      return "^";
    case Op::Lt:
      return "<";
    case Op::Le:
      return "<=";
    case Op::Gt:
      return ">";
    case Op::Ge:
      return ">=";
    case Op::Eq:
      return "==";
    case Op::Ne:
      return "!=";
    case Op::And:
      return "&";
    case Op::Or:
      return "|";
    case Op::Neg:
      return "-";
  }
  return "?";
}

static std::shared_ptr<Expr> node(ExprKind k, ScalarType t, SourceLoc loc) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->type = t;
  e->loc = loc;
  return e;
}

ExprPtr intLit(int64_t v, SourceLoc loc) {
  auto e = node(ExprKind::IntLit, ScalarType::Int, loc);
  e->ival = v;
  return e;
}
ExprPtr floatLit(double v, ScalarType t, SourceLoc loc) {
  if (!isFloating(t)) throw std::logic_error("floatLit: non-floating type");
  auto e = node(ExprKind::FloatLit, t, loc);
  e->fval = v;
  return e;
}
ExprPtr boolLit(bool v, SourceLoc loc) {
  auto e = node(ExprKind::BoolLit, ScalarType::Bool, loc);
  e->ival = v ? 1 : 0;
  return e;
}
ExprPtr paramRef(int index, std::string name, SourceLoc loc) {
  auto e = node(ExprKind::ParamRef, ScalarType::Int, loc);
  e->index = index;
  e->name = std::move(name);
  return e;
}
ExprPtr iterRef(int dim, std::string name, SourceLoc loc) {
  auto e = node(ExprKind::IterRef, ScalarType::Int, loc);
  e->index = dim;
  e->name = std::move(name);
  return e;
}
ExprPtr scalarRef(ScalarKind k, int index, std::string name, ScalarType t, SourceLoc loc) {
  auto e = node(ExprKind::ScalarRef, t, loc);
  e->scalarKind = k;
  e->index = index;
  e->name = std::move(name);
  return e;
}
ExprPtr arrayRef(ArrayId a, std::string name, ScalarType t, std::vector<Subscript> subs,
                 SourceLoc loc) {
  auto e = node(ExprKind::ArrayRef, t, loc);
  e->array = a;
  e->name = std::move(name);
  e->subs = std::move(subs);
  return e;
}
ExprPtr unary(Op op, ExprPtr a, SourceLoc loc) {
  if (op != Op::Neg) throw std::logic_error("unary: only negation");
  ScalarType t = a->type == ScalarType::Bool ? ScalarType::Int : a->type;
  auto e = node(ExprKind::Unary, t, loc);
  e->op = op;
  e->args = {std::move(a)};
  return e;
}

ScalarType binaryResultType(Op op, ScalarType a, ScalarType b) {
  switch (op) {
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne:
      return ScalarType::Bool;
    case Op::And:
    case Op::Or:
      // bool & bool stays bool (logical); otherwise integer bitwise / widest type
      if (a == ScalarType::Bool && b == ScalarType::Bool) return ScalarType::Bool;
      return widest(widest(a, b), ScalarType::Int);
    default:
      return widest(widest(a, b), ScalarType::Int);  // bool -> int for arithmetic
  }
}

ExprPtr binary(Op op, ExprPtr a, ExprPtr b, SourceLoc loc) {
  auto e = node(ExprKind::Binary, binaryResultType(op, a->type, b->type), loc);
  e->op = op;
  e->args = {std::move(a), std::move(b)};
  return e;
}

namespace {
struct MathFn {
  int arity;
  bool intResultForInt;  // abs/min/max keep int for int arguments
};
const std::map<std::string, MathFn>& mathTable() {
  static const std::map<std::string, MathFn> t = {
      {"sqrt", {1, false}}, {"exp", {1, false}},   {"log", {1, false}},  {"pow", {2, false}},
      {"fabs", {1, false}}, {"abs", {1, true}},    {"sin", {1, false}},  {"cos", {1, false}},
      {"tan", {1, false}},  {"min", {2, true}},    {"max", {2, true}},   {"floor", {1, false}},
      {"ceil", {1, false}}, {"log10", {1, false}}, {"tanh", {1, false}}, {"atan", {1, false}},
  };
  return t;
}
}  // namespace

int mathFunctionArity(const std::string& fn) {
  auto it = mathTable().find(fn);
  return it == mathTable().end() ? -1 : it->second.arity;
}

const std::vector<std::string>& mathFunctionNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (auto& [k, _] : mathTable()) v.push_back(k);
    v.push_back("select");
    return v;
  }();
  return names;
}

ScalarType callResultType(const std::string& fn, const std::vector<ScalarType>& args) {
  ScalarType w = ScalarType::Bool;
  for (auto t : args) w = widest(w, t);
  auto it = mathTable().find(fn);
  bool keepInt = it != mathTable().end() && it->second.intResultForInt;
  if (!isFloating(w)) return keepInt ? ScalarType::Int : ScalarType::Double;
  return w;
}

ExprPtr call(std::string fn, std::vector<ExprPtr> args, SourceLoc loc) {
  std::vector<ScalarType> ts;
  for (auto& a : args) ts.push_back(a->type);
  auto e = node(ExprKind::Call, callResultType(fn, ts), loc);
  e->name = std::move(fn);
  e->args = std::move(args);
  return e;
}

ExprPtr select(ExprPtr c, ExprPtr a, ExprPtr b, SourceLoc loc) {
  ScalarType t = widest(a->type, b->type);
  auto e = node(ExprKind::Select, t, loc);
  e->name = "select";
  e->args = {std::move(c), std::move(a), std::move(b)};
  return e;
}

ExprPtr cast(ScalarType t, ExprPtr a, SourceLoc loc) {
  auto e = node(ExprKind::Cast, t, loc);
  e->args = {std::move(a)};
  return e;
}

ExprPtr var(std::string name, ScalarType t) {
  if (name.empty()) throw std::logic_error("var: empty name");
  auto e = node(ExprKind::Var, t, {});
  e->name = std::move(name);
  return e;
}

ExprPtr load(std::string buffer, ExprPtr index, ScalarType t) {
  if (buffer.empty() || !index) throw std::logic_error("load: empty buffer or index");
  if (isFloating(index->type)) throw std::logic_error("load: floating index");
  auto e = node(ExprKind::Load, t, {});
  e->name = std::move(buffer);
  e->args = {std::move(index)};
  return e;
}

static int precedence(const Expr& e) {
  if (e.kind == ExprKind::Binary) {
    switch (e.op) {
      case Op::Or:
        return 1;
      case Op::And:
        return 2;
      case Op::Eq:
      case Op::Ne:
        return 3;
      case Op::Lt:
      case Op::Le:
      case Op::Gt:
      case Op::Ge:
        return 4;
      case Op::Add:
      case Op::Sub:
        return 5;
      case Op::Mul:
      case Op::Div:
      case Op::Mod:
        return 6;
      case Op::Pow:
        return 8;
      default:
        return 9;
    }
  }
  if (e.kind == ExprKind::Unary) return 7;
  return 10;
}

static std::string subscriptStr(const Subscript& s, const std::vector<std::string>& iters) {
  if (s.fixed()) return std::to_string(s.offset);
  std::string n =
      s.iter < static_cast<int>(iters.size()) ? iters[s.iter] : fmt::format("d{}", s.iter);
  if (s.offset > 0) return fmt::format("{}+{}", n, s.offset);
  if (s.offset < 0) return fmt::format("{}-{}", n, -s.offset);
  return n;
}

std::string toString(const ExprPtr& e, const std::vector<std::string>& iters) {
  switch (e->kind) {
    case ExprKind::IntLit:
      return std::to_string(e->ival);
    case ExprKind::FloatLit: {
      // The shortest text that reads back as the same value: for a float literal, the float's
      // own (0.1f, not the double 0.10000000149011612f), where it reads back through a double.
      std::string s = fmt::format("{}", e->fval);
      if (e->type == ScalarType::Float) {
        const float f = static_cast<float>(e->fval);
        const std::string shortest = fmt::format("{}", f);
        if (static_cast<float>(std::strtod(shortest.c_str(), nullptr)) == f) s = shortest;
      }
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return e->type == ScalarType::Float ? s + "f" : s;
    }
    case ExprKind::BoolLit:
      return e->ival ? "true" : "false";
    case ExprKind::ParamRef:
    case ExprKind::IterRef:
    case ExprKind::ScalarRef:
    case ExprKind::Var:
    case ExprKind::Intrinsic:
      return e->name;
    case ExprKind::Load:
      return e->name + "[" + toString(e->args[0], iters) + "]";
    case ExprKind::ArrayRef: {
      std::string s = e->name;
      for (auto& sub : e->subs) s += "[" + subscriptStr(sub, iters) + "]";
      return s;
    }
    case ExprKind::Unary: {
      std::string a = toString(e->args[0], iters);
      if (precedence(*e->args[0]) < precedence(*e)) a = "(" + a + ")";
      return "-" + a;
    }
    case ExprKind::Binary: {
      int p = precedence(*e);
      std::string a = toString(e->args[0], iters), b = toString(e->args[1], iters);
      if (precedence(*e->args[0]) < p) a = "(" + a + ")";
      if (precedence(*e->args[1]) <= p) b = "(" + b + ")";  // left-associative
      return fmt::format("{} {} {}", a, opSpelling(e->op), b);
    }
    case ExprKind::Call:
    case ExprKind::Select: {
      std::string s = e->name + "(";
      for (size_t i = 0; i < e->args.size(); ++i)
        s += (i ? ", " : "") + toString(e->args[i], iters);
      return s + ")";
    }
    case ExprKind::Cast:
      return fmt::format("{}({})", typeName(e->type), toString(e->args[0], iters));
  }
  return "?";
}

}  // namespace tessel
