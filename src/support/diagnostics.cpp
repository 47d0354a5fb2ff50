#include "support/diagnostics.h"

#include <algorithm>
#include <ostream>

namespace tessel {

const char* diagIdName(DiagId id) {
  switch (id) {
#define DIAG(i, sev) \
  case DiagId::i:    \
    return #i;
#include "support/diag_ids.def"
#undef DIAG
  }
  return "?";
}

Severity diagIdSeverity(DiagId id) {
  switch (id) {
#define DIAG(i, sev) \
  case DiagId::i:    \
    return Severity::sev;
#include "support/diag_ids.def"
#undef DIAG
  }
  return Severity::Error;
}

std::vector<DiagId> allDiagIds() {
  return {
#define DIAG(i, sev) DiagId::i,
#include "support/diag_ids.def"
#undef DIAG
  };
}

Diagnostic& DiagnosticEngine::report(DiagId id, SourceLoc loc, std::string message,
                                     std::string hint) {
  // The same message at the same place (e.g. one body instantiated by two calls) is said once.
  auto key = std::make_tuple(static_cast<int>(id), loc.file, loc.offset, message);
  if (auto it = seen_.find(key); it != seen_.end()) return diags_[it->second];
  seen_.emplace(std::move(key), diags_.size());
  Severity sev = diagIdSeverity(id);
  if (sev == Severity::Error) ++errorCount_;
  diags_.push_back(Diagnostic{id, sev, loc, std::move(message), std::move(hint), {}});
  return diags_.back();
}

static std::string renderOne(const char* kind, SourceLoc loc, const std::string& msg) {
  std::string s;
  if (loc.valid()) {
    auto [line, col] = loc.file->lineCol(loc.offset);
    s += fmt::format("{}:{}:{}: {}: {}\n", loc.file->name(), line, col, kind, msg);
    // A carriage return inside the line (a lone '\r', not a CRLF ending) would send the
    // terminal back to the line's start: shown as a space, so the caret stays under its column.
    std::string text(loc.file->lineText(line));
    std::replace(text.begin(), text.end(), '\r', ' ');
    s += fmt::format("  {}\n  ", text);
    for (int c = 1; c < col && c - 1 < static_cast<int>(text.size()); ++c)
      s += text[c - 1] == '\t' ? '\t' : ' ';
    s += "^\n";
  } else {
    s += fmt::format("tessel: {}: {}\n", kind, msg);
  }
  return s;
}

std::string DiagnosticEngine::render(const Diagnostic& d) {
  const char* kind = d.severity == Severity::Error     ? "error"
                     : d.severity == Severity::Warning ? "warning"
                                                       : "note";
  std::string s = renderOne(kind, d.loc, d.message);
  if (!d.hint.empty()) s += fmt::format("  hint: {}\n", d.hint);
  for (auto& [loc, msg] : d.notes) s += renderOne("note", loc, msg);
  return s;
}

void DiagnosticEngine::print(std::ostream& out) const {
  for (auto& d : diags_) out << render(d);
}

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
// adjacent characters each cost 1 (so 'inptu' is one edit from 'input').
static size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::optional<std::string> closestName(const std::string& name,
                                       const std::vector<std::string>& candidates) {
  // One-letter names are too short for a guess to mean anything; short names allow one edit.
  if (name.size() < 2 || name.size() > 64) return std::nullopt;
  std::optional<std::string> best;
  size_t bestD = (name.size() <= 5 ? 1 : name.size() / 3) + 1;
  for (auto& c : candidates) {
    size_t d = editDistance(name, c);
    if (d < bestD) bestD = d, best = c;
  }
  return best;
}

}  // namespace tessel
