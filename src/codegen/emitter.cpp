#include "codegen/emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "codegen/emitter_support.h"

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

using emit::addLines;
using emit::breakCode;
using emit::kIdiv;
using emit::kImod;
using emit::kIpow;
using emit::kToIntD;
using emit::kToIntF;

[[noreturn]] void internal(const std::string& what) {
  throw std::logic_error("internal error: emitter: " + what);
}

std::string wrap(const Out& o, bool paren) { return paren ? "(" + o.s + ")" : o.s; }
Out infix(Out a, Out b, const char* op, int prec);
Out fnCall(const std::string& name, const std::vector<Out>& args);

/// Prints expressions, noting what the printed code needs at the top of its file: the helpers it
/// calls and whether it uses the error status.
class ExprPrinter {
 public:
  explicit ExprPrinter(const Dialect& d) : d_(d) {}

  unsigned helpers = 0;     // which helpers the printed code calls
  bool usesStatus = false;  // the printed code reads or writes the error status

  Out expr(const ExprPtr& e);
  Out castTo(CType t, const Out& inner);
  /// A status pattern of the dialect, filled in (and the status marked as used).
  std::string status(const std::string& pattern, const std::string& code = "");
  /// The error status's definition and the helpers, for the top of a file.
  std::string helperDefinitions() const { return emit::helperDefinitions(d_, helpers, usesStatus); }

 private:
  const Dialect& d_;
  int fallibleCalls_ = 0;  // calls printed of helpers that may record an error

  Out conv(const ExprPtr& e, ScalarType to);
  /// A float or double value converted to a language int (the helpers tessel_toint_f/_d).
  Out toInt(const Out& floating, ScalarType from);
  Out wide(const Out& o) { return o.narrow ? castTo(CType::Int64, o) : o; }
  Out literal(const Expr& e);
  Out binary(const Expr& e);
  Out call(const Expr& e);
  /// A helper's arguments, preceded by the status pointer where the dialect passes one.
  std::vector<Out> statusArgs(std::vector<Out> args) {
    if (d_.status.param.empty()) return args;
    usesStatus = true;
    args.insert(args.begin(), Out{d_.statusName});
    return args;
  }
};

/// Prints statements and functions; their expressions through an ExprPrinter.
class Printer {
 public:
  explicit Printer(const Dialect& d) : d_(d), ex_(d) {}

  void stmt(const lir::StmtPtr& s, int indent, std::string& out);
  std::string function(const lir::Function& f);
  /// The error status's definition and the helpers, for the top of a file.
  std::string helperDefinitions() const { return ex_.helperDefinitions(); }

 private:
  const Dialect& d_;
  bool index32_ = false;  // printing with index32Dialect() already
  ExprPrinter ex_;
  const lir::Function* fn_ = nullptr;  // the function being printed, if any

  Out expr(const ExprPtr& e) { return ex_.expr(e); }
  void launch(const lir::Stmt& s, const std::string& pad, std::string& out);
  std::string pointerType(CType t, bool constData) const;
};

// ---- expressions ---------------------------------------------------------------------------

Out fnCall(const std::string& name, const std::vector<Out>& args) {
  std::string s = name + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].s;
  return {s + ")", kPrimary};
}

Out ExprPrinter::castTo(CType t, const Out& inner) {
  std::string x = wrap(inner, inner.prec < kUnary || inner.s[0] == '-');
  Out o{fmt::format(fmt::runtime(d_.literals.castPattern), fmt::arg("type", d_.typeName(t)),
                    fmt::arg("expr", x)),
        kUnary};
  o.narrow = t == CType::Int32 || t == CType::Bool;
  return o;
}

// e converted to `to` with the language's conversion (C's, for in-range values; floating to int
// through a helper that wraps as the reference does).
Out ExprPrinter::conv(const ExprPtr& e, ScalarType to) {
  Out o = expr(e);
  if (e->type == to) return o;
  if (to == ScalarType::Int && e->type == ScalarType::Bool) return o;  // C promotes
  if (to == ScalarType::Int) return toInt(o, e->type);
  return castTo(lir::ctypeOf(to), o);
}

