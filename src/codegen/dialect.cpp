#include "codegen/dialect.h"

#include <set>

#include "ir/expr.h"

namespace tessel {

std::string Dialect::mathName(const std::string& fn, ScalarType t) const {
  auto it = math.overrides.find(fn);
  if (it != math.overrides.end()) {
    const std::string& n = t == ScalarType::Float    ? it->second.floatName
                           : t == ScalarType::Double ? it->second.doubleName
                                                     : it->second.intName;
    if (!n.empty()) return n;
  }
  if (t != ScalarType::Float || math.overloaded) return fn;
  return fn + math.floatSuffix;
}

std::vector<std::string> Dialect::mathNames() const {
  std::set<std::string> names;
  std::vector<std::string> fns = mathFunctionNames();
  fns.push_back("fmod");  // floating `%`
  for (auto& fn : fns)
    for (auto t : {ScalarType::Int, ScalarType::Float, ScalarType::Double}) {
      std::string n = mathName(fn, t);
      if (n.find("::") == std::string::npos) names.insert(n);
    }
  return {names.begin(), names.end()};
}

Dialect cppDialect() {
  Dialect d;
  d.name = "C++/OpenMP";
  d.prelude = {"#include <algorithm>", "#include <atomic>",  "#include <cmath>",
               "#include <cstdint>",   "#include <cstdlib>", "#include <cstring>",
               "#include <memory>"};
  d.types.names = {"bool", "int32_t", "int64_t", "float", "double"};
  d.types.restrictQualifier = "__restrict";
  d.loopPragmas.parallel = "#pragma omp parallel for schedule(static)";
  d.loopPragmas.simd = "#pragma omp simd";
  d.loopPragmas.parallelSimd = "#pragma omp parallel for simd schedule(static)";
  d.host.allocPattern =
      // Not zero-filled: the region rules guarantee every element read was written first.
      "std::unique_ptr<{type}[]> {name}_storage(new {type}[{count}]);  // uninitialised\n"
      "{type}* {restrict} {name} = {name}_storage.get();";
  d.host.copyPattern = "std::memcpy({dst}, {src}, sizeof({type}) * ({count}));";
  // Set from any OpenMP thread: an atomic, relaxed (the join of the parallel region orders it
  // before the entry point reads it).
  d.status.decl = "static std::atomic<int> {name}(0);";
  d.status.record =
      "int none = 0;\n"
      "{name}.compare_exchange_strong(none, {code}, std::memory_order_relaxed);";
  d.status.reset = "{name}.store(0, std::memory_order_relaxed);";
  d.status.read = "{name}.load(std::memory_order_relaxed)";
  d.math.overrides = {
      {"abs", {"std::abs", "fabsf", "fabs"}},
      // fmin/fmax like the reference interpreter (a NaN operand is ignored)
      {"min", {"std::min<int64_t>", "fminf", "fmin"}},
      {"max", {"std::max<int64_t>", "fmaxf", "fmax"}},
  };
  // clang-format off
  d.reservedWords = {
      // C++ keywords and alternative tokens
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // library names and macros the generated code relies on
      "std", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
      "uint64_t", "size_t", "ptrdiff_t", "NULL", "INFINITY", "NAN", "HUGE_VAL", "errno", "assert",
      "memcpy", "main", "min", "max", "abs", "fmod", "pow", "fma", "fmaf",
  };
  // clang-format on
  return d;
}

std::vector<int64_t> dynamicSharedOffsets(const lir::Function& f) {
  std::vector<int64_t> out;
  int64_t at = 0;
  for (const lir::SharedArray& a : f.shared) {
    out.push_back(at);
    at += (a.count * lir::byteSize(a.type) + 15) / 16 * 16;
  }
  out.push_back(at);  // the end: the allocation's size
  return out;
}

int64_t dynamicSharedBytes(const lir::Function& f, const Dialect& d) {
  if (d.kernels.staticSharedLimit <= 0 || d.kernels.dynamicSharedPattern.empty()) return 0;
  int64_t declared = 0;
  for (const lir::SharedArray& a : f.shared) declared += a.count * lir::byteSize(a.type);
  if (declared <= d.kernels.staticSharedLimit) return 0;
  return dynamicSharedOffsets(f).back();
}

Dialect index32Dialect(const Dialect& d) {
  Dialect n = d;
  n.name = d.name + " (32-bit indices)";
  n.types.names[static_cast<int>(lir::CType::Int64)] = d.typeName(lir::CType::Int32);
  if (!d.kernels.intrinsicPatterns32[0].empty())
    n.kernels.intrinsicPatterns = d.kernels.intrinsicPatterns32;
  for (const auto& [fn, name] : d.kernels.intMath32) n.math.overrides[fn].intName = name;
  return n;
}

}  // namespace tessel
