// Fusion groups as a program (regroup.h).
#include "analysis/regroup.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/dag.h"
#include "analysis/fission.h"
#include "analysis/regions.h"

namespace tessel {

namespace {

/// Per statement of a call: the value it writes and the values it reads.
struct ValueUse {
  CallValue write;
  std::set<CallValue> reads;
};

std::vector<ValueUse> valueUses(const CallInst& call) {
  std::vector<ValueUse> uses;
  for (const Stmt& st : call.stmts) {
    const StmtAccesses acc = stmtAccesses(st);
    ValueUse u{callValueOf(acc.write), {}};
    for (const Reference& r : acc.reads) u.reads.insert(callValueOf(r));
    uses.push_back(std::move(u));
  }
  return uses;
}

/// Statements s < t conflict when one writes a value the other touches: t must stay after s.
bool conflict(const ValueUse& s, const ValueUse& t) {
  return s.write == t.write || t.reads.count(s.write) || s.reads.count(t.write);
}

/// The group of each statement, -1 where none.
std::vector<int> groupOf(size_t stmts, const CallGroups& groups) {
  std::vector<int> g(stmts, -1);
  for (size_t k = 0; k < groups.size(); ++k)
    for (int s : groups[k])
      if (s >= 0 && static_cast<size_t>(s) < stmts) g[static_cast<size_t>(s)] = static_cast<int>(k);
  return g;
}

/// Topological order of the groups under the conflicts (ties: the group with the earliest
/// statement first); shorter than `groups` when they form a cycle.
std::vector<int> groupOrder(const CallInst& call, const CallGroups& groups) {
  const std::vector<ValueUse> uses = valueUses(call);
  const std::vector<int> g = groupOf(call.stmts.size(), groups);
  const size_t m = groups.size();
  std::vector<std::set<int>> succ(m);
  std::vector<int> preds(m, 0);
  for (size_t s = 0; s < uses.size(); ++s)
    for (size_t t = s + 1; t < uses.size(); ++t)
      if (g[s] != g[t] && conflict(uses[s], uses[t]) &&
          succ[static_cast<size_t>(g[s])].insert(g[t]).second)
        ++preds[static_cast<size_t>(g[t])];
  auto first = [&](int k) {
    return *std::min_element(groups[static_cast<size_t>(k)].begin(),
                             groups[static_cast<size_t>(k)].end());
  };
  std::vector<int> order;
  std::vector<bool> done(m, false);
  for (;;) {
    int pick = -1;
    for (size_t k = 0; k < m; ++k)
      if (!done[k] && preds[k] == 0 && (pick < 0 || first(static_cast<int>(k)) < first(pick)))
        pick = static_cast<int>(k);
    if (pick < 0) break;
    done[static_cast<size_t>(pick)] = true;
    order.push_back(pick);
    for (int t : succ[static_cast<size_t>(pick)]) --preds[static_cast<size_t>(t)];
  }
  return order;
}

/// A local value a statement touches, a per-point scalar's by the assignment whose value it is
/// (language.md 9.3: a scalar holds its last assignment's value): {1, array, -1} or {2, scalar,
/// assigning statement}.
struct Versioned {
  int kind = 1, index = -1, version = -1;
  auto operator<=>(const Versioned&) const = default;
};

/// Per statement: the local value it writes (kind 0: a global array) and those it reads.
struct VersionedUse {
  Versioned write;
  std::set<Versioned> reads;
};

std::vector<VersionedUse> versionedUses(const CallInst& call) {
  std::vector<VersionedUse> uses;
  std::map<int, int> last;  // scalar -> its latest assignment so far
  for (size_t s = 0; s < call.stmts.size(); ++s) {
    const StmtAccesses acc = stmtAccesses(call.stmts[s]);
    VersionedUse u;
    for (const Reference& r : acc.reads) {
      const CallValue v = callValueOf(r);
      if (v.first == 1) u.reads.insert({1, v.second, -1});
      if (v.first == 2) u.reads.insert({2, v.second, last.count(v.second) ? last[v.second] : -1});
    }
    const CallValue w = callValueOf(acc.write);
    u.write = {w.first, w.second, w.first == 2 ? static_cast<int>(s) : -1};
    if (w.first == 2) last[w.second] = static_cast<int>(s);
    uses.push_back(std::move(u));
  }
  return uses;
}

/// The local values (arrays, and scalars per assignment) touched by statements of more than one
/// group.
std::set<Versioned> crossingValues(const CallInst& call, const CallGroups& groups) {
  const std::vector<VersionedUse> uses = versionedUses(call);
  const std::vector<int> g = groupOf(call.stmts.size(), groups);
  std::map<Versioned, std::set<int>> touchedBy;
  for (size_t s = 0; s < uses.size(); ++s) {
    if (uses[s].write.kind != 0) touchedBy[uses[s].write].insert(g[s]);
    for (const Versioned& v : uses[s].reads) touchedBy[v].insert(g[s]);
  }
  std::set<Versioned> crossing;
  for (const auto& [v, gs] : touchedBy)
    if (gs.size() > 1) crossing.insert(v);
  return crossing;
}

/// The value's name in the source; a scalar assigned several times gets its assignment's
/// ordinal (`m0_2` for the second).
std::string valueName(const CallInst& call, const Versioned& v) {
  if (v.kind == 1) return call.localArrays.at(static_cast<size_t>(v.index)).name;
  const std::string& name = call.localScalars.at(static_cast<size_t>(v.index)).name;
  int assignments = 0, ordinal = 0;
  for (size_t s = 0; s < call.stmts.size(); ++s) {
    const Stmt& st = call.stmts[s];
    if (st.lhsIsScalar() && st.lhs->scalarKind == ScalarKind::Local && st.lhs->index == v.index) {
      ++assignments;
      if (static_cast<int>(s) == v.version) ordinal = assignments;
    }
  }
  return assignments > 1 ? fmt::format("{}_{}", name, ordinal) : name;
}

/// `b + c` as an int expression (b null: the constant c).
ExprPtr boundExpr(const SymBound& b) {
  const SymBound::Term& t = b.terms.front();
  if (!t.base) return intLit(t.c);
  if (t.c == 0) return t.base;
  return binary(t.c > 0 ? Op::Add : Op::Sub, t.base, intLit(t.c > 0 ? t.c : -t.c));
}

bool sameRegion(const StmtRegion& a, const StmtRegion& b) {
  if (a.conditions.size() != b.conditions.size()) return false;
  for (size_t c = 0; c < a.conditions.size(); ++c)
    if (a.conditions[c].a.str() != b.conditions[c].a.str() ||
        a.conditions[c].b.str() != b.conditions[c].b.str())
      return false;
  for (size_t d = 0; d < a.iter.size(); ++d)
    if (a.iter[d].str() != b.iter[d].str() || a.written[d].str() != b.written[d].str())
      return false;
  return true;
}

std::string regionText(const StmtRegion& r) {
  std::vector<std::string> parts;
  for (const SymRange& x : r.iter) parts.push_back(x.str());
  return fmt::format("{}", fmt::join(parts, ", "));
}

/// A name no global, parameter, iterator or local of `call` uses, from `base`.
std::string freshName(const Program& prog, int callIndex, const std::string& base) {
  const CallInst& call = prog.calls.at(static_cast<size_t>(callIndex));
  std::set<std::string> taken;
  for (const ArrayDecl& d : prog.arrays) taken.insert(d.name);
  for (const ScalarDecl& d : prog.scalars) taken.insert(d.name);
  for (const Param& p : prog.params) taken.insert(p.name);
  for (const Iterator& i : prog.iterators) taken.insert(i.name);
  for (const StencilDef& s : prog.stencils) taken.insert(s.name);
  for (size_t ci = 0; ci < prog.calls.size(); ++ci) {
    const CallInst& c = prog.calls[ci];
    taken.insert(c.name);
    if (static_cast<int>(ci) == callIndex) continue;  // its promoted locals leave it
    for (const LocalArray& l : c.localArrays) taken.insert(l.name);
    for (const LocalScalar& l : c.localScalars) taken.insert(l.name);
    for (const InitLocal& l : c.inits) taken.insert(l.name);
  }
  std::string name = base;
  for (int k = 2; taken.count(name); ++k)
    name = fmt::format("{}_{}{}", base, call.name, k == 2 ? "" : std::to_string(k));
  return name;
}

/// The global arrays promoted values live in (value -> Program::arrays index).
using Promoted = std::map<Versioned, int>;

/// The reference to promoted global array `index` at the point itself plus `subs`' offsets (a
/// scalar: at the point).
ExprPtr globalRef(const Program& prog, int index, const Expr& e) {
  const ArrayDecl& d = prog.arrays.at(static_cast<size_t>(index));
  std::vector<Subscript> subs = e.subs;
  if (e.kind == ExprKind::ScalarRef)
    for (int dim = 0; dim < prog.dims(); ++dim) subs.push_back(Subscript{dim, 0});
  return arrayRef(ArrayId{false, index}, d.name, e.type, subs, e.loc);
}

/// Read expression `e` of statement `s` with the promoted values read from their arrays
/// (`last`: per scalar, the assignment whose value `s` reads).
ExprPtr promoteReads(const ExprPtr& e, const Promoted& promoted, const std::map<int, int>& last,
                     const Program& prog) {
  std::optional<Versioned> v;
  if (e->kind == ExprKind::ArrayRef && e->array.local) v = Versioned{1, e->array.index, -1};
  if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Local)
    v = Versioned{2, e->index, last.count(e->index) ? last.at(e->index) : -1};
  if (v) {
    auto it = promoted.find(*v);
    if (it != promoted.end()) return globalRef(prog, it->second, *e);
  }
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) a = promoteReads(a, promoted, last, prog);
  return copy;
}

