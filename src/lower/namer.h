// Namer: hands out C identifiers for generated code.
#pragma once

#include <fmt/format.h>

#include <set>
#include <string>

namespace tessel {

/// Unique names in one scope: never a reserved word, never reserved by C or C++ (a leading
/// underscore or a double underscore). Copy a Namer to open an inner scope that still avoids
/// every name of the outer one, or take inner() where the outer scope is large and outlives the
/// inner one: it refers to the outer scope instead of copying its names (a program of thousands
/// of calls has thousands of kernel names in the program's scope, and copying them per call and
/// statement made lowering quadratic in the calls).
class Namer {
 public:
  void reserve(const std::string& n) { used_.insert(n); }
  /// Names starting with `p` are avoided too (a header's macros: CL_, CUDA...): they get a `v`.
  void reservePrefix(const std::string& p) { prefixes_.insert(p); }
  bool taken(const std::string& n) const {
    return used_.count(n) != 0 || (outer_ && outer_->taken(n));
  }
  /// A scope inside this one, which must outlive it: it avoids every name this one has (also
  /// those it takes later), and what it takes stays its own.
  Namer inner() const {
    Namer n;
    n.outer_ = this;
    n.prefixes_ = prefixes_;
    return n;
  }
  /// A name for a buffer whose allocation also declares `<name>_storage` (cppDialect's alloc).
  std::string takeBuffer(const std::string& want) {
    std::string n = take(want);
    while (taken(n + "_storage")) n = take(want);
    used_.insert(n + "_storage");
    return n;
  }
  std::string take(const std::string& want) {
    std::string base;
    for (char c : want)
      if (!(c == '_' && !base.empty() && base.back() == '_')) base += c;
    bool prefixed = false;
    for (auto& p : prefixes_) prefixed = prefixed || base.rfind(p, 0) == 0;
    if (base.empty() || base[0] == '_' || prefixed) base = "v" + base;
    std::string n = base;
    for (int k = 2; taken(n); ++k)
      n = fmt::format("{}{}{}", base, base.back() == '_' ? "" : "_", k);
    used_.insert(n);
    return n;
  }

 private:
  std::set<std::string> used_, prefixes_;
  const Namer* outer_ = nullptr;  // inner(): the scope this one is inside
};

}  // namespace tessel
