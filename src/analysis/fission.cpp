// Kernel fission (fission.h).
#include "analysis/fission.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "analysis/accesses.h"
#include "analysis/regions.h"

namespace tessel {

CallValue callValueOf(const Reference& r) {
  if (r.scalar) return {2, r.index};
  return {r.array.local ? 1 : 0, r.array.index};
}

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
    const CallValue w = callValueOf(acc[s].write);
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
      if (callValueOf(acc[s].write) == CallValue{0, out}) todo.push_back(static_cast<int>(s));
    while (!todo.empty()) {
      const int s = todo.back();
      todo.pop_back();
      if (!kernel.insert(s).second) continue;
      for (const Reference& r : acc[static_cast<size_t>(s)].reads) {
        const CallValue v = callValueOf(r);
        if (v.first == 0) continue;
        for (int w = s - 1; w >= 0; --w)
          if (callValueOf(acc[static_cast<size_t>(w)].write) == v) {
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
          const CallValue wv = callValueOf(acc[static_cast<size_t>(w)].write);
          if (wv.first != 0) continue;
          bool touches = callValueOf(acc[static_cast<size_t>(s)].write) == wv;
          for (const Reference& r : acc[static_cast<size_t>(s)].reads)
            touches = touches || callValueOf(r) == wv;
          if (touches && s != w) {
            plan.whyNot = fmt::format(
                "statement s{} of '{}' touches '{}', which statement s{} writes in the kernel "
                "of '{}': split apart, it would no longer see that statement's region "
                "(language.md 5.5)",
                s, call.name, prog.arrays.at(static_cast<size_t>(wv.second)).name, w,
                plan.outputs[o]);
            plan.kernels.clear();
            plan.outputs.clear();
            return plan;
          }
        }
      }
  return plan;
}

CallInst subCall(const CallInst& c, const std::vector<int>& keep) {
  CallInst out = c;
  out.stmts.clear();
  for (int s : keep) out.stmts.push_back(c.stmts.at(static_cast<size_t>(s)));
  return out;
}

std::vector<ExecNode> replacedCalls(const std::vector<ExecNode>& nodes,
                                    const std::vector<std::vector<int>>& replace) {
  std::vector<ExecNode> out;
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
    loop.body = replacedCalls(n.body, replace);
    out.push_back(loop);
  }
  return out;
}

namespace {

std::string domainKey(const Domain& d, const Program& prog) {
  std::string k;
  for (const Range& r : d)
    k += toString(r.lo, prog.iteratorNames()) + ":" + toString(r.hi, prog.iteratorNames()) + ",";
  return k;
}

/// `e` of call b appended to a call whose locals come first: b's local arrays, local scalars and
/// initialised locals shifted past a's and renamed by `rename`.
ExprPtr shiftLocals(const ExprPtr& e, size_t arrays, size_t scalars, size_t inits,
                    const std::map<std::string, std::string>& rename) {
  auto copy = std::make_shared<Expr>(*e);
  auto renamed = [&](const std::string& n) {
    auto it = rename.find(n);
    return it == rename.end() ? n : it->second;
  };
  if (e->kind == ExprKind::ArrayRef && e->array.local) {
    copy->array.index += static_cast<int>(arrays);
    copy->name = renamed(e->name);
  }
  if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Local) {
    copy->index += static_cast<int>(scalars);
    copy->name = renamed(e->name);
  }
  if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Init) {
    copy->index += static_cast<int>(inits);
    copy->name = renamed(e->name);
  }
  for (ExprPtr& x : copy->args) x = shiftLocals(x, arrays, scalars, inits, rename);
  return copy;
}