/// The call's statements with the promoted values in global memory: reads of them load the
/// array, their writes store it, and a compound assignment whose old or new value is promoted
/// becomes a plain one reading the old value where it lives.
std::vector<Stmt> promoteStmts(const CallInst& call, const Promoted& promoted,
                               const Program& prog) {
  std::vector<Stmt> out;
  std::map<int, int> last;
  for (size_t s = 0; s < call.stmts.size(); ++s) {
    Stmt st = call.stmts[s];
    st.rhs = promoteReads(st.rhs, promoted, last, prog);
    if (st.lhsIsScalar() && st.lhs->scalarKind == ScalarKind::Local) {
      const int x = st.lhs->index;
      const Versioned now{2, x, static_cast<int>(s)};
      const bool newPromoted = promoted.count(now) > 0;
      const bool oldPromoted = last.count(x) && promoted.count(Versioned{2, x, last.at(x)}) > 0;
      if (st.op != AssignOp::Set && (newPromoted || oldPromoted)) {
        st.rhs = binary(compoundOp(st.op), promoteReads(st.lhs, promoted, last, prog), st.rhs,
                        st.rhs->loc);
        st.op = AssignOp::Set;
      }
      if (newPromoted) st.lhs = globalRef(prog, promoted.at(now), *st.lhs);
      last[x] = static_cast<int>(s);
    } else {
      st.lhs = promoteReads(st.lhs, promoted, last, prog);  // a local array: same for all
    }
    out.push_back(std::move(st));
  }
  return out;
}

