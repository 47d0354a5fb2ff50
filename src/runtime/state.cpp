#include "runtime/state.h"

#include <cmath>

namespace tessel {

// Int conversion: truncate toward zero, then wrap modulo 2^32 into the int32 range, exactly as
// converting to int64_t and then to int32_t would (C++20 defines the second step as modular). The
// wrap is computed with fmod, so it is exact for every finite double, also beyond the int64
// range. NaN and infinities give 0. (A C cast of an out-of-range double is undefined behaviour;
// x86 gives INT32_MIN, CUDA saturates, so programs should not rely on this case.)
static double toInt32(double v) {
  if (!std::isfinite(v)) return 0;
  double t = std::fmod(std::trunc(v), 4294967296.0);  // exact; in (-2^32, 2^32), sign of v
  if (t >= 2147483648.0) t -= 4294967296.0;
  if (t < -2147483648.0) t += 4294967296.0;
  return t;
}

double convertTo(ScalarType t, double v) {
  switch (t) {
    case ScalarType::Double:
      return v;
    case ScalarType::Float:
      return static_cast<double>(static_cast<float>(v));
    case ScalarType::Int:
      return toInt32(v);
    case ScalarType::Bool:
      return v != 0 ? 1.0 : 0.0;
  }
  return v;
}

}  // namespace tessel
