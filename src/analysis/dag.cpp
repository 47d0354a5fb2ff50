// The stencil DAG (dag.h).
#include "analysis/dag.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/accesses.h"

namespace tessel {

namespace {

/// A value a statement touches: a global array, or a local array or scalar of one call.
struct Value {
  int kind = 0;   // 0 global array, 1 local array, 2 local scalar
  int call = -1;  // locals: the call that owns them
  int index = -1;
  auto operator<=>(const Value&) const = default;
};

Value valueOf(const Reference& r, int call) {
  if (r.scalar) return {2, call, r.index};
  if (r.array.local) return {1, call, r.array.index};
  return {0, -1, r.array.index};
}

std::string valueText(const Program& prog, const Value& v) {
  if (v.kind == 0) return prog.arrays.at(static_cast<size_t>(v.index)).name;
  const CallInst& c = prog.calls.at(static_cast<size_t>(v.call));
  if (v.kind == 1) return c.localArrays.at(static_cast<size_t>(v.index)).name;
  return c.localScalars.at(static_cast<size_t>(v.index)).name + " (local scalar)";
}

/// The offsets of `r` per iterator (0 along an iterator it does not use).
std::vector<int64_t> offsetsOf(const Reference& r, int dims) {
  std::vector<int64_t> o(static_cast<size_t>(dims), 0);
  for (int d = 0; d < dims; ++d) o[static_cast<size_t>(d)] = r.along(d).value_or(0);
  return o;
}

/// What one node reads and writes: per value, the offsets of its accesses.
struct NodeAccess {
  std::map<Value, std::set<std::vector<int64_t>>> reads, writes;
};

NodeAccess accessOf(const Stmt& st, int call, int dims) {
  NodeAccess a;
  StmtAccesses acc = stmtAccesses(st);
  for (const Reference& r : acc.reads) a.reads[valueOf(r, call)].insert(offsetsOf(r, dims));
  a.writes[valueOf(acc.write, call)].insert(offsetsOf(acc.write, dims));
  return a;
}

/// The dependences from node `from` (accesses `a`) to node `to` (`b`). Carried by a loop, only
/// through global arrays: a call's locals in the next iteration are other values.
void addEdges(const Program& prog, const NodeAccess& a, const NodeAccess& b, int from, int to,
              bool carried, std::vector<DagEdge>& out) {
  auto add = [&](DagEdge::Kind k, const Value& v, const std::set<std::vector<int64_t>>& offs) {
    if (carried && v.kind != 0) return;
    out.push_back({from, to, k, valueText(prog, v), {offs.begin(), offs.end()}, carried});
  };
  for (const auto& [v, offs] : a.writes)
    if (auto it = b.reads.find(v); it != b.reads.end()) add(DagEdge::Kind::Flow, v, it->second);
  for (const auto& [v, offs] : a.reads)
    if (b.writes.count(v) && !a.writes.count(v)) add(DagEdge::Kind::Anti, v, offs);
  for (const auto& [v, offs] : a.writes)
    if (auto it = b.writes.find(v); it != b.writes.end()) {
      std::set<std::vector<int64_t>> both = offs;
      both.insert(it->second.begin(), it->second.end());
      add(DagEdge::Kind::Output, v, both);
    }
}

/// The calls of each `iterate` body (directly or nested), for the carried dependences.
void loopBodies(const std::vector<ExecNode>& nodes, std::vector<std::vector<int>>& out) {
  for (const ExecNode& n : nodes) {
    if (n.kind != ExecNode::Kind::Iterate) continue;
    std::vector<int> calls;
    std::vector<const std::vector<ExecNode>*> todo = {&n.body};
    while (!todo.empty()) {
      const std::vector<ExecNode>* b = todo.back();
      todo.pop_back();
      for (const ExecNode& m : *b) {
        if (m.kind == ExecNode::Kind::Call) calls.push_back(m.call);
        if (m.kind == ExecNode::Kind::Iterate) todo.push_back(&m.body);
      }
    }
    out.push_back(calls);
    loopBodies(n.body, out);
  }
}

std::string offsetText(const std::vector<int64_t>& o) {
  return fmt::format("({})", fmt::join(o, ","));
}

std::string offsetsText(const DagEdge& e) {
  std::vector<std::string> parts;
  for (const auto& o : e.offsets) parts.push_back(offsetText(o));
  return fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace

StencilDag buildDag(const Program& prog) {
  StencilDag dag;
  const int dims = prog.dims();
  std::vector<NodeAccess> acc;
  for (size_t c = 0; c < prog.calls.size(); ++c)
    for (size_t k = 0; k < prog.calls[c].stmts.size(); ++k) {
      dag.nodes.push_back({static_cast<int>(c), static_cast<int>(k)});
      acc.push_back(accessOf(prog.calls[c].stmts[k], static_cast<int>(c), dims));
    }
  const int n = static_cast<int>(dag.nodes.size());
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      addEdges(prog, acc[static_cast<size_t>(i)], acc[static_cast<size_t>(j)], i, j, false,
               dag.edges);
  // Carried by a loop: from a node of a later call of the body to one of an earlier call.
  std::vector<std::vector<int>> bodies;
  loopBodies(prog.body, bodies);
  std::set<std::pair<int, int>> seen;
  for (const std::vector<int>& calls : bodies)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const DagNode& a = dag.nodes[static_cast<size_t>(i)];
        const DagNode& b = dag.nodes[static_cast<size_t>(j)];
        const bool inBody = std::count(calls.begin(), calls.end(), a.call) &&
                            std::count(calls.begin(), calls.end(), b.call);
        if (!inBody || i < j || !seen.insert({i, j}).second) continue;
        addEdges(prog, acc[static_cast<size_t>(i)], acc[static_cast<size_t>(j)], i, j, true,
                 dag.edges);
      }
  return dag;
}

const char* kindName(DagEdge::Kind k) {
  switch (k) {
    case DagEdge::Kind::Flow:
      return "flow";
    case DagEdge::Kind::Anti:
      return "anti";
    case DagEdge::Kind::Output:
      return "output";
  }
  return "?";
}

std::string nodeName(const StencilDag& dag, const Program& prog, int node) {
  const DagNode& d = dag.nodes.at(static_cast<size_t>(node));
  const CallInst& c = prog.calls.at(static_cast<size_t>(d.call));
  const Stmt& st = c.stmts.at(static_cast<size_t>(d.stmt));
  const std::string writes = st.lhsIsScalar()
                                 ? c.localScalars.at(static_cast<size_t>(st.lhs->index)).name
                                 : prog.arrayName(c, st.lhs->array);
  return fmt::format("#{} {} s{} ({})", d.call, c.name, d.stmt, writes);
}

std::vector<std::vector<int>> forwardSuccessors(const StencilDag& dag) {
  std::vector<std::vector<int>> succ(dag.nodes.size());
  for (const DagEdge& e : dag.edges)
    if (!e.carried) succ[static_cast<size_t>(e.from)].push_back(e.to);
  return succ;
}

namespace {

/// From every node outside the group that a group node reaches directly, walks on: reaching the
/// group again is a path that leaves and re-enters it. Returns that path (first and last in the
/// group), or an empty one where the group is convex.
std::vector<int> reentry(const std::vector<std::vector<int>>& succ, const std::set<int>& group) {
  const size_t n = succ.size();
  std::vector<char> in(n, 0);
  for (int g : group) in[static_cast<size_t>(g)] = 1;
  std::vector<int> parent(n, -2);
  std::vector<int> todo;
  for (int g : group)
    for (int s : succ[static_cast<size_t>(g)])
      if (!in[static_cast<size_t>(s)] && parent[static_cast<size_t>(s)] == -2) {
        parent[static_cast<size_t>(s)] = g;
        todo.push_back(s);
      }
  while (!todo.empty()) {
    const int x = todo.back();
    todo.pop_back();
    for (int s : succ[static_cast<size_t>(x)]) {
      if (in[static_cast<size_t>(s)]) {
        std::vector<int> path = {s, x};
        for (int p = parent[static_cast<size_t>(x)];
             p >= 0 && !in[static_cast<size_t>(path.back())];
             p = parent[static_cast<size_t>(path.back())])
          path.push_back(p);
        std::reverse(path.begin(), path.end());
        return path;
      }
      if (parent[static_cast<size_t>(s)] == -2) {
        parent[static_cast<size_t>(s)] = x;
        todo.push_back(s);
      }
    }
  }
  return {};
}

}  // namespace

bool convex(const std::vector<std::vector<int>>& succ, const std::set<int>& group) {
  return reentry(succ, group).empty();
}

bool convex(const StencilDag& dag, const Program& prog, const std::set<int>& group,
            std::string* why) {
  const std::vector<int> path = reentry(forwardSuccessors(dag), group);
  if (path.empty()) return true;
  if (why) {
    std::vector<std::string> names;
    for (int p : path) names.push_back(nodeName(dag, prog, p));
    *why = fmt::format("{}", fmt::join(names, " -> "));
  }
  return false;
}

std::string dagText(const StencilDag& dag, const Program& prog) {
  std::string out = fmt::format(
      "stencil DAG: {} node{} (statements, program order), {} dependence{} (offsets per "
      "iterator {})\n",
      dag.nodes.size(), dag.nodes.size() == 1 ? "" : "s", dag.edges.size(),
      dag.edges.size() == 1 ? "" : "s", fmt::format("({})", fmt::join(prog.iteratorNames(), ",")));
  for (size_t k = 0; k < dag.nodes.size(); ++k)
    out += fmt::format("  n{}  {}\n", k, nodeName(dag, prog, static_cast<int>(k)));
  for (const DagEdge& e : dag.edges)
    out += fmt::format("  n{} -> n{}  {:<6} {}  {}{}\n", e.from, e.to, kindName(e.kind), e.via,
                       offsetsText(e), e.carried ? "  (carried by the loop)" : "");
  return out;
}

std::string dagDot(const StencilDag& dag, const Program& prog) {
  std::string out =
      "// The stencil DAG of " + std::string(prog.file ? prog.file->name() : "the program") +
      " (tessel info --dot): statements as nodes, a cluster per call; flow edges solid, anti "
      "dashed, output dotted, carried by a loop grey. Offsets per iterator (" +
      fmt::format("{}", fmt::join(prog.iteratorNames(), ",")) + ").\ndigraph stencil_dag {\n" +
      "  node [shape=box, fontname=\"monospace\"];\n";
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    out += fmt::format("  subgraph cluster_call{} {{\n    label=\"#{} {}\";\n", c, c,
                       prog.calls[c].name);
    for (size_t k = 0; k < dag.nodes.size(); ++k)
      if (dag.nodes[k].call == static_cast<int>(c))
        out +=
            fmt::format("    n{} [label=\"{}\"];\n", k, nodeName(dag, prog, static_cast<int>(k)));
    out += "  }\n";
  }
  for (const DagEdge& e : dag.edges) {
    const char* style = e.kind == DagEdge::Kind::Flow   ? "solid"
                        : e.kind == DagEdge::Kind::Anti ? "dashed"
                                                        : "dotted";
    out += fmt::format("  n{} -> n{} [label=\"{} {} {}\", style={}{}];\n", e.from, e.to,
                       kindName(e.kind), e.via, offsetsText(e), style,
                       e.carried ? ", color=grey, constraint=false" : "");
  }
  return out + "}\n";
}

}  // namespace tessel
