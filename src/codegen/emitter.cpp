#include "codegen/emitter.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace tessel {

namespace {

using lir::CType;
using lir::StmtKind;

// C operator precedence, loosest first.
constexpr int kTernary = 0, kLogOr = 1, kLogAnd = 2, kBitOr = 3, kBitAnd = 5, kEq = 6, kRel = 7,
              kAdd = 8, kMul = 9, kUnary = 10, kPrimary = 11;

/// A printed expression: its text, the precedence of its top operator, and whether its C type
/// is a 32-bit-or-narrower integer (int32 loads, bools, small literals), which C would compute
/// in 32 bits: such operands are widened where the language computes in 64.
struct Out {
  std::string s;
  int prec = kPrimary;
  bool narrow = false;
};

enum Helper : unsigned { kIpow = 1, kIdiv = 2, kImod = 4 };  // each also needs tessel_fail

[[noreturn]] void internal(const std::string& what) {
  throw std::logic_error("internal error: emitter: " + what);
}

class Printer {
 public:
  explicit Printer(const Dialect& d) : d_(d) {}

  unsigned helpers = 0;     // which helpers the printed code calls
  bool usesStatus = false;  // the printed code reads or writes the error status

  Out expr(const ExprPtr& e);
  void stmt(const lir::StmtPtr& s, int indent, std::string& out);
  std::string function(const lir::Function& f);
  /// The error status's definition and the helpers, for the top of a file.
  std::string helperDefinitions();

 private:
  const Dialect& d_;
  int fallibleCalls_ = 0;              // calls printed of helpers that may record an error
  const lir::Function* fn_ = nullptr;  // the function being printed, if any

  static std::string wrap(const Out& o, bool paren) { return paren ? "(" + o.s + ")" : o.s; }
  Out infix(Out a, Out b, const char* op, int prec);
  Out conv(const ExprPtr& e, ScalarType to);
  Out castTo(CType t, const Out& inner);
  Out wide(const Out& o) { return o.narrow ? castTo(CType::Int64, o) : o; }
  Out literal(const Expr& e);
  Out binary(const Expr& e);
  Out call(const Expr& e);
  Out fnCall(const std::string& name, const std::vector<Out>& args);
  /// A status pattern of the dialect, filled in (and the status marked as used).
  std::string status(const std::string& pattern, const std::string& code = "");
  std::string pointerType(CType t, bool constData) const;
};

// ---- expressions ---------------------------------------------------------------------------

Out Printer::fnCall(const std::string& name, const std::vector<Out>& args) {
  std::string s = name + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].s;
  return {s + ")", kPrimary};
}

Out Printer::castTo(CType t, const Out& inner) {
  std::string x = wrap(inner, inner.prec < kUnary || inner.s[0] == '-');
  Out o{fmt::format(fmt::runtime(d_.castPattern), fmt::arg("type", d_.typeName(t)),
                    fmt::arg("expr", x)),
        kUnary};
  o.narrow = t == CType::Int32 || t == CType::Bool;
  return o;
}

// e converted to `to` with the language's conversion (C's, for in-range values).
Out Printer::conv(const ExprPtr& e, ScalarType to) {
  Out o = expr(e);
  if (e->type == to) return o;
  if (to == ScalarType::Int && e->type == ScalarType::Bool) return o;  // C promotes
  return castTo(lir::ctypeOf(to), o);
}

Out Printer::literal(const Expr& e) {
  if (e.kind == ExprKind::BoolLit) return {e.ival ? d_.boolTrue : d_.boolFalse, kPrimary, true};
  if (e.kind == ExprKind::IntLit) {
    int64_t v = e.ival;
    bool fits = v > std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
    std::string s = std::to_string(v) + (fits ? "" : d_.int64Suffix);
    return {s, v < 0 ? kUnary : kPrimary, fits};
  }
  // Floating literal: the shortest decimal that reads back as the same value (exact).
  double v = e.fval;
  bool isFloat = e.type == ScalarType::Float;
  if (std::isnan(v)) {
    Out o{d_.floatNan, kPrimary};
    return isFloat ? o : castTo(CType::Double, o);
  }
  if (std::isinf(v)) {
    Out o{d_.floatInfinity, kPrimary};
    if (!isFloat) o = castTo(CType::Double, o);
    return v < 0 ? Out{"-" + wrap(o, o.prec < kUnary), kUnary} : o;
  }
  std::string s = isFloat ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  if (isFloat) s += d_.floatSuffix;
  return {s, s[0] == '-' ? kUnary : kPrimary};
}

