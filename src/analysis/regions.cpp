// Region analysis: the rule of language.md 9.1, applied statement by statement in textual order.
#include "analysis/regions.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "analysis/accesses.h"
#include "support/saturating.h"

namespace tessel {

// ---- SymBound -----------------------------------------------------------------------------

static std::string baseKey(const ExprPtr& b) { return b ? toString(b, {}) : std::string(); }

SymBound SymBound::of(bool lower, const ExprPtr& e) {
  SymBound s;
  s.lower = lower;
  ExprPtr base = e;
  int64_t c = 0;
  // Fold trailing integer literals: ((N - 1) - 2) -> base N, c -3.
  while (base) {
    if (base->kind == ExprKind::IntLit) {
      c += base->ival;
      base = nullptr;
    } else if (base->kind == ExprKind::Binary && (base->op == Op::Add || base->op == Op::Sub) &&
               base->args[1]->kind == ExprKind::IntLit) {
      c += base->op == Op::Add ? base->args[1]->ival : -base->args[1]->ival;
      base = base->args[0];
    } else {
      break;
    }
  }
  s.terms.push_back({base, c});
  return s;
}

int64_t SymBound::eval(const ParamValues& p) const {
  int64_t v = lower ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  for (auto& t : terms) {
    int64_t x = 0;
    if (__builtin_add_overflow(t.base ? evalInt(t.base, p) : 0, t.c, &x))
      throw std::domain_error("integer overflow in a region bound");
    v = lower ? std::max(v, x) : std::min(v, x);
  }
  return v;
}

SymBound SymBound::shifted(int64_t d) const {
  SymBound s = *this;
  for (auto& t : s.terms) t.c += d;
  return s;
}

void SymBound::tighten(const SymBound& other) {
  for (auto& ot : other.terms) {
    bool merged = false;
    for (auto& t : terms) {
      if (baseKey(t.base) == baseKey(ot.base)) {
        t.c = lower ? std::max(t.c, ot.c) : std::min(t.c, ot.c);
        merged = true;
        break;
      }
    }
    if (!merged) terms.push_back(ot);
  }
}

static std::string termStr(const SymBound::Term& t) {
  if (!t.base) return std::to_string(t.c);
  std::string b = toString(t.base, {});
  if (t.base->kind == ExprKind::Binary) b = "(" + b + ")";
  if (t.c > 0) return fmt::format("{}+{}", b, t.c);
  if (t.c < 0) return fmt::format("{}-{}", b, -t.c);
  return b;
}

std::string SymBound::str(const std::vector<std::string>&) const {
  if (terms.size() == 1) return termStr(terms[0]);
  std::string s = lower ? "max(" : "min(";
  for (size_t i = 0; i < terms.size(); ++i) s += (i ? ", " : "") + termStr(terms[i]);
  return s + ")";
}

std::string SymRange::str() const { return lo.str() + ".." + hi.str(); }

int64_t Box::points() const {
  if (empty) return 0;
  int64_t n = 1;
  for (size_t d = 0; d < lo.size(); ++d) n = satMul(n, hi[d] - lo[d] + 1);
  return n;
}

Box evalBox(const std::vector<SymRange>& r, const std::vector<RegionCondition>& conds,
            const ParamValues& p) {
  Box b;
  for (auto& d : r) {
    b.lo.push_back(d.lo.eval(p));
    b.hi.push_back(d.hi.eval(p));
    if (b.hi.back() < b.lo.back()) b.empty = true;
  }
  for (auto& c : conds)
    if (c.a.eval(p) > c.b.eval(p)) b.empty = true;
  return b;
}

// ---- the rule -----------------------------------------------------------------------------

namespace {

struct Produced {
  std::vector<SymRange> written;
  std::vector<RegionCondition> conditions;
};

struct RegionBuilder {
  const CallInst& call;
  std::vector<SymRange> domain;        // the call domain
  std::map<ArrayId, Produced> arrays;  // latest writer's written region, per array
  std::map<int, Produced> scalars;     // latest assignment's region, per local scalar

