// Text layout of generated code, and the helpers generated code calls (emitter_support.h).
#include "codegen/emitter_support.h"

#include <fmt/format.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace tessel::emit {

namespace {

[[noreturn]] void internal(const std::string& what) {
  throw std::logic_error("internal error: emitter: " + what);
}

}  // namespace

// Word-wraps comment text: each line of `text` becomes one or more `pad + prefix + words` lines.
void addLines(const std::string& text, const std::string& pad, const std::string& prefix,
              std::string& out, bool wrapWords) {
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

std::string withWrittenBy(std::string source, const std::string& command) {
  if (command.empty() || command.find_first_of("\r\n") != std::string::npos) return source;
  const std::string mark = "Do not edit; regenerate.\n";
  const size_t at = source.find(mark);
  if (at != std::string::npos) source.insert(at + mark.size(), "// Written by: " + command + "\n");
  return source;
}

// Breaks a long line of code before a binary operator (or after a comma) outside subscripts,
// preferring the shallowest parenthesis depth; continuation lines are indented four more.
std::string breakCode(std::string line, const std::string& pad) {
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

std::string helperDefinitions(const Dialect& d, unsigned helpers, bool usesStatus) {
  auto status = [&](const std::string& pattern, const std::string& code = "") {
    if (pattern.empty()) internal("the dialect " + d.name + " has no error status");
    return fmt::format(fmt::runtime(pattern), fmt::arg("name", d.statusName),
                       fmt::arg("code", code));
  };
  std::string statusParamDecl =
      d.status.param.empty()
          ? ""
          : fmt::format(fmt::runtime(d.status.param), fmt::arg("name", d.statusName)) + ", ";
  // Written in the common subset of C, C++, CUDA and OpenCL C; {q} is the dialect's helper
  // qualifier, {i}/{u} its 64-bit signed/unsigned integer types, {div}/{mod}/{pow} the
  // lir::Status codes of their errors.
  std::string out;
  if (helpers & kIpow)
    out +=
        "// Integer power (`^` on ints): 64-bit, wrapping on overflow. A negative exponent is an\n"
        "// error (recorded; the value is that of 1 / b^-e, truncated).\n"
        "{q} {i} tessel_ipow{x}({sp}{i} b, {i} e) {{\n"
        "  if (e < 0) {{\n"
        "    tessel_fail{x}({sa}{pow});\n"
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
        "{q} {i} tessel_idiv{x}({sp}{i} a, {i} b) {{\n"
        "  if (b == 0) {{\n"
        "    tessel_fail{x}({sa}{div});\n"
        "    return 0;\n"
        "  }}\n"
        "  return b == -1 ? ({i})(0u - ({u})a) : a / b;\n"
        "}}\n";
  if (helpers & kImod)
    out +=
        "{q} {i} tessel_imod{x}({sp}{i} a, {i} b) {{\n"
        "  if (b == 0) {{\n"
        "    tessel_fail{x}({sa}{mod});\n"
        "    return 0;\n"
        "  }}\n"
        "  return b == -1 ? 0 : a % b;\n"
        "}}\n";
  if (helpers & (kIdiv | kImod)) out += "\n";
  // Floating to int as the reference interpreter converts (language.md section 12): truncated
  // toward zero, then wrapped modulo 2^32, exact for every finite value; NaN and infinities give
  // 0. (A C cast of a value outside the int range is undefined: compilers clamp or wrap.)
  if (helpers & (kToIntF | kToIntD))
    out +=
        "// A floating value converted to a language int: truncated toward zero, then wrapped\n"
        "// modulo 2^32 (exact for every finite value); NaN and infinities give 0.\n";
  if (helpers & kToIntF)
    out +=
        "{q} {i32} tessel_toint_f{x}(float x) {{\n"
        "  if (!(x - x == 0.0f)) return 0;  // NaN or an infinity\n"
        "  // From 2^63 on a float is a multiple of 2^40: 0 modulo 2^32.\n"
        "  if (x >= 9223372036854775808.0f || x <= -9223372036854775808.0f) return 0;\n"
        "  return ({i32})({u})({i})x;\n"
        "}}\n";
  if (helpers & kToIntD)
    out +=
        "{q} {i32} tessel_toint_d{x}(double x) {{\n"
        "  if (!(x - x == 0.0)) return 0;  // NaN or an infinity\n"
        "  // From 2^63 on a double is an integer: its remainder modulo 2^32 is exact.\n"
        "  if (x >= 9223372036854775808.0 || x <= -9223372036854775808.0) x = fmod(x, "
        "4294967296.0);\n"
        "  return ({i32})({u})({i})x;\n"
        "}}\n";
  if (helpers & (kToIntF | kToIntD)) out += "\n";
  // The status and tessel_fail, which every helper calls; the dialect spells the status.
  std::string head;
  if (helpers & kFallibleHelpers) {
    head =
        "// Records run-time error `code` of the program, unless one is recorded already; the\n"
        "// entry point returns it. Nothing traps: the helpers below return a value and the\n"
        "// program runs on (its arrays then hold unspecified values).\n";
    if (!d.functions.helper.empty()) head += d.functions.helper + " ";
    head += "void tessel_fail" + d.functions.helperSuffix + "(" + statusParamDecl + "int code) {\n";
    addLines(status(d.status.record, "code"), "  ", "", head);
    head += "}\n\n";
  }
  if ((usesStatus || (helpers & kFallibleHelpers)) && d.status.param.empty()) {
    std::string decl =
        "// The error status: 0, or the first run-time error the program met (set by the "
        "helpers).\n";
    addLines(status(d.status.decl), "", "", decl);
    head = decl + "\n" + head;
  }
  auto code = [](lir::Status st) { return static_cast<int>(st); };
  return head + fmt::format(fmt::runtime(out), fmt::arg("q", d.functions.helper),
                            fmt::arg("i", d.typeName(lir::CType::Int64)),
                            fmt::arg("i32", d.typeName(lir::CType::Int32)),
                            fmt::arg("x", d.functions.helperSuffix), fmt::arg("u", d.types.uint64),
                            fmt::arg("sp", statusParamDecl),
                            fmt::arg("sa", d.status.param.empty() ? "" : d.statusName + ", "),
                            fmt::arg("div", code(lir::Status::IntDivisionByZero)),
                            fmt::arg("mod", code(lir::Status::IntRemainderByZero)),
                            fmt::arg("pow", code(lir::Status::NegativeExponent)));
}

}  // namespace tessel::emit