Out Printer::infix(Out a, Out b, const char* op, int prec) {
  // Logical and bitwise operators parenthesise any other binary operand, for readability.
  bool strict = prec >= kLogOr && prec <= kBitAnd;
  auto needs = [&](const Out& o, bool right) {
    if (o.prec < prec || (right && o.prec == prec)) return true;
    if (strict && o.prec != prec && o.prec < kUnary) return true;
    return right && o.s[0] == '-';
  };
  return {fmt::format("{} {} {}", wrap(a, needs(a, false)), op, wrap(b, needs(b, true))), prec};
}

static bool isLiteralDivisor(const ExprPtr& e) {
  return e->kind == ExprKind::IntLit && e->ival != 0 && e->ival != -1;
}

Out Printer::binary(const Expr& e) {
  ScalarType r = e.type;
  const ExprPtr &x = e.args[0], &y = e.args[1];
  if (r == ScalarType::Int || (r == ScalarType::Bool && (e.op == Op::And || e.op == Op::Or))) {
    // Integer arithmetic: 64-bit, wrapping (-fwrapv), like the reference interpreter.
    Out a = conv(x, r);
    int before = fallibleCalls_;
    Out b = conv(y, r);
    bool rightFallible = fallibleCalls_ > before;
    bool bothNarrow = a.narrow && b.narrow;
    Out o;
    switch (e.op) {
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
        o = infix(bothNarrow ? wide(a) : a, b, opSpelling(e.op), e.op == Op::Mul ? kMul : kAdd);
        return o;
      case Op::Div:
      case Op::Mod:
        if (isLiteralDivisor(y)) {  // cannot trap; 32-bit operands give the 64-bit result
          o = infix(a, b, opSpelling(e.op), kMul);
          o.narrow = bothNarrow;
          return o;
        }
        helpers |= e.op == Op::Div ? kIdiv : kImod;
        ++fallibleCalls_;  // a zero divisor is an error
        return fnCall(e.op == Op::Div ? "tessel_idiv" : "tessel_imod", {a, b});
      case Op::Pow:
        helpers |= kIpow;
        // A literal exponent is not negative (sema rejects those).
        if (y->kind != ExprKind::IntLit || y->ival < 0) ++fallibleCalls_;
        return fnCall("tessel_ipow", {a, b});
      case Op::And:
      case Op::Or: {
        bool isAnd = e.op == Op::And;
        // Bool operands: `&&`/`||`, unless the right one may record a run-time error, which
        // C's short circuit could skip: the language evaluates both operands (as the
        // reference interpreter does), so then `&`/`|` (on bools, 0 or 1: the same value).
        if (r == ScalarType::Bool && !rightFallible)
          o = infix(a, b, isAnd ? "&&" : "||", isAnd ? kLogAnd : kLogOr);
        else
          o = infix(a, b, isAnd ? "&" : "|", isAnd ? kBitAnd : kBitOr);
        o.narrow = bothNarrow;
        return o;
      }
      default:
        break;
    }
  }
  switch (e.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
      // C's usual arithmetic conversions give the language's widest type here.
      return infix(expr(x), expr(y), opSpelling(e.op),
                   e.op == Op::Add || e.op == Op::Sub ? kAdd : kMul);
    case Op::Mod:
      return fnCall(d_.mathName("fmod", r), {conv(x, r), conv(y, r)});
    case Op::Pow:
      return fnCall(d_.mathName("pow", r), {conv(x, r), conv(y, r)});
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne: {
      // Compared in the widest type (C's conversions agree); a bool result.
      Out o =
          infix(expr(x), expr(y), opSpelling(e.op), e.op == Op::Eq || e.op == Op::Ne ? kEq : kRel);
      o.narrow = true;
      return o;
    }
    case Op::And:
    case Op::Or: {
      // On floating operands: logical, giving 1 or 0 of the operand type.
      Out z{"0", kPrimary};
      Out a = infix(expr(x), z, "!=", kEq), b = infix(expr(y), z, "!=", kEq);
      bool isAnd = e.op == Op::And;
      return castTo(lir::ctypeOf(r), infix(a, b, isAnd ? "&&" : "||", isAnd ? kLogAnd : kLogOr));
    }
    default:
      break;
  }
  internal(fmt::format("binary operator '{}' on type {}", opSpelling(e.op), typeName(r)));
}