  explicit RegionBuilder(const CallInst& c) : call(c) {
    for (auto& r : c.domain)
      domain.push_back({SymBound::of(true, r.lo), SymBound::of(false, r.hi)});
  }

  // Restricts `reg` so that `ref` (an access of the statement) stays inside the call domain and,
  // for a read of a produced array, inside that array's written region.
  void constrain(StmtRegion& reg, const Reference& ref, bool isRead) {
    const Produced* prod = nullptr;
    if (isRead) {
      auto it = arrays.find(ref.array);
      if (it != arrays.end()) prod = &it->second;
    }
    for (size_t k = 0; k < ref.subs.size(); ++k) {
      const Subscript& s = ref.subs[k];
      if (!s.fixed()) {
        int d = s.iter;
        reg.iter[d].lo.tighten(domain[d].lo.shifted(-s.offset));
        reg.iter[d].hi.tighten(domain[d].hi.shifted(-s.offset));
        if (prod) {
          reg.iter[d].lo.tighten(prod->written[d].lo.shifted(-s.offset));
          reg.iter[d].hi.tighten(prod->written[d].hi.shifted(-s.offset));
        }
      } else if (prod && k < prod->written.size()) {
        // A fixed plane of a produced array must lie in its written region (9.6).
        SymBound c{false, {{nullptr, s.offset}}};
        reg.conditions.push_back({prod->written[k].lo, c});
        SymBound cl{true, {{nullptr, s.offset}}};
        reg.conditions.push_back({cl, prod->written[k].hi});
      }
    }
    if (prod)
      reg.conditions.insert(reg.conditions.end(), prod->conditions.begin(), prod->conditions.end());
  }

  void useScalar(StmtRegion& reg, int idx) {
    auto it = scalars.find(idx);
    if (it == scalars.end()) return;  // sema rejects reads before assignment
    for (size_t d = 0; d < reg.iter.size(); ++d) {
      reg.iter[d].lo.tighten(it->second.written[d].lo);
      reg.iter[d].hi.tighten(it->second.written[d].hi);
    }
    reg.conditions.insert(reg.conditions.end(), it->second.conditions.begin(),
                          it->second.conditions.end());
  }

  StmtRegion statement(const Stmt& st) {
    StmtRegion reg;
    reg.iter = domain;
    if (st.domain)
      for (size_t d = 0; d < reg.iter.size(); ++d) {
        reg.iter[d].lo.tighten(SymBound::of(true, (*st.domain)[d].lo));
        reg.iter[d].hi.tighten(SymBound::of(false, (*st.domain)[d].hi));
      }
    StmtAccesses acc = stmtAccesses(st);
    for (const Reference& r : acc.reads) {
      if (r.scalar)
        useScalar(reg, r.index);
      else if (!r.lhs)
        constrain(reg, r, true);
    }
    if (!acc.write.scalar) constrain(reg, acc.write, st.op != AssignOp::Set);
    // Record what this statement makes available to later ones.
    Produced p;
    p.conditions = reg.conditions;
    p.written = reg.iter;
    if (st.lhsIsScalar()) {
      scalars[st.lhs->index] = p;
      reg.written = reg.iter;
    } else {
      for (auto& s : st.lhs->subs) {
        p.written[s.iter].lo = p.written[s.iter].lo.shifted(s.offset);
        p.written[s.iter].hi = p.written[s.iter].hi.shifted(s.offset);
      }
      reg.written = p.written;
      arrays[st.lhs->array] = p;
    }
    return reg;
  }
};

}  // namespace

CallRegions analyzeRegions(const Program&, const CallInst& call) {
  RegionBuilder b(call);
  CallRegions out;
  for (auto& st : call.stmts) out.stmts.push_back(b.statement(st));
  return out;
}

}  // namespace tessel
