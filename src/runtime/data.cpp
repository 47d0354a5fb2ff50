#include "runtime/data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "runtime/errors.h"

namespace tessel {

namespace {

uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A random stream that depends only on (seed, name): splitmix64 seeded with a mix of the seed and
/// the FNV-1a hash of the name. Hand-written so that values are identical on every platform.
class Stream {
 public:
  Stream(uint64_t seed, const std::string& name) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ULL;
    uint64_t s = seed;
    state_ = splitmix64(s) ^ h;
    splitmix64(state_);
  }
  uint64_t next() { return splitmix64(state_); }
  /// Uniform in [0.5, 1.5), 53 random bits.
  double unit() { return 0.5 + static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_ = 0;
};

double randomValue(Stream& s, ScalarType t) {
  switch (t) {
    case ScalarType::Double:
    case ScalarType::Float:
      return convertTo(t, s.unit());
    case ScalarType::Int:
      return static_cast<double>(s.next() % 10);
    case ScalarType::Bool:
      return static_cast<double>(s.next() >> 63);
  }
  return 0;
}

}  // namespace

ProgramState makeState(const Program& prog, const ParamValues& params, uint64_t seed) {
  if (params.size() < prog.params.size())
    throw RuntimeError(fmt::format("{} parameter values given, the program has {}", params.size(),
                                   prog.params.size()));
  ProgramState st;
  st.params = params;
  for (const ArrayDecl& a : prog.arrays) {
    ArrayData d;
    d.type = a.type;
    int64_t n = 1;
    for (auto& e : a.extents) {
      int64_t x = evalInt(e, params);
      if (x < 0)
        throw RuntimeError(
            fmt::format("array '{}' has a negative extent {} ({})", a.name, x, toString(e, {})));
      d.shape.push_back(x);
      n *= x;
    }
    d.values.assign(static_cast<size_t>(n), 0.0);
    if (a.data.copyin || a.data.constant) {
      Stream s(seed, a.name);
      for (double& v : d.values) v = randomValue(s, a.type);
    }
    st.arrays.push_back(std::move(d));
  }
  // Scalars: floating in [0.5, 1.5); int in 1..9 (never 0, so a divisor is safe); bool random.
  for (const ScalarDecl& sc : prog.scalars) {
    Stream s(seed, sc.name);
    double v = sc.type == ScalarType::Int ? static_cast<double>(1 + s.next() % 9)
                                          : randomValue(s, sc.type);
    st.scalars.push_back(v);
  }
  return st;
}

CompareResult compareArrays(const ArrayData& got, const ArrayData& ref, double relTol,
                            bool normwise) {
  CompareResult r;
  if (got.shape != ref.shape || got.values.size() != ref.values.size()) {
    r.ok = false;
    r.maxRelErr = r.maxAbsErr = std::numeric_limits<double>::infinity();
    r.mismatches = static_cast<int64_t>(std::max(got.values.size(), ref.values.size()));
    return r;
  }
  const double inf = std::numeric_limits<double>::infinity();
  double scale = 1e-300;  // the smallest magnitude an error is relative to
  if (normwise)
    for (double e : ref.values)
      if (std::isfinite(e)) scale = std::max(scale, std::fabs(e));
  size_t worst = 0;
  bool any = false;
  for (size_t k = 0; k < ref.values.size(); ++k) {
    double g = got.values[k], e = ref.values[k];
    double rel = 0, abs = 0;
    if (std::isnan(g) || std::isnan(e)) {
      if (std::isnan(g) != std::isnan(e)) rel = abs = inf;
    } else if (g != e) {
      abs = std::fabs(g - e);
      rel = abs / std::max(std::fabs(e), scale);
    }
    if (rel > relTol) ++r.mismatches;
    r.maxAbsErr = std::max(r.maxAbsErr, abs);
    if (rel > r.maxRelErr || (!any && rel > 0)) {
      r.maxRelErr = rel;
      worst = k;
      any = rel > 0;
    }
  }
  if (any) {
    r.got = got.values[worst];
    r.expected = ref.values[worst];
    r.worstIndex.assign(ref.shape.size(), 0);
    size_t rest = worst;
    for (int d = static_cast<int>(ref.shape.size()) - 1; d >= 0; --d) {
      r.worstIndex[d] = static_cast<int64_t>(rest % ref.shape[d]);
      rest /= ref.shape[d];
    }
  }
  r.ok = r.maxRelErr <= relTol;
  return r;
}

double defaultTolerance(ScalarType t) {
  switch (t) {
    case ScalarType::Double:
      return 1e-12;
    case ScalarType::Float:
      return 1e-5;
    case ScalarType::Int:
    case ScalarType::Bool:
      return 0;
  }
  return 0;
}

}  // namespace tessel