Out Printer::call(const Expr& e) {
  // Arguments are converted to the result type: float functions for float, double for double
  // and for int arguments (except abs/min/max, which keep 64-bit int).
  std::vector<Out> args;
  for (auto& a : e.args) {
    Out o = conv(a, e.type);
    args.push_back(e.type == ScalarType::Int ? wide(o) : o);
  }
  if (e.type == ScalarType::Int && (e.name == "min" || e.name == "max")) {
    // Typed min/max take any integer operands; no widening casts needed.
    args.clear();
    for (auto& a : e.args) args.push_back(conv(a, e.type));
  }
  return fnCall(d_.mathName(e.name, e.type), args);
}

Out Printer::expr(const ExprPtr& e) {
  switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::BoolLit:
      return literal(*e);
    case ExprKind::ParamRef:
    case ExprKind::IterRef:
    case ExprKind::ScalarRef:
    case ExprKind::Var:
      return {e->name, kPrimary, e->type == ScalarType::Bool};
    case ExprKind::ArrayRef:
      internal("array reference '" + e->name + "' was not lowered");
    case ExprKind::Load:
      return {e->name + "[" + expr(e->args[0]).s + "]", kPrimary,
              e->type == ScalarType::Int || e->type == ScalarType::Bool};
    case ExprKind::Unary: {
      const ExprPtr& x = e->args[0];
      if (x->kind == ExprKind::IntLit && x->ival != std::numeric_limits<int64_t>::min()) {
        auto lit = std::make_shared<Expr>(*x);
        lit->ival = -x->ival;
        return literal(*lit);
      }
      if (x->kind == ExprKind::FloatLit) {
        auto lit = std::make_shared<Expr>(*x);
        lit->fval = -x->fval;
        return literal(*lit);
      }
      Out a = conv(x, e->type);
      if (e->type == ScalarType::Int) a = wide(a);
      return {"-" + wrap(a, a.prec < kUnary || a.s[0] == '-'), kUnary};
    }
    case ExprKind::Binary:
      return binary(*e);
    case ExprKind::Call:
      return call(*e);
    case ExprKind::Select: {
      Out c = expr(e->args[0]);
      Out a = conv(e->args[1], e->type), b = conv(e->args[2], e->type);
      return {fmt::format("{} ? {} : {}", wrap(c, c.prec < kUnary), wrap(a, a.prec <= kTernary),
                          wrap(b, b.prec <= kTernary)),
              kTernary, a.narrow && b.narrow};
    }
    case ExprKind::Cast: {
      // A cast to Int of an Int value wraps it to 32 bits (a store to an int).
      Out a = expr(e->args[0]);
      if (e->type == e->args[0]->type && (e->type != ScalarType::Int || a.narrow)) return a;
      if (e->type == ScalarType::Int && e->args[0]->type == ScalarType::Bool) return a;
      return castTo(lir::ctypeOf(e->type), a);
    }
  }
  internal("unknown expression kind");
}

// ---- statements ----------------------------------------------------------------------------

std::string Printer::pointerType(CType t, bool constData) const {
  std::string s = d_.pointerAddressSpace.empty() ? "" : d_.pointerAddressSpace + " ";
  if (constData) s += "const ";
  s += d_.typeName(t) + "*";
  if (!d_.restrictQualifier.empty()) s += " " + d_.restrictQualifier;
  return s;
}

constexpr size_t kLineLimit = 100;

