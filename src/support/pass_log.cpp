#include "support/pass_log.h"

#include <fmt/format.h>

#include <ostream>

namespace tessel {

void PassLog::check(const std::string& name, const std::function<void()>& pass,
                    const std::function<std::string()>& show) {
  auto t0 = std::chrono::steady_clock::now();
  pass();
  times_.emplace_back(name, seconds(t0));
  if (wantsIr(name)) dump(name, show());
}

bool PassLog::wantsIr(const std::string& pass) const {
  return out_ && (opts_.printAfterAll || opts_.printAfter.count(pass) > 0);
}

double PassLog::seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void PassLog::dump(const std::string& pass, const std::string& ir) {
  *out_ << "// -----// IR Dump After " << pass << " //----- //\n" << ir << "\n";
}

std::string PassLog::timingReport() const {
  double total = 0;
  for (auto& [name, s] : times_) total += s;
  std::string out = "===-------------------------------------------------------------------===\n";
  out += "                         ... Pass execution timing report ...\n";
  out += "===-------------------------------------------------------------------===\n";
  out += fmt::format("  Total Execution Time: {:.4f} seconds\n\n", total);
  out += "  ----Wall Time----  ----Name----\n";
  for (auto& [name, s] : times_)
    out += fmt::format("    {:.4f} ({:5.1f}%)  {}\n", s, total > 0 ? 100.0 * s / total : 0.0, name);
  out += fmt::format("    {:.4f} (100.0%)  Total\n", total);
  return out;
}

}  // namespace tessel
