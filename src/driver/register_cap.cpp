// The model's register cap (register_cap.h).
#include "driver/register_cap.h"

#include <fmt/format.h>

#include <set>

#include "driver/analyze.h"
#include "driver/params.h"
#include "exec/cuda_resources.h"
#include "perf/predict.h"

namespace tessel {

namespace {

constexpr int64_t kRegistersPerSm = 65536;  // every compute capability from 3.5 to 9.0
constexpr int kRegisterGranule = 8;         // per thread: 256 per warp
constexpr int kFewestRegisters = 24;        // below this a cap only moves values to memory

struct Figures {
  double seconds = 0;
  int64_t spills = 0;     // the most spill bytes of any kernel
  int registers = 0;      // the most registers of any kernel
  double occupancy = -1;  // the smallest occupancy of any kernel; -1 unknown
};

Figures figuresOf(const nlohmann::json& p) {
  Figures f;
  f.seconds = p["seconds"].get<double>();
  for (const auto& k : p["kernels"]) {
    if (k.contains("registers")) f.registers = std::max(f.registers, k["registers"].get<int>());
    if (k.contains("spill_bytes")) f.spills = std::max(f.spills, k["spill_bytes"].get<int64_t>());
    if (k.contains("occupancy") && !k["occupancy"].is_null()) {
      double o = k["occupancy"]["fraction"].get<double>();
      f.occupancy = f.occupancy < 0 ? o : std::min(f.occupancy, o);
    }
  }
  return f;
}

/// Caps that let the kernel with the most registers reside with one or two more blocks per SM
/// than it does with the launch bounds.
std::set<int> candidateCaps(const nlohmann::json& p) {
  std::set<int> caps;
  for (const auto& k : p["kernels"]) {
    if (!k.contains("registers") || !k.contains("occupancy") || k["occupancy"].is_null()) continue;
    const int registers = k["registers"].get<int>();
    int64_t threads = 1;
    for (const auto& b : k["block"]) threads *= b.get<int64_t>();
    const int64_t blocks = k["occupancy"]["blocks_per_sm"].get<int64_t>();
    for (int64_t more = 1; more <= 2; ++more) {
      int64_t cap = kRegistersPerSm / ((blocks + more) * threads);
      cap = cap / kRegisterGranule * kRegisterGranule;
      if (cap >= kFewestRegisters && cap < registers) caps.insert(static_cast<int>(cap));
    }
  }
  return caps;
}

std::string occupancyText(double o) {
  return o < 0 ? std::string("unknown") : fmt::format("{:.0f}%", 100 * o);
}

}  // namespace

std::optional<RegisterCapChoice> chooseRegisterCap(const Program& prog,
                                                   std::map<std::string, std::string> flags,
                                                   const std::map<std::string, int64_t>& params,
                                                   DiagnosticEngine& diags) {
  auto values = bindParams(prog, params, diags);
  if (!values) return std::nullopt;
  flags.erase("--max-registers");
  RegisterCapChoice out;
  out.flags = flags;
  if (findNvcc().empty()) {
    out.line =
        "--max-registers auto: nvcc not found, so no ptxas figures to choose from: the kernels "
        "keep their launch bounds";
    return out;
  }
  auto base = predictUnder(prog, flags, *values, true, diags, nullptr);
  if (!base) return std::nullopt;
  const Figures bounds = figuresOf(*base);
  Figures best = bounds;
  int bestCap = 0;
  std::set<int> caps = candidateCaps(*base);
  size_t refused = 0;
  for (int cap : caps) {
    std::map<std::string, std::string> f = flags;
    f["--max-registers"] = std::to_string(cap);
    std::string why;
    auto p = predictUnder(prog, f, *values, true, diags, nullptr, &why);
    if (!p) {
      ++refused;
      continue;
    }
    Figures q = figuresOf(*p);
    if (q.spills > bounds.spills) {  // spills cost local-memory traffic the model does not count
      ++refused;
      continue;
    }
    if (q.seconds < best.seconds * (1 - kChoiceMargin)) {
      best = q;
      bestCap = cap;
    }
  }
  std::string tried =
      caps.empty() ? std::string("no cap would add a block per SM")
                   : fmt::format(
                         "{} cap{} tried ({}), {} refused for spills or "
                         "by the validation",
                         caps.size(), caps.size() == 1 ? "" : "s", fmt::join(caps, ", "), refused);
  if (bestCap == 0) {
    out.line = fmt::format(
        "--max-registers auto: the launch bounds stay ({} registers, occupancy {}, predicted "
        "{:.4g} ms per run); {}",
        bounds.registers, occupancyText(bounds.occupancy), bounds.seconds * 1e3, tried);
    return out;
  }
  out.cap = bestCap;
  out.flags["--max-registers"] = std::to_string(bestCap);
  out.line = fmt::format(
      "--max-registers auto: the model chose {} (ptxas: {} registers, {} B spilled, occupancy {}; "
      "predicted {:.4g} ms per run against {:.4g} ms with the launch bounds: {} registers, "
      "occupancy {}); {}",
      bestCap, best.registers, best.spills, occupancyText(best.occupancy), best.seconds * 1e3,
      bounds.seconds * 1e3, bounds.registers, occupancyText(bounds.occupancy), tried);
  return out;
}

}  // namespace tessel