// Word-wraps comment text: each line of `text` becomes one or more `pad + prefix + words` lines.
static void addLines(const std::string& text, const std::string& pad, const std::string& prefix,
                     std::string& out, bool wrapWords = false) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string l = prefix + line;
    while (!l.empty() && l.back() == ' ') l.pop_back();
    while (wrapWords && pad.size() + l.size() > kLineLimit) {
      size_t cut = l.rfind(' ', kLineLimit - pad.size());
      if (cut == std::string::npos || cut <= prefix.size()) break;
      out += pad + l.substr(0, cut) + "\n";
      l = prefix + "  " + l.substr(cut + 1);
    }
    out += l.empty() ? "\n" : pad + l + "\n";
  }
}

// Breaks a long line of code before a binary operator (or after a comma) outside subscripts,
// preferring the shallowest parenthesis depth; continuation lines are indented four more.
static std::string breakCode(std::string line, const std::string& pad) {
  static const char* const kOps[] = {"+ ", "- ", "* ", "/ ", "&& ", "|| ", "? ", ": "};
  std::string out, cont = pad + "    ";
  while (line.size() > kLineLimit) {
    size_t best = 0;
    int bestDepth = 1 << 30, depth = 0, brackets = 0;
    for (size_t p = 0; p < kLineLimit && p + 1 < line.size(); ++p) {
      char c = line[p];
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (c == '[') ++brackets;
      if (c == ']') --brackets;
      if (c != ' ' || brackets > 0 || p < cont.size() + 8) continue;
      bool cand = line[p - 1] == ',';
      for (const char* op : kOps) cand = cand || line.compare(p + 1, std::strlen(op), op) == 0;
      if (cand && depth <= bestDepth) best = p, bestDepth = depth;
    }
    if (best == 0) break;
    out += line.substr(0, best) + "\n";
    line = cont + line.substr(best + 1);
  }
  return out + line + "\n";
}

void Printer::stmt(const lir::StmtPtr& s, int indent, std::string& out) {
  std::string pad(2 * indent, ' ');
  auto body = [&](const std::vector<lir::StmtPtr>& b) {
    for (auto& c : b) stmt(c, indent + 1, out);
  };
  switch (s->kind) {
    case StmtKind::Block:
      out += pad + "{\n";
      body(s->body);
      out += pad + "}\n";
      return;
    case StmtKind::For: {
      const std::string* pragma = nullptr;
      switch (s->loop) {
        case lir::LoopKind::Serial:
          break;
        case lir::LoopKind::Parallel:
          pragma = &d_.parallelPragma;
          break;
        case lir::LoopKind::Simd:
          pragma = &d_.simdPragma;
          break;
        case lir::LoopKind::ParallelSimd:
          pragma = &d_.parallelSimdPragma;
          break;
      }
      if (pragma && !pragma->empty()) out += pad + *pragma + "\n";
      out += fmt::format("{}for ({} {} = {}; {} <= {}; ++{}) {{\n", pad, d_.typeName(CType::Int64),
                         s->name, expr(s->lo).s, s->name, expr(s->hi).s, s->name);
      body(s->body);
      out += pad + "}\n";
      return;
    }
    case StmtKind::Store:
      out += breakCode(
          fmt::format("{}{}[{}] = {};", pad, s->name, expr(s->index).s, expr(s->value).s), pad);
      return;
    case StmtKind::LocalDecl: {
      if (s->pointer) {
        std::string t = pointerType(s->type, false);
        out += fmt::format("{}{} {} = ({}*){};\n", pad, t, s->name, d_.typeName(s->type),
                           expr(s->value).s);
        return;
      }
      std::string decl =
          fmt::format("{}{}{} {}", pad, s->isConst ? "const " : "", d_.typeName(s->type), s->name);
      out += breakCode(decl + (s->value ? " = " + expr(s->value).s + ";" : ";"), pad);
      return;
    }
    case StmtKind::Assign:
      out += breakCode(fmt::format("{}{} = {};", pad, s->name, expr(s->value).s), pad);
      return;
    case StmtKind::If:
      out += fmt::format("{}if ({}) {{\n", pad, expr(s->value).s);
      body(s->body);
      if (!s->orElse.empty()) {
        out += pad + "} else {\n";
        body(s->orElse);
      }
      out += pad + "}\n";
      return;
    case StmtKind::Comment:
      if (s->name.empty()) {
        out += "\n";
        return;
      }
      addLines(s->name, pad, "// ", out, true);
      return;
    case StmtKind::Alloc:
      addLines(fmt::format(fmt::runtime(d_.allocPattern), fmt::arg("type", d_.typeName(s->type)),
                           fmt::arg("name", s->name), fmt::arg("count", expr(s->value).s),
                           fmt::arg("restrict", d_.restrictQualifier)),
               pad, "", out);
      return;
    case StmtKind::Copy:
      addLines(fmt::format(fmt::runtime(d_.copyPattern), fmt::arg("type", d_.typeName(s->type)),
                           fmt::arg("dst", s->name), fmt::arg("src", s->source),
                           fmt::arg("count", expr(s->value).s)),
               pad, "", out);
      return;
    case StmtKind::Call: {
      std::vector<Out> args;
      for (auto& a : s->args) args.push_back(expr(a));
      out += breakCode(pad + fnCall(s->name, args).s + ";", pad);
      return;
    }
    case StmtKind::ResetStatus:
      addLines(status(d_.statusReset), pad, "", out);
      return;
    case StmtKind::Return: {
      bool hasValue = s->status || s->value;
      if (fn_ && hasValue != fn_->result.has_value())
        internal("a return " + std::string(hasValue ? "with" : "without") +
                 " a value in function '" + fn_->name + "'");
      if (fn_ && s->status && *fn_->result != CType::Int32)
        internal("function '" + fn_->name + "' returns the error status, not an int32");
      std::string v = s->status  ? " " + status(d_.statusRead)
                      : s->value ? " " + expr(s->value).s
                                 : "";
      out += breakCode(pad + "return" + v + ";", pad);
      return;
    }
  }
  internal("unknown statement kind");
}

