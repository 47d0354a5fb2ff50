// Saturating 64-bit arithmetic for the sizes the analyses derive from a program's offsets and a
// schedule's tile (points, elements, bytes): a size beyond int64 reads as INT64_MAX, which every
// machine limit refuses, instead of overflowing (undefined behaviour). Operands are >= 0.
#pragma once

#include <cstdint>
#include <limits>

namespace tessel {

inline int64_t satMul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

inline int64_t satAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

}  // namespace tessel
