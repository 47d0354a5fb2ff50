// Where fusion groups come from (fusion_groups.h).
#include "driver/fusion_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <numeric>
#include <stdexcept>

#include "analysis/accesses.h"
#include "analysis/dag.h"
#include "analysis/fission.h"
#include "driver/params.h"
#include "ir/print_program.h"
#include "model/host.h"
#include "modesto/from_program.h"
#include "modesto/grouping.h"
#include "modesto/hierarchy.h"
#include "modesto/variant.h"

namespace tessel {

Groupings greedyGroupings(const Program& prog, const GreedyFusionOptions& opt) {
  Groupings g;
  const StencilDag dag = buildDag(prog);
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    const GreedyFusionPlan plan = greedyFusion(prog, dag, static_cast<int>(c), opt);
    CallGroups groups;
    for (const FusionOperator& op : plan.result)
      groups.push_back(std::vector<int>(op.stmts.begin(), op.stmts.end()));
    g.notes.push_back(fmt::format(
        "call {} ({}): the greedy plan's {} kernel{} {}{}", c, prog.calls[c].name, groups.size(),
        groups.size() == 1 ? "" : "s", groupsText(groups),
        plan.stops.empty()
            ? ""
            : " (not fused: " + plan.stops.front() + (plan.stops.size() > 1 ? ", ..." : "") + ")"));
    g.groups.push_back(std::move(groups));
  }
  return g;
}

int recomputationHalo(const CallInst& call, const std::vector<int>& group) {
  std::map<CallValue, int> producedHalo;  // value -> halo of its latest writer in the group
  int halo = 0;
  for (int s : group) {
    const StmtAccesses acc = stmtAccesses(call.stmts.at(static_cast<size_t>(s)));
    int h = 0;
    for (const Reference& r : acc.reads) {
      auto it = producedHalo.find(callValueOf(r));
      if (it == producedHalo.end()) continue;
      int64_t off = 0;
      for (size_t p = 0; p < r.subs.size(); ++p)
        if (!r.subs[p].fixed()) off = std::max<int64_t>(off, std::abs(r.offset(p)));
      h = std::max(h, it->second + static_cast<int>(off));
    }
    producedHalo[callValueOf(acc.write)] = h;
    halo = std::max(halo, h);
  }
  return halo;
}

int statementOrder(const CallInst& call, const std::vector<int>& group) {
  int64_t order = 0;
  for (int s : group)
    for (const Reference& r : stmtAccesses(call.stmts.at(static_cast<size_t>(s))).reads)
      for (size_t p = 0; p < r.subs.size(); ++p)
        if (!r.subs[p].fixed()) order = std::max<int64_t>(order, std::abs(r.offset(p)));
  return static_cast<int>(order);
}

Groupings recomputeFissionGroupings(const Program& prog) {
  Groupings g;
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    const CallInst& call = prog.calls[c];
    std::vector<int> all(call.stmts.size());  // every statement, for the bound's r
    std::iota(all.begin(), all.end(), 0);
    CallGroups groups{{}};
    std::vector<std::string> halos;
    for (size_t s = 0; s < call.stmts.size(); ++s) {
      std::vector<int> grown = groups.back();
      grown.push_back(static_cast<int>(s));
      const int bound = std::max(4, statementOrder(call, grown));
      if (!groups.back().empty() && recomputationHalo(call, grown) > bound) {
        halos.push_back(std::to_string(recomputationHalo(call, groups.back())));
        groups.push_back({static_cast<int>(s)});
      } else {
        groups.back() = grown;
      }
    }
    halos.push_back(std::to_string(recomputationHalo(call, groups.back())));
    g.notes.push_back(fmt::format(
        "call {} ({}): recompute-fission, {} kernel{} {} (recomputation halo {}; bound max(4, "
        "r) = {})",
        c, call.name, groups.size(), groups.size() == 1 ? "" : "s", groupsText(groups),
        fmt::join(halos, ", "), std::max(4, statementOrder(call, all))));
    g.groups.push_back(groups.size() > 1 ? groups : CallGroups{});
  }
  return g;
}

Groupings modestoGroupings(const Program& prog, const MachineDesc& machine,
                           const ModestoGroupingOptions& opt) {
  return modestoGroupings(
      prog,
      [&](std::vector<int64_t> tile, int valueBytes) {
        return modesto::gpuTwoLevel(machine, std::move(tile), valueBytes);
      },
      opt);
}

