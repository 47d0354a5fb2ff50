#include "driver/info.h"

#include <fmt/format.h>

#include "analysis/counts.h"
#include "analysis/dag.h"
#include "analysis/folding.h"
#include "analysis/regions.h"
#include "analysis/retiming.h"

namespace tessel {

using nlohmann::json;

static std::string dataFlags(const DataFlags& f) {
  std::string s;
  auto add = [&](bool b, const char* n) {
    if (b) s += (s.empty() ? "" : ", ") + std::string(n);
  };
  add(f.copyin, "copyin");
  add(f.allocin, "allocin");
  add(f.constant, "constant");
  add(f.coefficient, "coefficient");
  add(f.copyout, "copyout");
  return s;
}

// The expression with every array named as the call sees it (actual arguments, not formals).
static json execJson(const std::vector<ExecNode>& nodes, const std::vector<std::string>& iters) {
  json arr = json::array();
  for (auto& n : nodes) {
    if (n.kind == ExecNode::Kind::Call)
      arr.push_back({{"call", n.call}});
    else
      arr.push_back({{"iterate", {{"lo", toString(n.lo, iters)}, {"hi", toString(n.hi, iters)}}},
                     {"body", execJson(n.body, iters)}});
  }
  return arr;
}

json infoJson(const Program& prog, const std::optional<ParamValues>& params) {
  auto iters = prog.iteratorNames();
  json j;
  j["file"] = prog.file ? prog.file->name() : "";
  j["iterators"] = iters;
  j["parameters"] = json::array();
  for (size_t i = 0; i < prog.params.size(); ++i) {
    auto& p = prog.params[i];
    json pj = {{"name", p.name}, {"from_iterate", p.fromIterate}};
    if (p.defaultValue) pj["default"] = toString(p.defaultValue, iters);
    if (params) pj["value"] = (*params)[i];
    j["parameters"].push_back(pj);
  }
  j["arrays"] = json::array();
  for (auto& a : prog.arrays) {
    std::vector<std::string> ext;
    for (auto& e : a.extents) ext.push_back(toString(e, iters));
    json aj = {{"name", a.name},
               {"type", typeName(a.type)},
               {"extents", ext},
               {"data", dataFlags(a.data)}};
    if (params) aj["elements"] = elementCount(a.extents, *params);
    j["arrays"].push_back(aj);
  }
  j["scalars"] = json::array();
  for (auto& s : prog.scalars)
    j["scalars"].push_back({{"name", s.name}, {"type", typeName(s.type)}});

  j["stencils"] = json::array();
  for (auto& st : prog.stencils) {
    json sj = {{"name", st.name}, {"calls", st.calls.size()}};
    std::vector<std::string> formals;
    for (auto& f : st.formals) formals.push_back((f.inout ? "inout:" : "") + f.name);
    sj["formals"] = formals;
    if (!st.calls.empty()) {
      const CallInst& c = prog.calls[st.calls.front()];
      CallShape shape = callShape(prog, c);
      sj["statements"] = c.stmts.size();
      sj["order"] = shape.order;
      sj["flops_per_point"] = callFlopsPerPoint(c);
      sj["bytes_per_point"] = shape.bytesPerPoint;
      json halos = json::array();
      for (auto& h : shape.halos) {
        json hj = {{"array", h.name}};
        for (size_t d = 0; d < iters.size(); ++d) hj[iters[d]] = {h.lo[d], h.hi[d]};
        halos.push_back(hj);
      }
      sj["halo"] = halos;
    }
    // Hints as written: clause and arguments, then placements.
    json hints = json::array();
    for (auto& cl : st.hints.clauses) {
      std::string h = cl.name;
      for (auto& w : cl.words) h += " " + w;
      if (!cl.numbers.empty()) {
        std::string nums;
        for (double v : cl.numbers) nums += (nums.empty() ? "" : ", ") + fmt::format("{:g}", v);
        h += cl.name == "block" ? " (" + nums + ")" : " " + nums;
      }
      for (size_t a = 0; a < cl.assignments.size(); ++a)
        h += (a ? ", " : " ") + cl.assignments[a].first + "=" +
             std::to_string(cl.assignments[a].second);
      hints.push_back(h);
    }
    auto placement = [&](const char* kind, const std::vector<Hints::Placed>& names) {
      if (names.empty()) return;
      std::string h = std::string(kind) + " (";
      for (size_t a = 0; a < names.size(); ++a) h += (a ? ", " : "") + names[a].array;
      hints.push_back(h + ")");
    };
    placement("shmem", st.hints.shmem);
    placement("no_shmem", st.hints.noShmem);
    placement("gmem", st.hints.gmem);
    sj["hints"] = hints;
    j["stencils"].push_back(sj);
  }

  j["calls"] = json::array();
  for (size_t ci = 0; ci < prog.calls.size(); ++ci) {
    const CallInst& c = prog.calls[ci];
    CallRegions reg = analyzeRegions(prog, c);
    json cj = {
        {"index", ci}, {"stencil", c.name}, {"arguments", c.actualNames}, {"line", c.loc.line()}};
    std::vector<std::string> dom;
    for (auto& r : c.domain) dom.push_back(toString(r.lo, iters) + ":" + toString(r.hi, iters));
    cj["domain"] = dom;
    cj["statements"] = json::array();
    for (size_t s = 0; s < c.stmts.size(); ++s) {
      const Stmt& st = c.stmts[s];
      json stj;
      stj["text"] = statementText(prog, c, st);
      stj["line"] = st.loc.line();
      stj["flops"] = stmtFlops(st);
      json region;
      for (size_t d = 0; d < iters.size(); ++d) region[iters[d]] = reg.stmts[s].iter[d].str();
      stj["region"] = region;
      if (!reg.stmts[s].conditions.empty()) stj["conditional"] = true;
      // Retiming along the slowest iterator, the one a stream schedule sweeps by default
      // (analysis/retiming.h; the stream family applies it with --retime).
      if (iters.size() >= 2) {
        Retiming rt = retime(prog, c, st, 0);
        json rj = {{"along", iters[0]}, {"retimable", rt.ok}};
        if (rt.ok) {
          rj["parts"] = rt.parts.size();
          rj["accumulators"] = rt.accumulators;
          rj["distinct_plane_reads_before"] = rt.readsBefore;
          rj["distinct_plane_reads_after"] = rt.readsAfter;
          if (rt.atOutput) {
            rj["terms_at_the_output"] = rt.atOutputTerms;
            rj["at_the_output_reads"] = st.lhsIsScalar() ? "local scalar" : "array";
          }
        } else {
          rj["why_not"] = rt.whyNot;
        }
        stj["retiming"] = rj;
      }
      // Folding (analysis/folding.h; the shared and stream families apply it with --fold).
      Folding fo = foldStatement(prog, c, st);
      if (!fo.folds.empty()) stj["foldable"] = describeFolds(fo);
      if (params) {
        Box b = evalIter(reg.stmts[s], *params);
        stj["points"] = b.points();
        if (!b.empty) {
          json conc;
          for (size_t d = 0; d < iters.size(); ++d) conc[iters[d]] = {b.lo[d], b.hi[d]};
          stj["region_at_values"] = conc;
        }
      }
      cj["statements"].push_back(stj);
    }
    json deps = json::array();
    for (auto& d : statementDependences(prog, c))
      deps.push_back({{"from", d.from}, {"to", d.to}, {"kind", d.kind}, {"via", d.via}});
    cj["dependences"] = deps;
    j["calls"].push_back(cj);
  }
  json cd = json::array();
  for (auto& d : callDependences(prog))
    cd.push_back({{"from", d.from}, {"to", d.to}, {"kind", d.kind}, {"via", d.via}});
  j["call_dependences"] = cd;
  j["sequence"] = execJson(prog.body, iters);
  if (params) {
    Work w = programWork(prog, *params);
    j["work"] = {{"calls_executed", w.callsExecuted},
                 {"stencil_points", w.stencilPoints},
                 {"flops", w.flops}};
  }
  return j;
}

static void sequenceText(const json& seq, const json& calls, int depth, std::string& out) {
  std::string pad(2 * depth + 2, ' ');
  for (auto& n : seq) {
    if (n.contains("call")) {
      const json& c = calls[n["call"].get<int>()];
      std::string args;
      for (auto& a : c["arguments"]) args += (args.empty() ? "" : ", ") + a.get<std::string>();
      std::string dom;
      for (auto& d : c["domain"]) dom += (dom.empty() ? "" : ", ") + d.get<std::string>();
      out += fmt::format("{}#{} {}({}) on [{}]   (line {})\n", pad, c["index"].get<int>(),
                         c["stencil"].get<std::string>(), args, dom, c["line"].get<int>());
    } else {
      out +=
          fmt::format("{}iterate {}:{} (inclusive)\n", pad, n["iterate"]["lo"].get<std::string>(),
                      n["iterate"]["hi"].get<std::string>());
      sequenceText(n["body"], calls, depth + 1, out);
    }
  }
}

std::string infoText(const json& j) {
  std::string out;
  auto iters = j["iterators"].get<std::vector<std::string>>();
  out += fmt::format("program     {}\n", j["file"].get<std::string>());
  std::string it;
  for (auto& s : iters) it += (it.empty() ? "" : ", ") + s;
  out += fmt::format("iterators   {}  ({} dimension{}; '{}' is unit-stride)\n", it, iters.size(),
                     iters.size() == 1 ? "" : "s", iters.empty() ? "" : iters.back());
  std::string ps;
  for (auto& p : j["parameters"]) {
    std::string s = p["name"].get<std::string>();
    if (p.contains("value"))
      s += "=" + std::to_string(p["value"].get<int64_t>());
    else if (p.contains("default"))
      s += "=" + p["default"].get<std::string>();
    else
      s += " (no default)";
    if (p["from_iterate"].get<bool>()) s += " [iterate bound]";
    ps += (ps.empty() ? "" : ", ") + s;
  }
  out += fmt::format("parameters  {}\n", ps.empty() ? "(none)" : ps);
  out += "arrays\n";
  for (auto& a : j["arrays"]) {
    std::string ext;
    for (auto& e : a["extents"]) ext += (ext.empty() ? "" : ", ") + e.get<std::string>();
    out += fmt::format("  {:<10} {:<6} [{}]{}\n", a["name"].get<std::string>(),
                       a["type"].get<std::string>(), ext,
                       a["data"].get<std::string>().empty() ? "  (starts at zero)"
                                                            : "  " + a["data"].get<std::string>());
  }
  if (!j["scalars"].empty()) {
    std::string s;
    for (auto& x : j["scalars"])
      s += (s.empty() ? "" : ", ") + x["name"].get<std::string>() + " (" +
           x["type"].get<std::string>() + ")";
    out += fmt::format("scalars     {}\n", s);
  }
  out += "stencils\n";
  for (auto& s : j["stencils"]) {
    std::string f;
    for (auto& x : s["formals"]) f += (f.empty() ? "" : ", ") + x.get<std::string>();
    out += fmt::format("  {}({})\n", s["name"].get<std::string>(), f);
    if (!s.contains("order")) {
      out += "    never called\n";
      continue;
    }
    out += fmt::format("    statements {}, order {}, {} FLOPs per point, {} bytes per point\n",
                       s["statements"].get<int>(), s["order"].get<int>(),
                       s["flops_per_point"].get<int>(), s["bytes_per_point"].get<int>());
    for (auto& h : s["halo"]) {
      std::string hs;
      for (auto& name : iters) {
        auto lo = h[name][0].get<int64_t>(), hi = h[name][1].get<int64_t>();
        hs += fmt::format(" {}:{:+d}..{:+d}", name, lo, hi);
      }
      out += fmt::format("    halo of {:<8}{}\n", h["array"].get<std::string>(), hs);
    }
    if (!s["hints"].empty()) {
      std::string hs;
      for (auto& x : s["hints"]) hs += (hs.empty() ? "" : ", ") + x.get<std::string>();
      out += fmt::format("    hints: {}\n", hs);
    }
    if (s.contains("schedule"))
      out += fmt::format("    schedule: {} (for {}; used by the GPU backends)\n",
                         s["schedule"].get<std::string>(), j["machine"].get<std::string>());
  }
  out += "call sequence\n";
  sequenceText(j["sequence"], j["calls"], 0, out);
  out += "statement regions (inclusive; the rules of language.md sections 5 and 9)\n";
  for (auto& c : j["calls"]) {
    out += fmt::format("  #{} {}\n", c["index"].get<int>(), c["stencil"].get<std::string>());
    int si = 0;
    for (auto& s : c["statements"]) {
      std::string reg;
      for (auto& name : iters)
        reg += (reg.empty() ? "" : ", ") + name + " " + s["region"][name].get<std::string>();
      out += fmt::format("    s{} line {:<4} {} FLOPs  {}\n", si, s["line"].get<int>(),
                         s["flops"].get<int>(), s["text"].get<std::string>());
      out += fmt::format("       region {}{}", reg,
                         s.contains("conditional") ? " (if the fixed planes it reads exist)" : "");
      if (s.contains("points")) out += fmt::format("   = {} points", s["points"].get<int64_t>());
      out += "\n";
      if (s.contains("retiming")) {
        const json& r = s["retiming"];
        const std::string along = r["along"].get<std::string>();
        if (r["retimable"].get<bool>())
          out += fmt::format(
              "       retimable along {}: {} part{}, {} accumulator{}, distinct plane reads per "
              "point {} -> {}{} (applied by --schedule stream --retime)\n",
              along, r["parts"].get<int>(), r["parts"].get<int>() == 1 ? "" : "s",
              r["accumulators"].get<int>(), r["accumulators"].get<int>() == 1 ? "" : "s",
              r["distinct_plane_reads_before"].get<int>(),
              r["distinct_plane_reads_after"].get<int>(),
              r.contains("terms_at_the_output")
                  ? fmt::format(", {} term{} reading the {} it writes at the output",
                                r["terms_at_the_output"].get<int>(),
                                r["terms_at_the_output"].get<int>() == 1 ? "" : "s",
                                r["at_the_output_reads"].get<std::string>())
                  : std::string());
        else
          out += fmt::format("       not retimable along {}: {}\n", along,
                             r["why_not"].get<std::string>());
      }
      if (s.contains("foldable"))
        out += fmt::format("       foldable: {} (applied by --fold under shared or stream)\n",
                           s["foldable"].get<std::string>());
      ++si;
    }
    for (auto& d : c["dependences"])
      out += fmt::format("    s{} -> s{}  {} on {}\n", d["from"].get<int>(), d["to"].get<int>(),
                         d["kind"].get<std::string>(), d["via"].get<std::string>());
  }
  if (!j["call_dependences"].empty()) {
    out +=
        "call graph (dependences between calls, in program order; the nearest, which imply the "
        "others)\n";
    for (auto& d : j["call_dependences"])
      out += fmt::format("  #{} -> #{}  {} on {}\n", d["from"].get<int>(), d["to"].get<int>(),
                         d["kind"].get<std::string>(), d["via"].get<std::string>());
  }
  if (j.contains("work"))
    out += fmt::format("work        {} call{}, {:.4g} stencil points, {:.4g} FLOPs per run\n",
                       j["work"]["calls_executed"].get<int64_t>(),
                       j["work"]["calls_executed"].get<int64_t>() == 1 ? "" : "s",
                       j["work"]["stencil_points"].get<double>(), j["work"]["flops"].get<double>());
  return out;
}

nlohmann::json dagJson(const Program& prog) {
  const StencilDag dag = buildDag(prog);
  nlohmann::json j = {{"nodes", nlohmann::json::array()},
                      {"edges", nlohmann::json::array()},
                      {"iterators", prog.iteratorNames()}};
  for (size_t k = 0; k < dag.nodes.size(); ++k)
    j["nodes"].push_back({{"id", k},
                          {"call", dag.nodes[k].call},
                          {"stmt", dag.nodes[k].stmt},
                          {"name", nodeName(dag, prog, static_cast<int>(k))}});
  for (const DagEdge& e : dag.edges)
    j["edges"].push_back({{"from", e.from},
                          {"to", e.to},
                          {"kind", kindName(e.kind)},
                          {"via", e.via},
                          {"offsets", e.offsets},
                          {"carried", e.carried}});
  return j;
}

}  // namespace tessel
