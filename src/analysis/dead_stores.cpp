// Dead stores of fused kernels (dead_stores.h).
#include "analysis/dead_stores.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "analysis/accesses.h"

namespace tessel {

namespace {

using StmtAt = std::pair<int, int>;  // (call, statement)

/// The global array a reference denotes, or nullopt (a local array or scalar).
std::optional<int> globalArray(const Reference& r) {
  if (r.scalar || r.array.local) return std::nullopt;
  return r.array.index;
}

/// The calls at body positions first, first + 1, ..., `count` of them, wrapping around the body
/// of an iterate loop and stopping at the end of a straight run.
std::vector<int> callsFrom(const FusedGroupPlace& p, int first, int count) {
  std::vector<int> out;
  const int n = static_cast<int>(p.body.size());
  for (int k = 0; k < count; ++k) {
    int at = first + k;
    if (p.iterate)
      at %= n;
    else if (at >= n)
      break;
    out.push_back(p.body[static_cast<size_t>(at)]);
  }
  return out;
}

/// How `calls` first touch array `a`: nullopt when they do not, else the statement and whether
/// it reads `a` (a read anywhere in a statement comes before its write).
struct Touch {
  StmtAt at;
  bool read = false;
};
std::optional<Touch> firstTouch(const Program& prog, const std::vector<int>& calls, int a) {
  for (int c : calls) {
    const CallInst& call = prog.calls.at(static_cast<size_t>(c));
    for (size_t s = 0; s < call.stmts.size(); ++s) {
      const StmtAccesses acc = stmtAccesses(call.stmts[s]);
      for (const Reference& r : acc.reads)
        if (globalArray(r) == a) return Touch{{c, static_cast<int>(s)}, true};
      if (globalArray(acc.write) == a) return Touch{{c, static_cast<int>(s)}, false};
    }
  }
  return std::nullopt;
}

/// Some call in `nodes` (and the loops among them) reads or writes array `a`.
bool touches(const Program& prog, const std::vector<const ExecNode*>& nodes, int a) {
  for (const ExecNode* n : nodes) {
    if (n->kind == ExecNode::Kind::Call) {
      if (firstTouch(prog, {n->call}, a)) return true;
      continue;
    }
    std::vector<const ExecNode*> inner;
    for (const ExecNode& b : n->body) inner.push_back(&b);
    if (touches(prog, inner, a)) return true;
  }
  return false;
}

}  // namespace

std::vector<int> liveResults(const Program& prog, const FusedGroupPlace& place, int phase) {
  const int t = std::max(1, place.timeTile);
  // What the launch computes, and per array the statement that writes it last.
  std::map<int, StmtAt> lastWriter;
  for (int c : callsFrom(place, phase, t)) {
    const CallInst& call = prog.calls.at(static_cast<size_t>(c));
    for (size_t s = 0; s < call.stmts.size(); ++s)
      if (auto a = globalArray(stmtAccesses(call.stmts[s]).write))
        lastWriter[*a] = {c, static_cast<int>(s)};
  }
  const bool copyoutList = std::any_of(prog.arrays.begin(), prog.arrays.end(),
                                       [](const ArrayDecl& d) { return d.data.copyout; });
  // What runs next, in order: the group's later launches and its remaining steps run per
  // statement are the body's calls from the next position on (around the loop's body once).
  const std::vector<int> next = callsFrom(place, phase + t, static_cast<int>(place.body.size()));
  std::vector<int> live;
  for (const auto& [a, writer] : lastWriter) {
    bool dead = copyoutList && !prog.arrays.at(static_cast<size_t>(a)).data.copyout &&
                place.topLevel && !touches(prog, place.after, a);
    if (dead) {
      auto touch = firstTouch(prog, next, a);
      dead = !touch || (!touch->read && touch->at == writer);
    }
    if (!dead) live.push_back(a);
  }
  return live;
}

}  // namespace tessel
