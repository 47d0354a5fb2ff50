// Statement groups that share a kernel (stmt_fusion.h).
#include "analysis/stmt_fusion.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace tessel {

namespace {

/// One access of an array by a statement.
struct Access {
  std::vector<Subscript> subs;
  bool write = false;
};

using Accesses = std::map<ArrayId, std::vector<Access>>;

void collect(const ExprPtr& e, Accesses& out, std::set<int>& scalars) {
  if (!e) return;
  if (e->kind == ExprKind::ArrayRef) out[e->array].push_back({e->subs, false});
  if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Local)
    scalars.insert(e->index);
  for (const ExprPtr& a : e->args) collect(a, out, scalars);
}

/// The statement's accesses (a compound assignment reads its left side) and local scalars.
Accesses accessesOf(const Stmt& st, std::set<int>& scalars) {
  Accesses a;
  collect(st.rhs, a, scalars);
  if (st.lhsIsScalar()) {
    scalars.insert(st.lhs->index);
  } else {
    a[st.lhs->array].push_back({st.lhs->subs, true});
    if (st.op != AssignOp::Set) a[st.lhs->array].push_back({st.lhs->subs, false});
  }
  return a;
}

std::string subsText(const Program& prog, const std::vector<Subscript>& subs) {
  std::string s;
  for (const Subscript& x : subs) {
    if (x.fixed()) {
      s += fmt::format("[{}]", x.offset);
      continue;
    }
    const std::string& it = prog.iterators.at(static_cast<size_t>(x.iter)).name;
    s += x.offset == 0  ? fmt::format("[{}]", it)
         : x.offset > 0 ? fmt::format("[{}+{}]", it, x.offset)
                        : fmt::format("[{}-{}]", it, -x.offset);
  }
  return s;
}

}  // namespace

StatementGroups fuseStatements(const Program& prog, const CallInst& call) {
  StatementGroups out;
  out.scalarGroup.assign(call.localScalars.size(), -2);  // -2: not used yet
  // The current group's accesses per array, with the statement of each.
  std::map<ArrayId, std::vector<std::pair<size_t, Access>>> group;
  for (size_t k = 0; k < call.stmts.size(); ++k) {
    std::set<int> scalars;
    const Accesses mine = accessesOf(call.stmts[k], scalars);
    // Would joining put two subscript vectors on an array the group (or k) writes?
    std::string why;
    if (!out.groups.empty()) {
      for (const auto& [id, acc] : mine) {
        auto it = group.find(id);
        if (it == group.end()) continue;
        bool written = false;
        for (const auto& [s, a] : it->second) written = written || a.write;
        for (const Access& a : acc) written = written || a.write;
        if (!written) continue;
        for (const auto& [s, a] : it->second)
          for (const Access& b : acc)
            if (a.subs != b.subs && why.empty())
              why = fmt::format(
                  "statement {} {} '{}{}' and statement {} {} it at {}: another thread's element",
                  k + 1, b.write ? "writes" : "reads", prog.arrayName(call, id),
                  subsText(prog, b.subs), s + 1, a.write ? "writes" : "reads",
                  subsText(prog, a.subs));
      }
    }
    // A statement alone is one kernel already; its own accesses need no check.
    if (out.groups.empty() || !why.empty()) {
      if (!why.empty()) out.breaks.push_back(why);
      out.groups.emplace_back();
      group.clear();
    }
    out.groups.back().push_back(k);
    for (const auto& [id, acc] : mine)
      for (const Access& a : acc) group[id].push_back({k, a});
    const int g = static_cast<int>(out.groups.size()) - 1;
    for (int s : scalars) {
      int& sg = out.scalarGroup.at(static_cast<size_t>(s));
      sg = sg == -2 || sg == g ? g : -1;
    }
  }
  for (int& sg : out.scalarGroup)
    if (sg == -2) sg = -1;
  return out;
}

}  // namespace tessel
