// Namer: hands out C identifiers for generated code.
#pragma once

#include <fmt/format.h>

#include <set>
#include <string>

namespace tessel {

/// Unique names in one scope: never a reserved word, never reserved by C or C++ (a leading
/// underscore or a double underscore). Copy a Namer to open an inner scope that still avoids
/// every name of the outer one.
class Namer {
 public:
  void reserve(const std::string& n) { used_.insert(n); }
  /// Names starting with `p` are avoided too (a header's macros: CL_, CUDA...): they get a `v`.
  void reservePrefix(const std::string& p) { prefixes_.insert(p); }
  bool taken(const std::string& n) const { return used_.count(n) != 0; }
  /// A name for a buffer whose allocation also declares `<name>_storage` (cppDialect's alloc).
  std::string takeBuffer(const std::string& want) {
    std::string n = take(want);
    while (used_.count(n + "_storage")) n = take(want);
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
    for (int k = 2; used_.count(n); ++k)
      n = fmt::format("{}{}{}", base, base.back() == '_' ? "" : "_", k);
    used_.insert(n);
    return n;
  }

 private:
  std::set<std::string> used_, prefixes_;
};

}  // namespace tessel