/// Call b's statements after call a's, in one call: b's locals follow a's, renamed
/// (`name_stencil`) where a name is taken.
CallInst mergedCall(const Program& prog, const CallInst& a, const CallInst& b) {
  CallInst m = a;
  m.name = a.name + "_" + b.name;
  std::set<std::string> taken;
  for (const ArrayDecl& d : prog.arrays) taken.insert(d.name);
  for (const ScalarDecl& d : prog.scalars) taken.insert(d.name);
  for (const LocalArray& l : a.localArrays) taken.insert(l.name);
  for (const LocalScalar& l : a.localScalars) taken.insert(l.name);
  for (const InitLocal& l : a.inits) taken.insert(l.name);
  std::map<std::string, std::string> rename;
  auto fresh = [&](const std::string& n) {
    std::string name = n;
    for (int k = 2; taken.count(name); ++k)
      name = fmt::format("{}_{}{}", n, b.name, k == 2 ? "" : std::to_string(k));
    taken.insert(name);
    if (name != n) rename[n] = name;
    return name;
  };
  for (LocalArray l : b.localArrays) {
    l.name = fresh(l.name);
    m.localArrays.push_back(l);
  }
  for (LocalScalar l : b.localScalars) {
    l.name = fresh(l.name);
    m.localScalars.push_back(l);
  }
  for (InitLocal l : b.inits) {
    l.name = fresh(l.name);
    l.value =
        shiftLocals(l.value, a.localArrays.size(), a.localScalars.size(), a.inits.size(), rename);
    m.inits.push_back(l);
  }
  for (Stmt st : b.stmts) {
    st.lhs =
        shiftLocals(st.lhs, a.localArrays.size(), a.localScalars.size(), a.inits.size(), rename);
    st.rhs =
        shiftLocals(st.rhs, a.localArrays.size(), a.localScalars.size(), a.inits.size(), rename);
    m.stmts.push_back(st);
  }
  return m;
}

/// Whether every statement of `m` (a's then b's) iterates and writes where it did in its own
/// call: merged, a statement that reads what an earlier one writes has its region shrunk to the
/// writer's (language.md 5.5), which would change what the program computes.
bool sameRegions(const Program& prog, const CallInst& m, const CallInst& a, const CallInst& b) {
  const CallRegions merged = analyzeRegions(prog, m);
  std::vector<StmtRegion> apart = analyzeRegions(prog, a).stmts;
  for (const StmtRegion& r : analyzeRegions(prog, b).stmts) apart.push_back(r);
  if (merged.stmts.size() != apart.size()) return false;
  for (size_t s = 0; s < apart.size(); ++s) {
    const StmtRegion& x = merged.stmts[s];
    const StmtRegion& y = apart[s];
    if (x.conditions.size() != y.conditions.size()) return false;
    for (size_t d = 0; d < x.iter.size(); ++d)
      if (x.iter[d].str() != y.iter[d].str() || x.written[d].str() != y.written[d].str())
        return false;
  }
  return true;
}

/// maxfuse: runs of consecutive calls in one list of the call sequence with the same domain,
/// merged while the regions stay (paper 000 VI-B: "all the stencil functions with the same
/// domain are fused").
void maxfuse(const Program& prog, const std::vector<ExecNode>& nodes, Program& out,
             std::vector<ExecNode>& body, std::vector<std::string>& notes) {
  std::optional<CallInst> run;
  std::vector<int> runCalls;
  ExecNode runNode;
  auto flush = [&] {
    if (!run) return;
    if (runCalls.size() > 1)
      notes.push_back(fmt::format("calls {} fused into one stencil ({})", fmt::join(runCalls, ", "),
                                  run->name));
    runNode.call = static_cast<int>(out.calls.size());
    out.calls.push_back(*run);
    body.push_back(runNode);
    run.reset();
    runCalls.clear();
  };
  for (const ExecNode& n : nodes) {
    if (n.kind == ExecNode::Kind::Iterate) {
      flush();
      ExecNode loop = n;
      loop.body.clear();
      maxfuse(prog, n.body, out, loop.body, notes);
      body.push_back(loop);
      continue;
    }
    const CallInst& c = prog.calls.at(static_cast<size_t>(n.call));
    if (run && domainKey(run->domain, prog) != domainKey(c.domain, prog))
      notes.push_back(
          fmt::format("call {} ({}) stays apart from the calls before it: another "
                      "domain",
                      n.call, c.name));
    if (run && domainKey(run->domain, prog) == domainKey(c.domain, prog)) {
      CallInst m = mergedCall(prog, *run, c);
      if (sameRegions(prog, m, *run, c)) {
        run = m;
        runCalls.push_back(n.call);
        continue;
      }
      notes.push_back(fmt::format(
          "call {} ({}) stays apart from the calls before it: fused, a statement would read "
          "what an earlier one writes only on that one's region (language.md 5.5)",
          n.call, c.name));
    }
    flush();
    run = c;
    runCalls = {n.call};
    runNode = n;
  }
  flush();
}

}  // namespace

Program splitProgram(const Program& prog, FissionMode mode, std::vector<std::string>& notes) {
  Program out = prog;
  out.calls.clear();
  if (mode == FissionMode::MaxFuse) {
    out.body.clear();
    maxfuse(prog, prog.body, out, out.body, notes);
    return out;
  }
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
  out.body = replacedCalls(prog.body, replace);
  return out;
}

}  // namespace tessel
