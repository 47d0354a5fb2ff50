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
  for (auto& d : diags_)
    if (d.id == id && d.loc.file == loc.file && d.loc.offset == loc.offset &&
        d.message == message)
      return d;
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
    std::string_view text = loc.file->lineText(line);
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

static size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closestName(const std::string& name,
                                       const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t bestD = std::max<size_t>(1, name.size() / 3) + 1;
  for (auto& c : candidates) {
    size_t d = editDistance(name, c);
    if (d < bestD) bestD = d, best = c;
  }
  return best;
}

}  // namespace tessel
