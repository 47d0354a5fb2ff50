#include "analysis/bounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

namespace tessel {

std::optional<AccessViolation> findViolation(const Expr& access, const Box& iter,
                                             const std::vector<int64_t>& extents) {
  for (size_t k = 0; k < access.subs.size() && k < extents.size(); ++k) {
    const Subscript& s = access.subs[k];
    int64_t lo = s.offset, hi = s.offset;
    if (!s.fixed()) {
      lo += iter.lo.at(s.iter);
      hi += iter.hi.at(s.iter);
    }
    int64_t ext = extents[k];
    if (lo < 0) return AccessViolation{static_cast<int>(k), lo, ext};
    if (hi > ext - 1) return AccessViolation{static_cast<int>(k), hi, ext};
  }
  return std::nullopt;
}

static std::string locStr(SourceLoc loc) {
  return fmt::format("{}:{}:{}", loc.file->name(), loc.line(), loc.col());
}

static std::string callPlace(const CallInst& call) {
  if (call.loc.valid()) return fmt::format("in the call at {}", locStr(call.loc));
  return fmt::format("in a call of '{}'", call.name);
}

static std::string dimPhrase(const Program& prog, const Subscript& s, int k) {
  if (!s.fixed() && s.iter < prog.dims()) return "along " + prog.iterators[s.iter].name;
  return fmt::format("in dimension {}", k + 1);
}

std::string violationMessage(const Program& prog, const CallInst& call, const Expr& access,
                             const AccessViolation& v) {
  const std::string& name = prog.arrayName(call, access.array);
  std::string where = dimPhrase(prog, access.subs.at(v.dim), v.dim);
  std::string range = v.extent > 0 ? fmt::format("0..{} {}", v.extent - 1, where)
                                   : fmt::format("no elements {}", where);
  return fmt::format("access '{}' reaches index {} {}, outside '{}' ({}) {}",
                     toString(std::make_shared<Expr>(access), prog.iteratorNames()), v.index, where,
                     name, range, callPlace(call));
}

std::vector<int64_t> evalExtents(const std::vector<ExprPtr>& extents, const ParamValues& params) {
  std::vector<int64_t> v;
  for (auto& e : extents) v.push_back(evalInt(e, params));
  return v;
}

namespace {

// Reports negative extents of one array; returns false if any.
bool checkExtents(const std::string& name, SourceLoc loc, const std::vector<ExprPtr>& exprs,
                  const std::vector<int64_t>& ext, DiagnosticEngine& diags, const CallInst* call) {
  for (size_t k = 0; k < ext.size(); ++k) {
    if (ext[k] >= 0) continue;
    Diagnostic& d = diags.report(
        DiagId::bad_extent, loc,
        fmt::format("extent '{}' of '{}' in dimension {} is {} with these parameter values",
                    toString(exprs[k], {}), name, k + 1, ext[k]),
        "an extent must not be negative; check the parameter values");
    if (call && call->loc.valid()) d.notes.push_back({call->loc, "in this call"});
    return false;
  }
  return true;
}

std::string hintFor(const Program& prog, const CallInst& call, const Expr& access,
                    const AccessViolation& v, const Box& box) {
  const Subscript& s = access.subs.at(v.dim);
  if (s.fixed())
    return v.extent > 0 ? fmt::format("a fixed plane must lie in 0..{}", v.extent - 1)
                        : std::string();
  const std::string& it = prog.iterators.at(s.iter).name;
  return fmt::format("the statement runs over {} = {}..{}; shrink the call domain or enlarge '{}'",
                     it, box.lo.at(s.iter), box.hi.at(s.iter), prog.arrayName(call, access.array));
}

// Evaluates and checks an array's extents; reports what cannot be evaluated or is negative.
bool arrayExtents(const std::string& name, SourceLoc loc, const std::vector<ExprPtr>& exprs,
                  const ParamValues& params, DiagnosticEngine& diags, const CallInst* call,
                  std::vector<int64_t>& out) {
  try {
    out = evalExtents(exprs, params);
    elementCount(exprs, params);  // the element count must fit too
  } catch (const std::domain_error& e) {
    Diagnostic& d = diags.report(
        DiagId::bad_extent, loc,
        fmt::format("the size of '{}' cannot be computed with these parameter values: {}", name,
                    e.what()),
        "extents are evaluated in 64-bit integers; check the expression and the parameters");
    if (call && call->loc.valid()) d.notes.push_back({call->loc, "in this call"});
    out.assign(exprs.size(), 0);
    return false;
  }
  return checkExtents(name, loc, exprs, out, diags, call);
}

}  // namespace

// Every iterate bound must be computable (the loops are entered with these values), and the
// calls a run executes countable in 64 bits: `times` is how often the enclosing loops run.
static bool checkIterateBounds(const std::vector<ExecNode>& nodes, const ParamValues& params,
                               DiagnosticEngine& diags, double times) {
  bool ok = true;
  for (auto& n : nodes) {
    if (n.kind != ExecNode::Kind::Iterate) continue;
    bool computed = true;
    int64_t bound[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      const ExprPtr& b = i == 0 ? n.lo : n.hi;
      try {
        bound[i] = evalInt(b, params);
      } catch (const std::domain_error& e) {
        diags.report(DiagId::bad_domain, b->loc.valid() ? b->loc : n.loc,
                     fmt::format("this iterate bound cannot be computed with these parameter "
                                 "values: {}",
                                 e.what()),
                     "iterate bounds are evaluated in 64-bit integers; check the expression");
        ok = computed = false;
      }
    }
    if (!computed) continue;
    const double trips =
        std::max(0.0, static_cast<double>(bound[1]) - static_cast<double>(bound[0]) + 1);
    if (times * trips >= 9.2e18) {
      diags.report(DiagId::bad_domain, n.loc,
                   fmt::format("this iterate loop would run {:.3g} times{}: more than the 2^63 "
                               "calls a run can count",
                               trips,
                               times > 1 ? fmt::format(" in each of {:.3g} runs of the "
                                                       "loops around it",
                                                       times)
                                         : std::string()),
                   "give bounds of fewer steps");
      ok = false;
      continue;
    }
    ok = checkIterateBounds(n.body, params, diags, times * std::max(1.0, trips)) && ok;
  }
  return ok;
}

bool checkBounds(const Program& prog, const ParamValues& params, DiagnosticEngine& diags) {
  bool ok = checkIterateBounds(prog.body, params, diags, 1);
  std::vector<std::vector<int64_t>> global;
  std::vector<bool> globalOk;
  for (auto& a : prog.arrays) {
    global.emplace_back();
    globalOk.push_back(
        arrayExtents(a.name, a.loc, a.extents, params, diags, nullptr, global.back()));
    ok = ok && globalOk.back();
  }
  std::set<std::pair<const SourceFile*, uint32_t>> reported;  // one error per access site
  for (const CallInst& call : prog.calls) {
    std::vector<std::vector<int64_t>> local;
    std::vector<bool> localOk;
    for (auto& la : call.localArrays) {
      local.emplace_back();
      localOk.push_back(
          arrayExtents(la.name, la.loc, la.extents, params, diags, &call, local.back()));
      ok = ok && localOk.back();
    }
    CallRegions regions = analyzeRegions(prog, call);
    for (size_t si = 0; si < call.stmts.size(); ++si) {
      const Stmt& st = call.stmts[si];
      Box box;
      try {
        box = evalIter(regions.stmts.at(si), params);
      } catch (const std::domain_error& e) {
        diags.report(DiagId::bad_domain, st.domain ? st.loc : call.loc,
                     fmt::format("the region of this {} cannot be computed with these parameter "
                                 "values: {}",
                                 st.domain ? "statement" : "call", e.what()),
                     "domain bounds are evaluated in 64-bit integers; check the expression");
        ok = false;
        break;
      }
      if (box.empty) continue;
      std::vector<const Expr*> accesses;
      visitExpr(st.rhs, [&](const ExprPtr& e) {
        if (e->kind == ExprKind::ArrayRef) accesses.push_back(e.get());
      });
      if (st.lhs->kind == ExprKind::ArrayRef) accesses.push_back(st.lhs.get());
      for (const Expr* acc : accesses) {
        int idx = acc->array.index;
        if (acc->array.local ? !localOk.at(idx) : !globalOk.at(idx)) continue;
        auto& ext = acc->array.local ? local.at(idx) : global.at(idx);
        auto v = findViolation(*acc, box, ext);
        if (!v) continue;
        ok = false;
        if (acc->loc.valid() && !reported.insert({acc->loc.file, acc->loc.offset}).second) continue;
        Diagnostic& d =
            diags.report(DiagId::out_of_bounds, acc->loc, violationMessage(prog, call, *acc, *v),
                         hintFor(prog, call, *acc, *v, box));
        if (call.loc.valid())
          d.notes.push_back({call.loc, fmt::format("in this call of '{}'", call.name)});
      }
    }
  }
  return ok;
}

}  // namespace tessel
