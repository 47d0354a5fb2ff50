// The model's register cap (register_cap.h).
#include "driver/register_cap.h"

#include <fmt/format.h>

#include <set>

#include "driver/analyze.h"
#include "driver/params.h"
#include "exec/cuda_resources.h"
#include "model/occupancy.h"
#include "perf/predict.h"

namespace tessel {

namespace {

constexpr int kRegisterStep = 8;      // caps tried: multiples of 8 registers per thread
constexpr int kFewestRegisters = 24;  // below this a cap only moves values to memory

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

/// Per kernel with ptxas's registers: the largest caps (multiples of kRegisterStep, at least
/// kFewestRegisters, below its registers) under which the occupancy calculator lets one or two
/// more of its blocks reside per SM of `m` than its registers do now (the machine's register
/// file, allocation granularity and sub-partitions; shared memory and the block limit may
/// allow no more, and then there is no such cap).
std::set<int> candidateCaps(const nlohmann::json& p, const MachineDesc& m) {
  std::set<int> caps;
  for (const auto& k : p["kernels"]) {
    if (!k.contains("registers") || !k.contains("occupancy") || k["occupancy"].is_null()) continue;
    OccupancyQuery q;
    q.threads = 1;
    for (const auto& b : k["block"]) q.threads *= b.get<int64_t>();
    const int64_t shared = k["shared_bytes"].get<int64_t>();
    q.staticShared =
        k.contains("ptxas_shared_bytes") ? k["ptxas_shared_bytes"].get<int64_t>() : shared;
    if (shared > m.memory.sharedPerBlock) {  // dynamic, with the opt-in limit (kernel_report.cpp)
      q.staticShared = 0;
      q.dynamicShared = shared;
      q.optIn = true;
    }
    const int registers = k["registers"].get<int>();
    const int blocks = k["occupancy"]["blocks_per_sm"].get<int>();
    int found = 0;  // blocks more than now that a cap already gives
    for (int cap = (registers - 1) / kRegisterStep * kRegisterStep;
         cap >= kFewestRegisters && found < 2; cap -= kRegisterStep) {
      q.registers = cap;
      int more = 0;
      try {
        more = occupancy(m, q).blocksPerSm - blocks;
      } catch (const std::invalid_argument&) {
        break;
      }
      if (more > found) {
        caps.insert(cap);
        found = more;
      }
    }
  }
  return caps;
}

std::string occupancyText(double o) {
  return o < 0 ? std::string("unknown") : fmt::format("{:.0f}%", 100 * o);
}

}  // namespace

std::string RegisterCapChoice::line(bool byDefault) const {
  return byDefault ? "note: the register cap of the CUDA kernels is the model's (--max-registers "
                     "auto, the default; --max-registers bounds keeps the launch bounds): " +
                         reason
                   : "--max-registers auto: " + reason;
}

CapRequest capRequest(const Program& prog, const std::map<std::string, std::string>& flags,
                      bool cudaCode) {
  auto mr = flags.find("--max-registers");
  const std::string value = mr == flags.end() ? std::string() : mr->second;
  if (value == "auto") return CapRequest::Asked;
  if (!cudaCode || !value.empty()) return CapRequest::None;
  for (const StencilDef& def : prog.stencils)
    for (const Hints::Clause& c : def.hints.clauses)
      if (c.name == "max_registers") return CapRequest::None;
  return CapRequest::Default;
}

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
    out.reason =
        "nvcc not found, so no ptxas figures to choose from: the kernels keep their launch "
        "bounds";
    return out;
  }
  auto base = predictUnder(prog, flags, *values, true, diags, nullptr);
  if (!base) return std::nullopt;
  auto named = flags.find("--machine");
  auto machine = loadMachine(
      named == flags.end() || named->second.empty() ? kDefaultMachine : named->second, diags);
  if (!machine) return std::nullopt;
  const Figures bounds = figuresOf(*base);
  Figures best = bounds;
  int bestCap = 0;
  std::set<int> caps = candidateCaps(*base, *machine);
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
    out.reason = fmt::format(
        "the launch bounds stay ({} registers, occupancy {}, predicted {:.4g} ms per run); {}",
        bounds.registers, occupancyText(bounds.occupancy), bounds.seconds * 1e3, tried);
    return out;
  }
  out.cap = bestCap;
  out.flags["--max-registers"] = std::to_string(bestCap);
  out.reason = fmt::format(
      "the model chose {} (ptxas: {} registers, {} B spilled, occupancy {}; predicted {:.4g} ms "
      "per run against {:.4g} ms with the launch bounds: {} registers, occupancy {}); {}",
      bestCap, best.registers, best.spills, occupancyText(best.occupancy), best.seconds * 1e3,
      bounds.seconds * 1e3, bounds.registers, occupancyText(bounds.occupancy), tried);
  return out;
}

}  // namespace tessel
