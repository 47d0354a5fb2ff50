// The one diagnostics engine: `file:line:col: error: message`, the source line, a caret, a hint.
#pragma once

#include <fmt/format.h>

#include <deque>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "support/source.h"

namespace tessel {

enum class Severity { Error, Warning, Note };

enum class DiagId {
#define DIAG(id, sev) id,
#include "support/diag_ids.def"
#undef DIAG
};

const char* diagIdName(DiagId id);
Severity diagIdSeverity(DiagId id);
/// All identifiers, in declaration order (for the coverage test).
std::vector<DiagId> allDiagIds();

struct Diagnostic {
  DiagId id;
  Severity severity;
  SourceLoc loc;
  std::string message;
  std::string hint;                                      // may be empty
  std::vector<std::pair<SourceLoc, std::string>> notes;  // secondary locations
};

/// Collects diagnostics; printing is separate so tests can inspect them.
class DiagnosticEngine {
 public:
  Diagnostic& report(DiagId id, SourceLoc loc, std::string message, std::string hint = {});
  template <typename... Args>
  Diagnostic& error(DiagId id, SourceLoc loc, fmt::format_string<Args...> f, Args&&... args) {
    return report(id, loc, fmt::format(f, std::forward<Args>(args)...));
  }
  bool hasErrors() const { return errorCount_ > 0; }
  int errorCount() const { return errorCount_; }
  const std::deque<Diagnostic>& diagnostics() const { return diags_; }
  std::deque<Diagnostic>& diagnostics() { return diags_; }
  /// Renders every diagnostic (with source line and caret) to `out`.
  void print(std::ostream& out) const;
  static std::string render(const Diagnostic& d);

 private:
  std::deque<Diagnostic> diags_;  // stable references: report() hands them out
  std::map<std::tuple<int, const SourceFile*, uint32_t, std::string>, size_t> seen_;
  int errorCount_ = 0;
};

/// Thrown to abandon compilation after a fatal error has been reported to the engine.
struct CompilationAborted {};

/// The closest candidate to `name` by edit distance, if any is close enough to suggest.
std::optional<std::string> closestName(const std::string& name,
                                       const std::vector<std::string>& candidates);

}  // namespace tessel