std::string Printer::status(const std::string& pattern, const std::string& code) {
  if (pattern.empty()) internal("the dialect " + d_.name + " has no error status");
  usesStatus = true;
  return fmt::format(fmt::runtime(pattern), fmt::arg("name", d_.statusName),
                     fmt::arg("code", code));
}

std::string Printer::function(const lir::Function& f) {
  fn_ = &f;
  std::string out;
  if (!f.comment.empty()) addLines(f.comment, "", "// ", out, true);
  std::vector<std::string> params;
  for (auto& p : f.params)
    params.push_back(p.slots     ? "void* const* " + p.name
                     : p.pointer ? pointerType(p.type, p.constData) + " " + p.name
                                 : "const " + d_.typeName(p.type) + " " + p.name);
  const std::string& q = f.linkage == lir::Linkage::Internal  ? d_.internalQualifier
                         : f.linkage == lir::Linkage::ExternC ? d_.externCQualifier
                                                              : d_.publicQualifier;
  std::string result = f.result ? d_.typeName(*f.result) : "void";
  std::string head = (q.empty() ? "" : q + " ") + result + " " + f.name + "(";
  std::string oneLine;
  for (size_t i = 0; i < params.size(); ++i) oneLine += (i ? ", " : "") + params[i];
  if (head.size() + oneLine.size() + 3 <= 100) {
    out += head + oneLine + ") {\n";
  } else {
    out += head + "\n";
    for (size_t i = 0; i < params.size(); ++i)
      out += "    " + params[i] + (i + 1 < params.size() ? ",\n" : ") {\n");
  }
  if (f.body->kind == StmtKind::Block) {
    for (auto& c : f.body->body) stmt(c, 1, out);
  } else {
    stmt(f.body, 1, out);
  }
  fn_ = nullptr;
  return out + "}\n";
}