Out ExprPrinter::toInt(const Out& floating, ScalarType from) {
  const bool single = from == ScalarType::Float;
  helpers |= single ? kToIntF : kToIntD;
  Out o = fnCall((single ? "tessel_toint_f" : "tessel_toint_d") + d_.functions.helperSuffix,
                 {floating});
  o.narrow = true;
  return o;
}

Out ExprPrinter::literal(const Expr& e) {
  if (e.kind == ExprKind::BoolLit)
    return {e.ival ? d_.literals.boolTrue : d_.literals.boolFalse, kPrimary, true};
  if (e.kind == ExprKind::IntLit) {
    int64_t v = e.ival;
    bool fits = v > std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
    std::string s = std::to_string(v) + (fits ? "" : d_.literals.int64Suffix);
    return {s, v < 0 ? kUnary : kPrimary, fits};
  }
  // Floating literal: the shortest decimal that reads back as the same value (exact).
  double v = e.fval;
  bool isFloat = e.type == ScalarType::Float;
  if (std::isnan(v)) {
    Out o{d_.literals.floatNan, kPrimary};
    return isFloat ? o : castTo(CType::Double, o);
  }
  if (std::isinf(v)) {
    Out o{d_.literals.floatInfinity, kPrimary};
    if (!isFloat) o = castTo(CType::Double, o);
    return v < 0 ? Out{"-" + wrap(o, o.prec < kUnary), kUnary} : o;
  }
  std::string s = isFloat ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  if (isFloat) s += d_.literals.floatSuffix;
  return {s, s[0] == '-' ? kUnary : kPrimary};
}

Out infix(Out a, Out b, const char* op, int prec) {
  // Logical and bitwise operators parenthesise any other binary operand, for readability.
  bool strict = prec >= kLogOr && prec <= kBitAnd;
  auto needs = [&](const Out& o, bool right) {
    if (o.prec < prec || (right && o.prec == prec)) return true;
    if (strict && o.prec != prec && o.prec < kUnary) return true;
    return right && o.s[0] == '-';
  };
  return {fmt::format("{} {} {}", wrap(a, needs(a, false)), op, wrap(b, needs(b, true))), prec};
}

Out ExprPrinter::binary(const Expr& e) {
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
        // A literal divisor cannot trap; 32-bit operands give the 64-bit result.
        if (!lir::callsStatusHelper(e)) {
          o = infix(a, b, opSpelling(e.op), kMul);
          o.narrow = bothNarrow;
          return o;
        }
        helpers |= e.op == Op::Div ? kIdiv : kImod;
        ++fallibleCalls_;  // a zero divisor is an error
        return fnCall((e.op == Op::Div ? "tessel_idiv" : "tessel_imod") + d_.functions.helperSuffix,
                      statusArgs({a, b}));
      case Op::Pow:
        helpers |= kIpow;
        // A literal exponent is not negative (sema rejects those).
        if (y->kind != ExprKind::IntLit || y->ival < 0) ++fallibleCalls_;
        return fnCall("tessel_ipow" + d_.functions.helperSuffix, statusArgs({a, b}));
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

Out ExprPrinter::call(const Expr& e) {
  // Arguments are converted to the result type: float functions for float, double for double
  // and for int arguments (except abs/min/max, which keep 64-bit int).
  // Typed min/max take any integer operands; no widening casts needed. (Each argument is
  // printed once: nested min/max, a bounding box over many statements, stays linear.)
  const bool typedMinMax = e.type == ScalarType::Int && (e.name == "min" || e.name == "max");
  std::vector<Out> args;
  for (auto& a : e.args) {
    Out o = conv(a, e.type);
    args.push_back(e.type == ScalarType::Int && !typedMinMax ? wide(o) : o);
  }
  // ... unless they mix 32 and 64 bits: OpenCL's overloaded min(int, long) is ambiguous.
  if (typedMinMax && d_.math.overloaded &&
      std::any_of(args.begin(), args.end(), [](const Out& o) { return o.narrow; }) &&
      !std::all_of(args.begin(), args.end(), [](const Out& o) { return o.narrow; }))
    for (Out& o : args) o = wide(o);
  return fnCall(d_.mathName(e.name, e.type), args);
}

Out ExprPrinter::expr(const ExprPtr& e) {
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
    case ExprKind::Intrinsic: {
      const std::string& pat = d_.kernels.intrinsicPatterns.at(static_cast<size_t>(e->ival));
      if (pat.empty()) internal("the dialect " + d_.name + " has no GPU index " + e->name);
      std::string c(1, "xyz"[e->index]);
      // A pattern is a primary expression or a cast of one: it binds like a unary operator.
      return {fmt::format(fmt::runtime(pat), fmt::arg("d", e->index), fmt::arg("c", c)), kUnary};
    }
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
      // The condition as a bool: a floating one compared with 0 (OpenCL C takes no floating
      // condition; NaN is true, as in the reference).
      Out c = expr(e->args[0]);
      if (e->args[0]->type == ScalarType::Float || e->args[0]->type == ScalarType::Double)
        c = infix(c, Out{"0", kPrimary}, "!=", kEq);
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
      if (e->type == ScalarType::Int &&
          (e->args[0]->type == ScalarType::Float || e->args[0]->type == ScalarType::Double))
        return toInt(a, e->args[0]->type);
      return castTo(lir::ctypeOf(e->type), a);
    }
  }
  internal("unknown expression kind");
}

