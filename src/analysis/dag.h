// The stencil DAG of a program (issue 13; paper 004 section VI, paper 002 section 2.3, paper 000
// section VI): the statements of every call as nodes, in program order (Program::calls, then
// each call's statements), and the dependences between them as edges, each with the offsets of
// the accesses that carry it. This is what fusion and fission decide on: which nodes may share a
// kernel (a convex group), and how far apart (the offsets: the halo a fused consumer needs).
//
//   flow (read after write): `to` reads a value `from` wrote; the offsets are `to`'s reads of it,
//     relative to `to`'s point (a fused `to` needs `from` right on its region grown by them);
//   anti (write after read): `to` overwrites a value `from` read; the offsets are `from`'s reads;
//   output (write after write): both write the value; the offsets are the writes'.
//
// Values are global arrays, and a call's local arrays and per-point local scalars (a call's own:
// another call's locals are other values). Each call counts once, in program order: one
// iteration of every `iterate` loop. Dependences from a later call of a loop body to an earlier
// one (the next iteration's) are listed apart as carried; the DAG itself (`edges`) only runs
// forward, so it has no cycle.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ir/program.h"

namespace tessel {

struct DagNode {
  int call = -1, stmt = -1;  // Program::calls index, statement index
};

struct DagEdge {
  enum class Kind { Flow, Anti, Output };
  int from = -1, to = -1;  // node indices
  Kind kind = Kind::Flow;
  std::string via;  // the value: "lap", "b", "r (local scalar)"
  /// The distinct offsets per iterator (iterator order) of the accesses that carry it, sorted.
  std::vector<std::vector<int64_t>> offsets;
  bool carried = false;  // from a later call of an `iterate` body to an earlier one
};

struct StencilDag {
  std::vector<DagNode> nodes;
  std::vector<DagEdge> edges;  // forward (from < to), then the carried ones
};

StencilDag buildDag(const Program& prog);

/// "flow", "anti", "output".
const char* kindName(DagEdge::Kind k);

/// Whether `group` (node indices) is convex in the DAG's forward edges: no path leaves it and
/// enters it again (a kernel fusing it would need a value computed outside it, in between). When
/// not and `why` is given, a path that does: "s0 (lap) -> s1 (fli) -> s3 (out)".
bool convex(const StencilDag& dag, const Program& prog, const std::set<int>& group,
            std::string* why = nullptr);

/// Per node, the nodes its forward (not loop-carried) edges reach: what convex walks, computed
/// once by a caller that tests many groups (the greedy fusion tests every pair in every round).
std::vector<std::vector<int>> forwardSuccessors(const StencilDag& dag);
/// convex() on successors computed once (no path, no reason given).
bool convex(const std::vector<std::vector<int>>& succ, const std::set<int>& group);

/// "#0 hdiff s2" (call, stencil, statement) and the value it writes: a node's name.
std::string nodeName(const StencilDag& dag, const Program& prog, int node);

/// The DAG as text: per node what it writes, per edge kind, value and offsets.
std::string dagText(const StencilDag& dag, const Program& prog);

/// The DAG in Graphviz's dot language: a cluster per call, an edge per dependence (flow solid,
/// anti dashed, output dotted, carried in grey), labelled with the value and its offsets.
std::string dagDot(const StencilDag& dag, const Program& prog);

}  // namespace tessel
