// Statement regions: where each statement of a call is evaluated (language.md 5.3-5.6, 9.1-9.6).
//
// Regions are symbolic: each bound is a max (lower) or min (upper) of terms `base + c`, where
// `base` is an int expression over parameters (or absent for a constant). This keeps `1..N-2`
// readable in `tessel info` and printable into generated code, and evaluates exactly at run time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace tessel {

struct SymBound {
  bool lower = true;  // true: max over terms; false: min over terms
  struct Term {
    ExprPtr base;  // null: constant term
    int64_t c = 0;
  };
  std::vector<Term> terms;

  static SymBound of(bool lower, const ExprPtr& e);  // folds `N - 2` into base N, c -2
  int64_t eval(const ParamValues& p) const;
  SymBound shifted(int64_t d) const;    // every term + d
  void tighten(const SymBound& other);  // max/min with other (same direction), simplified
  std::string str(const std::vector<std::string>& iterNames = {}) const;  // "max(1, N-3)"
};

struct SymRange {
  SymBound lo{true, {}}, hi{false, {}};
  std::string str() const;  // "1..N-2"
};

/// Holds when a <= b; a region whose condition fails is empty (fixed planes of produced arrays).
struct RegionCondition {
  SymBound a, b;
};

struct StmtRegion {
  std::vector<SymRange> iter;     // iteration points, per iterator dimension
  std::vector<SymRange> written;  // the points the left-hand side writes (iter shifted by the
                                  // lhs offsets); for a scalar lhs, equal to iter
  std::vector<RegionCondition> conditions;
};

struct CallRegions {
  std::vector<StmtRegion> stmts;  // one per CallInst::stmts entry
};

CallRegions analyzeRegions(const Program& prog, const CallInst& call);

/// A concrete inclusive box; empty when any hi < lo or a condition fails.
struct Box {
  std::vector<int64_t> lo, hi;
  bool empty = false;
  int64_t points() const;
};

Box evalBox(const std::vector<SymRange>& r, const std::vector<RegionCondition>& conds,
            const ParamValues& p);
inline Box evalIter(const StmtRegion& r, const ParamValues& p) {
  return evalBox(r.iter, r.conditions, p);
}

}  // namespace tessel
