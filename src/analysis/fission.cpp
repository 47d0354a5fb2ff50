// Kernel fission (fission.h).
#include "analysis/fission.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/accesses.h"

namespace tessel {

namespace {

/// A call's value a statement touches: a global array (kind 0), a local array (1), a local
/// scalar (2).
using Value = std::pair<int, int>;

Value valueOf(const Reference& r) {
  if (r.scalar) return {2, r.index};
  return {r.array.local ? 1 : 0, r.array.index};
}

}  // namespace

const char* fissionModeName(FissionMode m) {
  return m == FissionMode::MaxFuse ? "maxfuse" : "trivial-fission";
}

FissionPlan trivialFission(const Program& prog, int callIndex) {
  const CallInst& call = prog.calls.at(static_cast<size_t>(callIndex));
  const size_t n = call.stmts.size();
  std::vector<StmtAccesses> acc;
  for (const Stmt& st : call.stmts) acc.push_back(stmtAccesses(st));
  // The global arrays written, in the order of their last write.
  std::vector<int> outputs;
  for (size_t s = 0; s < n; ++s) {
    const Value w = valueOf(acc[s].write);
    if (w.first != 0) continue;
    outputs.erase(std::remove(outputs.begin(), outputs.end(), w.second), outputs.end());
    outputs.push_back(w.second);
  }
  FissionPlan plan;
  for (int out : outputs) {
    // The statements writing `out`, and backwards the latest earlier writers of every local
    // value they read (a local scalar's reads take its last assignment before them).
    std::set<int> kernel;
    std::vector<int> todo;
    for (size_t s = 0; s < n; ++s)
      if (valueOf(acc[s].write) == Value{0, out}) todo.push_back(static_cast<int>(s));
    while (!todo.empty()) {
      const int s = todo.back();
      todo.pop_back();
      if (!kernel.insert(s).second) continue;
      for (const Reference& r : acc[static_cast<size_t>(s)].reads) {
        const Value v = valueOf(r);
        if (v.first == 0) continue;
        for (int w = s - 1; w >= 0; --w)
          if (valueOf(acc[static_cast<size_t>(w)].write) == v) {
            todo.push_back(w);
            if (v.first == 2) break;  // a scalar: its last assignment (which may read itself)
          }
      }
    }
    plan.kernels.push_back({kernel.begin(), kernel.end()});
    plan.outputs.push_back(prog.arrays.at(static_cast<size_t>(out)).name);
  }
  // Splitting must not change what a statement reads: no statement may read (or write) a global
  // array that a statement of another kernel writes.
  for (size_t k = 0; k < plan.kernels.size() && plan.kernels.size() > 1; ++k)
    for (int s : plan.kernels[k])
      for (size_t o = 0; o < plan.kernels.size(); ++o) {
        if (o == k) continue;
        for (int w : plan.kernels[o]) {
          const Value wv = valueOf(acc[static_cast<size_t>(w)].write);
          if (wv.first != 0) continue;
          bool touches = valueOf(acc[static_cast<size_t>(s)].write) == wv;
          for (const Reference& r : acc[static_cast<size_t>(s)].reads)
            touches = touches || valueOf(r) == wv;
          if (touches && s != w) {
            plan.whyNot = fmt::format(
                "statement {} of '{}' touches '{}', which statement {} writes in the kernel of "
                "'{}': split apart, it would no longer see that statement's region (language.md "
                "5.5)",
                s + 1, call.name, prog.arrays.at(static_cast<size_t>(wv.second)).name, w + 1,
                plan.outputs[o]);
            plan.kernels.clear();
            plan.outputs.clear();
            return plan;
          }
        }
      }
  return plan;
}

namespace {

/// Call `c` with only the statements `keep`, and only the locals they use.
CallInst subCall(const CallInst& c, const std::vector<int>& keep) {
  CallInst out = c;
  out.stmts.clear();
  for (int s : keep) out.stmts.push_back(c.stmts.at(static_cast<size_t>(s)));
  // Keep every local declaration (indices stay valid); the printer declares them all.
  return out;
}

void rebuild(const std::vector<ExecNode>& nodes, const std::vector<std::vector<int>>& replace,
             std::vector<ExecNode>& out) {
  for (const ExecNode& n : nodes) {
    if (n.kind == ExecNode::Kind::Call) {
      for (int c : replace.at(static_cast<size_t>(n.call))) {
        ExecNode m = n;
        m.call = c;
        out.push_back(m);
      }
      continue;
    }
    ExecNode loop = n;
    loop.body.clear();
    rebuild(n.body, replace, loop.body);
    out.push_back(loop);
  }
}

}  // namespace

Program splitProgram(const Program& prog, FissionMode mode, std::vector<std::string>& notes) {
  Program out = prog;
  out.calls.clear();
  std::vector<std::vector<int>> replace(prog.calls.size());
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    const CallInst& call = prog.calls[c];
    std::vector<std::vector<int>> kernels;
    if (mode == FissionMode::TrivialFission) {
      FissionPlan plan = trivialFission(prog, static_cast<int>(c));
      if (!plan.whyNot.empty())
        notes.push_back(fmt::format("call {} ({}) stays whole: {}", c, call.name, plan.whyNot));
      else if (plan.kernels.size() > 1)
        notes.push_back(fmt::format("call {} ({}) -> {} kernels, one per output ({})", c, call.name,
                                    plan.kernels.size(), fmt::join(plan.outputs, ", ")));
      kernels = plan.kernels;
    }
    if (kernels.size() <= 1) {
      std::vector<int> all(call.stmts.size());
      for (size_t s = 0; s < all.size(); ++s) all[s] = static_cast<int>(s);
      kernels = {all};
    }
    for (const std::vector<int>& k : kernels) {
      replace[c].push_back(static_cast<int>(out.calls.size()));
      out.calls.push_back(subCall(call, k));
    }
  }
  out.body.clear();
  rebuild(prog.body, replace, out.body);
  return out;
}

}  // namespace tessel