// ---- statements ----------------------------------------------------------------------------

std::string Printer::pointerType(CType t, bool constData) const {
  std::string s = d_.types.pointerAddressSpace.empty() ? "" : d_.types.pointerAddressSpace + " ";
  if (constData) s += "const ";
  s += (t == CType::Bool && !d_.types.boolStorage.empty() ? d_.types.boolStorage : d_.typeName(t)) +
       "*";
  if (!d_.types.restrictQualifier.empty()) s += " " + d_.types.restrictQualifier;
  return s;
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
          pragma = &d_.loopPragmas.parallel;
          break;
        case lir::LoopKind::Simd:
          pragma = &d_.loopPragmas.simd;
          break;
        case lir::LoopKind::ParallelSimd:
          pragma = &d_.loopPragmas.parallelSimd;
          break;
        case lir::LoopKind::Unrolled:
          pragma = &d_.loopPragmas.unrolled;
          break;
      }
      if (s->rolled && s->loop == lir::LoopKind::Serial) pragma = &d_.loopPragmas.rolled;
      if (pragma && !pragma->empty()) out += pad + *pragma + "\n";
      std::string inc =
          s->step ? fmt::format("{} += {}", s->name, expr(s->step).s) : "++" + s->name;
      out += fmt::format("{}for ({} {} = {}; {} <= {}; {}) {{\n", pad, d_.typeName(CType::Int64),
                         s->name, expr(s->lo).s, s->name, expr(s->hi).s, inc);
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
      addLines(
          fmt::format(fmt::runtime(d_.host.allocPattern), fmt::arg("type", d_.typeName(s->type)),
                      fmt::arg("name", s->name), fmt::arg("count", expr(s->value).s),
                      fmt::arg("restrict", d_.types.restrictQualifier)),
          pad, "", out);
      return;
    case StmtKind::Copy:
      addLines(fmt::format(fmt::runtime(d_.host.copyPattern),
                           fmt::arg("type", d_.typeName(s->type)), fmt::arg("dst", s->name),
                           fmt::arg("src", s->source), fmt::arg("count", expr(s->value).s)),
               pad, "", out);
      return;
    case StmtKind::Call: {
      std::vector<Out> args;
      for (auto& a : s->args) args.push_back(expr(a));
      out += breakCode(pad + fnCall(s->name, args).s + ";", pad);
      return;
    }
    case StmtKind::ResetStatus:
      addLines(ex_.status(d_.status.reset), pad, "", out);
      return;
    case StmtKind::Barrier:
      if (d_.kernels.barrier.empty()) internal("the dialect " + d_.name + " has no barrier");
      out += pad + d_.kernels.barrier + "\n";
      return;
    case StmtKind::Launch:
      launch(*s, pad, out);
      return;
    case StmtKind::Return: {
      bool hasValue = s->status || s->value;
      if (fn_ && hasValue != fn_->result.has_value())
        internal("a return " + std::string(hasValue ? "with" : "without") +
                 " a value in function '" + fn_->name + "'");
      if (fn_ && s->status && *fn_->result != CType::Int32)
        internal("function '" + fn_->name + "' returns the error status, not an int32");
      std::string v = s->status  ? " " + ex_.status(d_.status.read)
                      : s->value ? " " + expr(s->value).s
                                 : "";
      out += breakCode(pad + "return" + v + ";", pad);
      return;
    }
  }
  internal("unknown statement kind");
}