std::string Printer::helperDefinitions() {
  // Written in the common subset of C, C++, CUDA and OpenCL C; {q} is the dialect's helper
  // qualifier, {i}/{u} its 64-bit signed/unsigned integer types, {div}/{mod}/{pow} the
  // lir::Status codes of their errors.
  std::string out;
  if (helpers & kIpow)
    out +=
        "// Integer power (`^` on ints): 64-bit, wrapping on overflow. A negative exponent is an\n"
        "// error (recorded; the value is that of 1 / b^-e, truncated).\n"
        "{q} {i} tessel_ipow({i} b, {i} e) {{\n"
        "  if (e < 0) {{\n"
        "    tessel_fail({pow});\n"
        "    return b == 1 ? 1 : b == -1 ? (e % 2 == 0 ? 1 : -1) : 0;\n"
        "  }}\n"
        "  {u} r = 1u, x = ({u})b;\n"
        "  for (; e > 0; e >>= 1) {{\n"
        "    if (e & 1) r *= x;\n"
        "    x *= x;\n"
        "  }}\n"
        "  return ({i})r;\n"
        "}}\n\n";
  if (helpers & (kIdiv | kImod))
    out +=
        "// Integer division and remainder, truncating like C, that never trap: a zero divisor is\n"
        "// an error (recorded; the value is 0), and -1 wraps.\n";
  if (helpers & kIdiv)
    out +=
        "{q} {i} tessel_idiv({i} a, {i} b) {{\n"
        "  if (b == 0) {{\n"
        "    tessel_fail({div});\n"
        "    return 0;\n"
        "  }}\n"
        "  return b == -1 ? ({i})(0u - ({u})a) : a / b;\n"
        "}}\n";
  if (helpers & kImod)
    out +=
        "{q} {i} tessel_imod({i} a, {i} b) {{\n"
        "  if (b == 0) {{\n"
        "    tessel_fail({mod});\n"
        "    return 0;\n"
        "  }}\n"
        "  return b == -1 ? 0 : a % b;\n"
        "}}\n";
  if (helpers & (kIdiv | kImod)) out += "\n";
  // The status and tessel_fail, which every helper calls; the dialect spells the status.
  std::string head;
  if (helpers) {
    head =
        "// Records run-time error `code` of the program, unless one is recorded already; the\n"
        "// entry point returns it. Nothing traps: the helpers below return a value and the\n"
        "// program runs on (its arrays then hold unspecified values).\n";
    if (!d_.helperQualifier.empty()) head += d_.helperQualifier + " ";
    head += "void tessel_fail(int code) {\n";
    addLines(status(d_.statusRecord, "code"), "  ", "", head);
    head += "}\n\n";
  }
  if (usesStatus) {
    std::string decl =
        "// The error status: 0, or the first run-time error the program met (set by the "
        "helpers).\n";
    addLines(status(d_.statusDecl), "", "", decl);
    head = decl + "\n" + head;
  }
  auto code = [](lir::Status st) { return static_cast<int>(st); };
  return head + fmt::format(fmt::runtime(out), fmt::arg("q", d_.helperQualifier),
                            fmt::arg("i", d_.typeName(CType::Int64)), fmt::arg("u", d_.uint64Name),
                            fmt::arg("div", code(lir::Status::IntDivisionByZero)),
                            fmt::arg("mod", code(lir::Status::IntRemainderByZero)),
                            fmt::arg("pow", code(lir::Status::NegativeExponent)));
}

}  // namespace

std::string CLikeEmitter::emitModule(const lir::Module& m) const {
  Printer p(d_);
  std::string functions;
  for (size_t i = 0; i < m.functions.size(); ++i)
    functions += (i ? "\n" : "") + p.function(m.functions[i]);
  std::string out;
  for (auto& line : m.header) out += line.empty() ? "//\n" : "// " + line + "\n";
  if (!m.header.empty()) out += "\n";
  for (auto& line : d_.prelude) out += line + "\n";
  if (!d_.prelude.empty()) out += "\n";
  return out + p.helperDefinitions() + functions;
}

std::string CLikeEmitter::emitFunction(const lir::Function& f) const {
  Printer p(d_);
  return p.function(f);
}

std::string CLikeEmitter::emitStmt(const lir::StmtPtr& s, int indent) const {
  Printer p(d_);
  std::string out;
  p.stmt(s, indent, out);
  return out;
}

std::string CLikeEmitter::emitExpr(const ExprPtr& e) const { return Printer(d_).expr(e).s; }

}  // namespace tessel