Groupings modestoGroupings(const Program& prog, const HierarchyFor& hierarchy,
                           const ModestoGroupingOptions& opt) {
  Groupings g;
  const size_t dims = static_cast<size_t>(prog.dims());
  std::vector<int64_t> tile = opt.tile;
  for (size_t d = tile.size(); d < dims; ++d) {
    const size_t fromInner = dims - 1 - d;
    tile.push_back(fromInner == 0 ? 32 : fromInner == 1 ? 8 : 1);
  }
  tile.resize(dims);
  // The defaults, each iterator's extent capped at two tiles and a halo of 4 on either side.
  std::optional<ParamValues> params = defaultParams(prog);
  int valueBytes = 4;
  for (const ArrayDecl& a : prog.arrays) valueBytes = a.type == ScalarType::Double ? 8 : valueBytes;
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    const CallInst& call = prog.calls[c];
    auto keepWhole = [&](const std::string& why) {
      g.groups.push_back({});
      g.notes.push_back(fmt::format("call {} ({}) stays whole: {}", c, call.name, why));
    };
    if (!params) {
      keepWhole("a parameter has no default value to evaluate the model at");
      continue;
    }
    // Each extent at most two tiles and 8 points; where the call's statements have no point on
    // that domain (their halos and the call's own box shrink it away: diffterm's difflux needs
    // more than 16 planes), a margin of the halo a second time, else the call stays whole: a
    // grouping chosen among costs of 0 s would be arbitrary.
    std::vector<int> all(call.stmts.size());
    std::iota(all.begin(), all.end(), 0);
    const int64_t halo = recomputationHalo(call, all);
    try {
      std::optional<modesto::Evaluation> best;
      ParamValues small = *params;
      modesto::Hierarchy h = hierarchy(tile, valueBytes);
      if (opt.capacity > 0) h.levels[1].capacity = opt.capacity;
      std::optional<modesto::StencilProgram> p;
      for (int64_t margin :
           {int64_t{8}, 8 + 4 * std::max<int64_t>(halo, statementOrder(call, all))}) {
        small = *params;
        for (size_t d = 0; d < dims && d < small.size(); ++d)
          small[d] = std::min(small[d], 2 * tile[d] + margin);
        p = modesto::fromCall(prog, call, small);
        if (const double work = modesto::countingWork(*p);
            opt.workLimit > 0 && work > opt.workLimit)
          throw std::invalid_argument(fmt::format(
              "its counting would visit about {:.2g} keys per order, more than the {:.2g} the "
              "model's fusion choices allow (--fusion-groups modesto counts it)",
              work, opt.workLimit));
        if (opt.progress)
          opt.progress(fmt::format(
              "call {} ({}): {} statements, up to {} orders, about {:.2g} keys "
              "to count per order",
              c, call.name, p->stencils.size(), opt.orderLimit, modesto::countingWork(*p)));
        best = modesto::groupByDynamicProgram(*p, h, opt.orderLimit);
        if (!best || best->seconds > 0) break;
      }
      if (!best) {
        keepWhole(
            fmt::format("no grouping fits a level-2 memory of {} values", h.levels[1].capacity));
        continue;
      }
      if (best->seconds <= 0) {
        keepWhole(fmt::format(
            "its statements have no point on a counting domain of {} points per iterator "
            "(their halos take it all): MODESTO's costs are 0 s, no grouping to choose",
            fmt::join(std::vector<int64_t>(small.begin(), small.begin() + static_cast<long>(dims)),
                      "x")));
        continue;
      }
      const modesto::Group root = modesto::parseVariant(best->variant, *p, 2);
      CallGroups groups;
      for (const modesto::Group& child : root.children)
        groups.push_back(child.stencils());  // stencil i is statement i (fromCall)
      g.notes.push_back(fmt::format(
          "call {} ({}): MODESTO's cheapest grouping {} ({:.3g} s predicted on a {} tile in {} "
          "of {} values' capacity, over a domain of at most {} points per iterator)",
          c, call.name, best->variant, best->seconds, fmt::join(tile, "x"), h.levels[1].memory,
          h.levels[1].capacity,
          fmt::join(std::vector<int64_t>(small.begin(), small.begin() + static_cast<long>(dims)),
                    "x")));
      g.groups.push_back(std::move(groups));
    } catch (const std::invalid_argument& e) {
      keepWhole(e.what());
    }
  }
  return g;
}