struct Regrouped {
  std::vector<CallInst> calls;
  std::vector<ArrayDecl> arrays;  // the promoted temporaries, appended to Program::arrays
  std::vector<std::string> promotedNames;
  int pinned = 0;
  std::string whyNot;
};

/// Call `callIndex` as the calls of `ordered` (groupingProblem() empty, dependence order).
Regrouped regroupCall(const Program& prog, int callIndex, const CallGroups& ordered) {
  const CallInst& call = prog.calls.at(static_cast<size_t>(callIndex));
  Regrouped r;
  Program with = prog;  // `prog` with the promoted temporaries, for the region analysis
  Promoted promoted;
  for (const Versioned& v : crossingValues(call, ordered)) {
    ArrayDecl d;
    d.name = freshName(with, callIndex, valueName(call, v));
    d.data.allocin = true;
    if (v.kind == 1) {
      const LocalArray& l = call.localArrays.at(static_cast<size_t>(v.index));
      d.type = l.type;
      d.extents = l.extents;
      d.loc = l.loc;
    } else {
      const LocalScalar& l = call.localScalars.at(static_cast<size_t>(v.index));
      d.type = l.type;
      d.loc = l.loc;
      for (int dim = 0; dim < prog.dims(); ++dim)  // the i-th parameter is the i-th extent
        d.extents.push_back(paramRef(dim, prog.params.at(static_cast<size_t>(dim)).name));
    }
    promoted[v] = static_cast<int>(with.arrays.size());
    r.promotedNames.push_back(
        fmt::format("{} -> {}",
                    v.kind == 1 ? call.localArrays.at(static_cast<size_t>(v.index)).name
                                : call.localScalars.at(static_cast<size_t>(v.index)).name,
                    d.name));
    with.arrays.push_back(d);
    r.arrays.push_back(d);
  }
  CallInst all = call;
  all.stmts = promoteStmts(call, promoted, with);
  const CallRegions original = analyzeRegions(prog, call);
  for (size_t k = 0; k < ordered.size(); ++k) {
    CallInst sub = subCall(all, ordered[k]);
    sub.name = fmt::format("{}_g{}", call.name, k);
    // Pin the statements whose region grew apart (their reads of what the statements before
    // them wrote no longer shrink it), until every region is what it was.
    for (int round = 0;; ++round) {
      const CallRegions now = analyzeRegions(with, sub);
      std::vector<size_t> grew;
      for (size_t p = 0; p < sub.stmts.size(); ++p)
        if (!sameRegion(now.stmts[p], original.stmts.at(static_cast<size_t>(ordered[k][p]))))
          grew.push_back(p);
      if (grew.empty()) break;
      if (round == 2) {
        r.whyNot = fmt::format("statement {} would not keep its region in kernel {}",
                               ordered[k][grew.front()], k);
        return r;
      }
      for (size_t p : grew) {
        const StmtRegion& want = original.stmts.at(static_cast<size_t>(ordered[k][p]));
        const bool writable =
            want.conditions.empty() &&
            std::all_of(want.iter.begin(), want.iter.end(), [](const SymRange& x) {
              return x.lo.terms.size() == 1 && x.hi.terms.size() == 1;
            });
        if (!writable) {
          r.whyNot = fmt::format(
              "statement {} would need its region ({}) as a statement domain, which a domain "
              "cannot write (a bound with several terms or a fixed-plane condition)",
              ordered[k][p], regionText(want));
          return r;
        }
        Domain dom;
        for (const SymRange& x : want.iter) dom.push_back(Range{boundExpr(x.lo), boundExpr(x.hi)});
        sub.stmts[p].domain = dom;
        ++r.pinned;
      }
    }
    r.calls.push_back(std::move(sub));
  }
  return r;
}

}  // namespace