void Printer::launch(const lir::Stmt& s, const std::string& pad, std::string& out) {
  if (d_.host.launchPattern.empty()) internal("the dialect " + d_.name + " cannot launch kernels");
  std::string args;
  for (size_t k = 0; k < s.args.size(); ++k) {
    const lir::Param& p = s.kernelParams[k];
    const ExprPtr& a = s.args[k];
    std::string text;
    if (p.pointer) {
      text = fmt::format(fmt::runtime(d_.host.bufferArgPattern), fmt::arg("name", a->name));
    } else {
      // Passed as the kernel parameter's exact type: a Var of that type as it is (an Int Var
      // is an int64), anything else converted.
      CType natural = a->type == ScalarType::Int ? CType::Int64 : lir::ctypeOf(a->type);
      Out o = expr(a);
      text = a->kind == ExprKind::Var && natural == p.type ? o.s : ex_.castTo(p.type, o).s;
    }
    args += ", " + text;
  }
  std::string g[3] = {"1", "1", "1"}, b[3] = {"1", "1", "1"};
  for (size_t d = 0; d < s.grid.size(); ++d) {
    g[d] = expr(s.grid[d]).s;
    b[d] = expr(s.blockShape[d]).s;
  }
  std::string text =
      fmt::format(fmt::runtime(d_.host.launchPattern), fmt::arg("id", s.value->ival),
                  fmt::arg("name", s.name), fmt::arg("dims", s.grid.size()), fmt::arg("gx", g[0]),
                  fmt::arg("gy", g[1]), fmt::arg("gz", g[2]), fmt::arg("bx", b[0]),
                  fmt::arg("by", b[1]), fmt::arg("bz", b[2]), fmt::arg("args", args));
  out += breakCode(pad + text, pad);
}

std::string ExprPrinter::status(const std::string& pattern, const std::string& code) {
  if (pattern.empty()) internal("the dialect " + d_.name + " has no error status");
  usesStatus = true;
  return fmt::format(fmt::runtime(pattern), fmt::arg("name", d_.statusName),
                     fmt::arg("code", code));
}

