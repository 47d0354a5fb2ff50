// Program data for runs and differential tests: seeded initial state, array comparison.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"
#include "runtime/state.h"

namespace tessel {

/// Allocates every global array with its evaluated extents (language.md 9.8): arrays in a
/// `copyin` or `constant` list get seeded random values (double/float uniform in [0.5, 1.5),
/// int uniform in 0..9, bool 0 or 1), every other array starts at zero. Every scalar gets a
/// seeded random value: floating in [0.5, 1.5), int in 1..9 (never 0), bool 0 or 1. Each
/// array's and scalar's values depend only on (seed, its name), not on declaration order, and
/// are the same on every platform. Throws RuntimeError for a negative extent or missing
/// parameter values.
ProgramState makeState(const Program& prog, const ParamValues& params, uint64_t seed);

struct CompareResult {
  bool ok = true;
  double maxRelErr = 0;  // max over elements of |g - r| / max(|r|, 1e-300); 0 where g == r
  double maxAbsErr = 0;
  std::vector<int64_t> worstIndex;  // multi-index of the worst element; empty if none differs
  double got = 0, expected = 0;     // values at worstIndex
  int64_t mismatches = 0;           // elements whose error exceeds the tolerance
};

/// Compares element by element. Two NaNs are equal; a NaN against a number is an infinite
/// error. ok = shapes agree and maxRelErr <= relTol. `normwise`: an element's error is relative
/// to the larger of its own magnitude and the array's largest (for results computed with
/// another rounding, such as fused multiply-adds, where a value that cancels to near zero
/// carries the rounding of its large terms).
CompareResult compareArrays(const ArrayData& got, const ArrayData& ref, double relTol,
                            bool normwise = false);

/// 1e-12 for double, 1e-5 for float, 0 for int and bool.
double defaultTolerance(ScalarType t);

}  // namespace tessel
