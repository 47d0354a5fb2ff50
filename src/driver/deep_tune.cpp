// `tessel deep-tune` (deep_tune.h).
#include "driver/deep_tune.h"

#include <fmt/format.h>

#include "analysis/counts.h"
#include "driver/analyze.h"
#include "driver/params.h"
#include "model/fusion_degree.h"

namespace tessel {

namespace {

/// Fusion lowers traffic; a version bound by anything else gains nothing from more of it.
bool bandwidthBound(const std::string& bound) { return bound != "compute" && bound != "latency"; }

/// A prediction's kernels that run fused steps, and the others.
bool fusedKernel(const nlohmann::json& k) { return k["fused_calls"].get<size_t>() > 0; }

}  // namespace

std::optional<nlohmann::json> deepTune(const Program& prog, const DeepTuneOptions& opts,
                                       DiagnosticEngine& diags) {
  auto params = bindParams(prog, opts.params, diags);
  if (!params) return std::nullopt;
  std::map<std::string, std::string> flags = opts.scheduleFlags;
  std::string& family = flags["--schedule"];
  if (family.empty()) family = prog.dims() > 1 ? "stream" : "overlapped";
  if (family != "stream" && family != "overlapped") {
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("deep-tune: --schedule {} fuses no time steps", family),
                 "use --schedule stream (stream + time_tile, the default) or overlapped");
    return std::nullopt;
  }
  if (!flags["--time-tile"].empty()) {
    diags.report(DiagId::bad_schedule, {},
                 "deep-tune: --time-tile is what deep-tune chooses (it tries 1, 2, ...)",
                 "leave --time-tile out; --max-fuse bounds the degrees tried");
    return std::nullopt;
  }
  if (opts.steps < 1 || opts.maxFuse < 1) {
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("deep-tune: --steps {} and --max-fuse {}: both must be at least 1",
                             opts.steps, opts.maxFuse),
                 "give the number of time steps to run, e.g. --steps 13");
    return std::nullopt;
  }
  // A step is one execution of a call; the run's steps at these parameter values.
  const double runSteps = static_cast<double>(programWork(prog, *params).callsExecuted);
  nlohmann::json out = {{"family", family},
                        {"steps", opts.steps},
                        {"run_steps", runSteps},
                        {"versions", nlohmann::json::array()}};
  std::vector<double> f;
  double perStatementUpdates = 0;  // per step, in the version of degree 1
  for (int x = 1; x <= opts.maxFuse; ++x) {
    flags["--time-tile"] = x == 1 ? "" : std::to_string(x);
    std::string why;
    auto p = predictUnder(prog, flags, *params, opts.ptxas, diags, nullptr, &why);
    if (!p) {
      out["stopped"] = fmt::format("{} x 1 is refused: {}", x, why);
      break;
    }
    out["machine"] = (*p)["machine"];
    // The version's time per step: degree 1 runs every step per statement; a fused version's
    // steps are those its fused kernels cover (the run's steps minus those left per statement,
    // counted by their updates).
    double fusedSeconds = 0, otherUpdates = 0, allSeconds = 0, allUpdates = 0;
    std::string bound;
    double most = -1;
    for (const auto& k : (*p)["kernels"]) {
      const double s = k["seconds"], u = k["updates"];
      allSeconds += s;
      allUpdates += u;
      if (x > 1 && fusedKernel(k)) {
        fusedSeconds += s;
        if (s > most) most = s, bound = k["bound"];
      } else {
        otherUpdates += u;
        if (x == 1 && s > most) most = s, bound = k["bound"];
      }
    }
    if (runSteps <= 0 || allUpdates <= 0) {
      out["stopped"] = "the run computes nothing at these parameter values";
      break;
    }
    double seconds = 0;
    if (x == 1) {
      perStatementUpdates = allUpdates / runSteps;
      seconds = allSeconds / runSteps;
    } else {
      const double fusedSteps = runSteps - otherUpdates / perStatementUpdates;
      if (fusedSeconds <= 0 || fusedSteps < x - 0.5) {
        std::string note;
        for (const auto& n : (*p)["notes"])
          if (n.get<std::string>().find("time_tile") != std::string::npos ||
              n.get<std::string>().find("per statement") != std::string::npos)
            note = n;
        out["stopped"] = fmt::format("{} x 1 fuses nothing{}", x, note.empty() ? "" : ": " + note);
        break;
      }
      seconds = fusedSeconds / fusedSteps * x;
    }
    f.push_back(seconds);
    out["versions"].push_back(
        {{"degree", x}, {"seconds", seconds}, {"seconds_per_step", seconds / x}, {"bound", bound}});
    if (!bandwidthBound(bound)) {
      out["stopped"] = fmt::format(
          "{} x 1 is {}-bound: more fusion saves traffic, which no longer limits it", x, bound);
      break;
    }
    if (x == opts.maxFuse) out["stopped"] = fmt::format("--max-fuse {}", opts.maxFuse);
  }
  if (f.empty()) {
    diags.report(DiagId::bad_schedule, {},
                 "deep-tune: no version could be predicted: " + out["stopped"].get<std::string>(),
                 "check the schedule flags with tessel check");
    return std::nullopt;
  }
  FusionComposition best = optimalComposition(f, opts.steps);
  out["composition"] = best.text();
  out["parts"] = best.parts;
  out["seconds"] = best.seconds;
  // The plain alternatives, for scale: every step alone, and the largest degree throughout.
  out["seconds_unfused"] = f.front() * opts.steps;
  out["measured"] = nullptr;  // no GPU run: predictions only
  return out;
}

std::string deepTuneText(const nlohmann::json& r) {
  std::string out = fmt::format(
      "Deep tuning of the time-fusion degree (paper 000 VI-A) under {} on {} (the performance "
      "model's predictions, not measurements)\n",
      r["family"].get<std::string>() == "stream" ? "stream + time_tile" : "overlapped",
      r.value("machine", std::string("?")));
  out += "  version    time per kernel   per step     bound\n";
  for (const auto& v : r["versions"])
    out += fmt::format("  {:>2} x 1    {:>10.4g} ms   {:>8.4g} ms   {}\n", v["degree"].get<int>(),
                       v["seconds"].get<double>() * 1e3, v["seconds_per_step"].get<double>() * 1e3,
                       v["bound"].get<std::string>());
  if (r.contains("stopped")) out += "  stopped: " + r["stopped"].get<std::string>() + "\n";
  out += fmt::format("{} steps: {}  predicted {:.4g} ms (every step alone: {:.4g} ms, {:.2f}x)\n",
                     r["steps"].get<int>(), r["composition"].get<std::string>(),
                     r["seconds"].get<double>() * 1e3, r["seconds_unfused"].get<double>() * 1e3,
                     r["seconds"].get<double>() > 0
                         ? r["seconds_unfused"].get<double>() / r["seconds"].get<double>()
                         : 0.0);
  out += "measured: none (no GPU in this run)\n";
  return out;
}

}  // namespace tessel