std::string Printer::function(const lir::Function& f) {
  if (f.intBits == 32 && !index32_) {
    // A kernel with 32-bit ints: the same printer over the dialect's 32-bit spellings; what
    // it needs at the top of the file is this file's.
    const Dialect narrow = index32Dialect(d_);
    Printer p(narrow);
    p.index32_ = true;
    std::string out = p.function(f);
    ex_.helpers |= p.ex_.helpers;
    ex_.usesStatus = ex_.usesStatus || p.ex_.usesStatus;
    return out;
  }
  if (f.intBits != 32 && f.intBits != 64)
    internal(fmt::format("function '{}' has {}-bit ints", f.name, f.intBits));
  fn_ = &f;
  std::string out;
  if (!f.comment.empty()) addLines(f.comment, "", "// ", out, true);
  std::vector<std::string> params;
  for (auto& p : f.params) {
    std::string scalar = p.type == CType::Bool && !d_.types.boolStorage.empty()
                             ? d_.types.boolStorage
                             : d_.typeName(p.type);
    params.push_back(!p.opaqueType.empty() ? p.opaqueType + " " + p.name
                     : p.slots             ? "void* const* " + p.name
                     : p.pointer           ? pointerType(p.type, p.constData) + " " + p.name
                                           : "const " + scalar + " " + p.name);
  }
  bool kernel = f.linkage == lir::Linkage::Kernel;
  if (kernel && (f.result || d_.functions.kernel.empty()))
    internal("kernel '" + f.name + "' in dialect " + d_.name);
  if (!kernel && (!f.shared.empty() || f.requiredBlock[0] > 0))
    internal("shared arrays or a required block in function '" + f.name + "', not a kernel");
  std::string q = f.linkage == lir::Linkage::Internal  ? d_.functions.internal
                  : f.linkage == lir::Linkage::ExternC ? d_.functions.externC
                  : kernel                             ? d_.functions.kernel
                                                       : d_.functions.external;
  std::string result = f.result ? d_.typeName(*f.result) : "void";
  if (f.requiredBlock[0] > 0) {
    const auto& b = f.requiredBlock;
    if (d_.kernels.launchBoundsPattern.empty() || b[1] < 1 || b[2] < 1)
      internal("required block of kernel '" + f.name + "' in dialect " + d_.name);
    const std::string& pattern = f.minBlocksPerSm > 0 ? d_.kernels.launchBoundsMinBlocksPattern
                                                      : d_.kernels.launchBoundsPattern;
    std::string lb = fmt::format(fmt::runtime(pattern), fmt::arg("x", b[0]), fmt::arg("y", b[1]),
                                 fmt::arg("z", b[2]), fmt::arg("threads", b[0] * b[1] * b[2]),
                                 fmt::arg("minBlocks", f.minBlocksPerSm));
    // A register cap replaces the launch bounds where the dialect has one (CUDA).
    if (f.maxRegisters > 0 && !d_.kernels.maxRegistersPattern.empty())
      lb = fmt::format(fmt::runtime(d_.kernels.maxRegistersPattern), fmt::arg("n", f.maxRegisters));
    if (d_.kernels.launchBoundsAfterResult)
      result += " " + lb;
    else
      q += (q.empty() ? "" : " ") + lb;
  }
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
  for (auto& p : f.params)
    if (p.maybeUnused) out += "  (void)" + p.name + ";\n";
  // Beyond the dialect's static limit: one dynamic allocation, carved into the arrays.
  const int64_t dynamic = dynamicSharedBytes(f, d_);
  if (dynamic > 0) {
    const std::string base = "tessel_dynamic_shared";
    out += fmt::format(
        "  // {} bytes of shared memory, beyond the {} bytes a kernel may declare "
        "statically:\n  // dynamic shared memory (the launch gives its size).\n",
        dynamic, d_.kernels.staticSharedLimit);
    out += "  " +
           fmt::format(fmt::runtime(d_.kernels.dynamicSharedPattern), fmt::arg("name", base)) +
           "\n";
    const std::vector<int64_t> offsets = dynamicSharedOffsets(f);
    for (size_t k = 0; k < f.shared.size(); ++k)
      out += "  " +
             fmt::format(fmt::runtime(d_.kernels.dynamicSharedArrayPattern),
                         fmt::arg("type", d_.typeName(f.shared[k].type)),
                         fmt::arg("name", f.shared[k].name), fmt::arg("base", base),
                         fmt::arg("offset", offsets[k])) +
             "\n";
  }
  for (auto& a : f.shared) {
    if (dynamic > 0) break;
    if (d_.kernels.sharedArrayPattern.empty())
      internal("the dialect " + d_.name + " has no shared memory");
    std::string t = a.type == CType::Bool && !d_.types.boolStorage.empty() ? d_.types.boolStorage
                                                                           : d_.typeName(a.type);
    out += "  " +
           fmt::format(fmt::runtime(d_.kernels.sharedArrayPattern), fmt::arg("type", t),
                       fmt::arg("name", a.name), fmt::arg("count", a.count)) +
           "\n";
  }
  if (f.body->kind == StmtKind::Block) {
    for (auto& c : f.body->body) stmt(c, 1, out);
  } else {
    stmt(f.body, 1, out);
  }
  fn_ = nullptr;
  return out + "}\n";
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

std::string CLikeEmitter::emitExpr(const ExprPtr& e) const { return ExprPrinter(d_).expr(e).s; }

}  // namespace tessel
