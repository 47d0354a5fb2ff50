// The pass log: what `--print-ir-after-all`, `--print-ir-after=PASS` and `--time-passes` show,
// in the style of MLIR's pass manager. The pipeline (lower/lower.h) runs each pass through run(),
// so printing and timing come from here, not from the passes. A value, passed down: no global
// state.
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tessel {

struct PassOptions {
  bool printAfterAll = false;        // --print-ir-after-all
  std::set<std::string> printAfter;  // --print-ir-after=PASS (repeatable)
  bool timePasses = false;           // --time-passes
};

class PassLog {
 public:
  /// A log that prints nothing and only keeps the timings.
  PassLog() = default;
  /// Prints the IR dumps to `out` as they happen (the driver gives stderr).
  PassLog(PassOptions opts, std::ostream& out) : opts_(std::move(opts)), out_(&out) {}

  /// Runs `pass`, times it, and when asked prints `show(result)` after it.
  template <class Pass, class Show>
  auto run(const std::string& name, Pass&& pass, Show&& show) {
    auto t0 = std::chrono::steady_clock::now();
    auto result = pass();
    times_.emplace_back(name, seconds(t0));
    if (wantsIr(name)) dump(name, show(result));
    return result;
  }
  /// A pass that checks and changes nothing (a verifier): timed; when asked, the IR it checked
  /// (`show()`) is printed after it like any other pass's.
  void check(const std::string& name, const std::function<void()>& pass,
             const std::function<std::string()>& show);

  bool wantsIr(const std::string& pass) const;
  /// Each pass with its time, as run so far (a pass run twice appears twice).
  const std::vector<std::pair<std::string, double>>& times() const { return times_; }
  /// The `--time-passes` report: one line per pass, its wall time and share, and the total.
  std::string timingReport() const;
  bool timePasses() const { return opts_.timePasses; }

 private:
  PassOptions opts_;
  std::ostream* out_ = nullptr;
  std::vector<std::pair<std::string, double>> times_;

  static double seconds(std::chrono::steady_clock::time_point t0);
  void dump(const std::string& pass, const std::string& ir);
};

}  // namespace tessel