namespace {

/// "s0,1,s3-5" -> {0, 1, 3, 4, 5}.
std::optional<std::vector<int>> parseGroup(std::string text) {
  std::vector<int> out;
  text.erase(std::remove_if(text.begin(), text.end(), ::isspace), text.end());
  size_t pos = 0;
  auto number = [&](int& v) {
    if (pos < text.size() && text[pos] == 's') ++pos;
    const size_t start = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos == start || pos - start > 6) return false;
    v = std::stoi(text.substr(start, pos - start));
    return true;
  };
  while (pos < text.size()) {
    int a = 0, b = 0;
    if (!number(a)) return std::nullopt;
    b = a;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      if (!number(b) || b < a) return std::nullopt;
    }
    for (int s = a; s <= b; ++s) out.push_back(s);
    if (pos < text.size() && text[pos++] != ',') return std::nullopt;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace

std::optional<Groupings> parseGroupings(const Program& prog, const std::vector<std::string>& specs,
                                        std::string& error) {
  Groupings g;
  g.groups.resize(prog.calls.size());
  std::map<size_t, std::string> given;  // call -> the spec that gave its groups
  for (const std::string& spec : specs) {
    size_t call = 0;
    std::string rest = spec;
    const size_t colon = spec.find(':');
    if (colon != std::string::npos) {
      const std::string c = spec.substr(0, colon);
      if (c.empty() || c.size() > 6 ||
          !std::all_of(c.begin(), c.end(), [](char x) { return std::isdigit(x); })) {
        error = fmt::format("'{}': the call before ':' must be a call number", spec);
        return std::nullopt;
      }
      call = std::stoul(c);
      rest = spec.substr(colon + 1);
    }
    if (call >= prog.calls.size()) {
      error = fmt::format("'{}': the program has calls 0..{}", spec, prog.calls.size() - 1);
      return std::nullopt;
    }
    if (auto [at, added] = given.emplace(call, spec); !added) {
      error =
          fmt::format("'{}': call {}'s groups are given twice (also '{}')", spec, call, at->second);
      return std::nullopt;
    }
    CallGroups groups;
    size_t start = 0;
    for (;;) {
      const size_t bar = rest.find('|', start);
      auto group = parseGroup(rest.substr(start, bar == std::string::npos ? bar : bar - start));
      if (!group) {
        error = fmt::format(
            "'{}': each group is statement numbers or ranges separated by "
            "commas, groups separated by '|'",
            spec);
        return std::nullopt;
      }
      groups.push_back(*group);
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
    // Groups given by hand are honoured or refused, never left aside with a note (one group
    // too: it must name every statement of the call, no other).
    const std::string problem = groupingProblem(prog, static_cast<int>(call), groups);
    if (!problem.empty()) {
      error = fmt::format("'{}': {}", spec, problem);
      return std::nullopt;
    }
    g.groups[call] = groups;
    g.notes.push_back(fmt::format("call {} ({}): the groups given, {}", call, prog.calls[call].name,
                                  groupsText(groups)));
  }
  return g;
}

std::optional<Groupings> splitGroupings(const Program& prog, const std::string& mode,
                                        const std::vector<std::string>& specs,
                                        const std::string& machineName, GreedyFusionOptions greedy,
                                        const ModestoGroupingOptions& modesto,
                                        DiagnosticEngine& diags) {
  if (mode == "groups") {
    if (specs.empty()) {
      diags.report(DiagId::bad_schedule, {}, "--mode groups needs the groups",
                   "give --groups s0,s1|s2 (the statement numbers tessel info shows)");
      return std::nullopt;
    }
    std::string error;
    auto g = parseGroupings(prog, specs, error);
    if (!g)
      diags.report(DiagId::bad_schedule, {}, "--groups " + error, "for example --groups 0:s0|s1-3");
    return g;
  }
  if (!specs.empty()) {
    diags.report(DiagId::bad_schedule, {}, "--groups is for --mode groups",
                 fmt::format("drop --groups, or use --mode groups instead of {}", mode));
    return std::nullopt;
  }
  if (mode == "recompute-fission") return recomputeFissionGroupings(prog);
  if (mode == "modesto" && modesto.tile.size() > static_cast<size_t>(prog.dims())) {
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("--modesto-tile: {} entries for a {}-D program", modesto.tile.size(),
                             prog.dims()),
                 fmt::format("give at most one per iterator, outer to inner (e.g. --modesto-tile "
                             "{})",
                             prog.dims() == 1   ? "32"
                             : prog.dims() == 2 ? "8,32"
                                                : "1,8,32"));
    return std::nullopt;
  }
  if (mode == "modesto" && machineName == "host") {
    // This machine's CPU, measured at first use (model/host.h): DRAM and one core's L2.
    const HostMachine host = hostMachine();
    return modestoGroupings(
        prog,
        [&](std::vector<int64_t> tile, int valueBytes) {
          return modesto::cpuTwoLevel(host, std::move(tile), valueBytes);
        },
        modesto);
  }
  auto machine = loadMachine(machineName, diags);
  if (!machine) return std::nullopt;
  if (mode == "modesto") return modestoGroupings(prog, *machine, modesto);
  greedy.sharedLimit = machine->sharedPerBlockMax();
  try {
    return greedyGroupings(prog, greedy);
  } catch (const std::invalid_argument& e) {
    diags.report(DiagId::bad_schedule, {}, e.what(),
                 "--fusion-rules takes each of the letters a to h once, most significant first");
    return std::nullopt;
  }
}

std::optional<Groupings> optionGroupings(const Program& prog, const std::string& value,
                                         const std::string& machineName, DiagnosticEngine& diags,
                                         double modestoWorkLimit) {
  if (value == "greedy" || value == "modesto" || value == "recompute-fission") {
    ModestoGroupingOptions modesto;
    modesto.workLimit = modestoWorkLimit;
    return splitGroupings(prog, value, {}, machineName, {}, modesto, diags);
  }
  std::vector<std::string> specs;
  for (size_t at = 0;;) {
    const size_t semi = value.find(';', at);
    specs.push_back(value.substr(at, semi == std::string::npos ? semi : semi - at));
    if (semi == std::string::npos) break;
    at = semi + 1;
  }
  std::string error;
  auto g = parseGroupings(prog, specs, error);
  if (g) return g;
  // A word that is none of the choices (`--fusion-groups all`) is named as such, not parsed as
  // groups of statement numbers.
  const bool word = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  if (word) {
    const std::vector<std::string> choices = {
        "none", "trivial-fission", "maxfuse", "recompute-fission", "greedy", "modesto", "auto"};
    const auto close = closestName(value, choices);
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("--fusion-groups {}: not a fusion choice{}", value,
                             close ? fmt::format(" (did you mean '{}'?)", *close) : ""),
                 "one of none, trivial-fission, maxfuse, recompute-fission, greedy, modesto and "
                 "auto, or groups of statement numbers such as '0:0|1-3' (tessel info numbers "
                 "them; calls separated by ';')");
    return std::nullopt;
  }
  diags.report(DiagId::bad_schedule, {}, "--fusion-groups " + error,
               "for example --fusion-groups '0:0|1-3' (statement numbers as tessel info shows "
               "them; calls separated by ';')");
  return std::nullopt;
}

std::optional<Program> fusionVariant(const Program& prog, const std::string& value,
                                     const std::string& machineName, DiagnosticEngine& diags,
                                     std::vector<std::string>& notes, double modestoWorkLimit) {
  if (value == "none") return prog;
  if (value == "trivial-fission" || value == "maxfuse")
    return splitProgram(
        prog, value == "maxfuse" ? FissionMode::MaxFuse : FissionMode::TrivialFission, notes);
  auto groups = optionGroupings(prog, value, machineName, diags, modestoWorkLimit);
  if (!groups) return std::nullopt;
  notes = groups->notes;
  return regroupProgram(prog, groups->groups, notes);
}

std::optional<Program> fusionGroupsPass(const Program& prog, const std::string& value,
                                        const std::string& machineName, DiagnosticEngine& diags,
                                        PassLog& log, std::vector<std::string>& notes) {
  return log.run(
      "fusion-groups", [&] { return fusionVariant(prog, value, machineName, diags, notes); },
      [](const std::optional<Program>& p) {
        return p ? programSource(*p, "") : std::string("(not made: an error)\n");
      });
}

}  // namespace tessel