std::string groupsText(const CallGroups& groups) {
  std::vector<std::string> parts;
  for (const std::vector<int>& g : groups) {
    std::vector<std::string> s;
    for (int x : g) s.push_back(fmt::format("s{}", x));
    parts.push_back(fmt::format("[{}]", fmt::join(s, ",")));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string groupingProblem(const Program& prog, int callIndex, const CallGroups& groups) {
  const CallInst& call = prog.calls.at(static_cast<size_t>(callIndex));
  const size_t n = call.stmts.size();
  std::vector<int> seen(n, 0);
  for (const std::vector<int>& g : groups) {
    if (g.empty()) return "a group is empty";
    for (int s : g) {
      if (s < 0 || static_cast<size_t>(s) >= n)
        return fmt::format("statement s{} does not exist (the call has s0..s{})", s, n - 1);
      if (seen[static_cast<size_t>(s)]++) return fmt::format("statement s{} is in two groups", s);
    }
  }
  for (size_t s = 0; s < n; ++s)
    if (!seen[s]) return fmt::format("statement s{} is in no group", s);
  if (groupOrder(call, groups).size() != groups.size()) {
    // Name the path where one group alone is not convex (else the groups depend on each other
    // both ways).
    const StencilDag dag = buildDag(prog);
    std::map<int, int> node;
    for (size_t k = 0; k < dag.nodes.size(); ++k)
      if (dag.nodes[k].call == callIndex) node[dag.nodes[k].stmt] = static_cast<int>(k);
    for (const std::vector<int>& g : groups) {
      std::set<int> members;
      for (int x : g) members.insert(node.at(x));
      std::string path;
      if (!convex(dag, prog, members, &path))
        return fmt::format("the group {} is not convex: the path {} leaves it and comes back",
                           groupsText({g}), path);
    }
    return "no order of the groups keeps every dependence pointing forward (they depend on each "
           "other both ways)";
  }
  for (const Versioned& v : crossingValues(call, groups)) {
    if (v.kind == 2 && v.version < 0)
      return fmt::format("the scalar '{}' is read before it is assigned", valueName(call, v));
    if (v.kind == 1 && call.localArrays.at(static_cast<size_t>(v.index)).scratchOf >= 0)
      return fmt::format(
          "'{}' is a scratch copy of a global array (inout:, language.md 9.4) used in several "
          "groups",
          valueName(call, v));
  }
  return "";
}

CallGroups orderedGroups(const Program& prog, int callIndex, const CallGroups& groups) {
  const CallInst& call = prog.calls.at(static_cast<size_t>(callIndex));
  CallGroups out;
  for (int k : groupOrder(call, groups)) {
    std::vector<int> g = groups[static_cast<size_t>(k)];
    std::sort(g.begin(), g.end());
    out.push_back(std::move(g));
  }
  return out;
}

Program regroupProgram(const Program& prog, const std::vector<CallGroups>& groups,
                       std::vector<std::string>& notes) {
  Program out = prog;
  out.calls.clear();
  std::vector<std::vector<int>> replace(prog.calls.size());
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    const CallInst& call = prog.calls[c];
    const CallGroups g = c < groups.size() ? groups[c] : CallGroups{};
    auto whole = [&] {
      replace[c].push_back(static_cast<int>(out.calls.size()));
      out.calls.push_back(call);
    };
    if (g.size() <= 1) {
      whole();
      continue;
    }
    const int ci = static_cast<int>(c);
    std::string why = groupingProblem(prog, ci, g);
    Regrouped r;
    if (why.empty()) {
      Program current = prog;
      current.arrays = out.arrays;  // earlier calls' temporaries taken
      r = regroupCall(current, ci, orderedGroups(prog, ci, g));
      why = r.whyNot;
    }
    if (!why.empty()) {
      notes.push_back(fmt::format("call {} ({}) stays whole: {}", c, call.name, why));
      whole();
      continue;
    }
    for (ArrayDecl& d : r.arrays) out.arrays.push_back(std::move(d));
    for (CallInst& sc : r.calls) {
      replace[c].push_back(static_cast<int>(out.calls.size()));
      out.calls.push_back(std::move(sc));
    }
    notes.push_back(fmt::format(
        "call {} ({}) -> {} kernels {}{}{}", c, call.name, r.calls.size(),
        groupsText(orderedGroups(prog, ci, g)),
        r.promotedNames.empty()
            ? std::string()
            : fmt::format("; in global memory between them: {}", fmt::join(r.promotedNames, ", ")),
        r.pinned
            ? fmt::format("; {} statement(s) keep their region as a statement domain", r.pinned)
            : std::string()));
  }
  out.body = replacedCalls(prog.body, replace);
  for (StencilDef& sd : out.stencils) sd.calls.clear();  // a stencil's calls, renumbered
  for (size_t c = 0; c < out.calls.size(); ++c)
    if (out.calls[c].stencil >= 0)
      out.stencils.at(static_cast<size_t>(out.calls[c].stencil))
          .calls.push_back(static_cast<int>(c));
  return out;
}

}  // namespace tessel
