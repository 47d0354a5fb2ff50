// Program data on the host: every global array and scalar, and the parameter values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace tessel {

/// A global array's contents. Values are held as double whatever the element type; every store
/// converts to the element type first (float rounding, int truncation, bool), so the held values
/// are exactly the representable ones.
struct ArrayData {
  ScalarType type = ScalarType::Double;
  std::vector<int64_t> shape;  // extents, slowest first
  std::vector<double> values;  // row-major (last dimension unit-stride)
};

struct ProgramState {
  ParamValues params;             // indexed like Program::params
  std::vector<ArrayData> arrays;  // indexed like Program::arrays
  std::vector<double> scalars;    // indexed like Program::scalars, converted to their types
};

/// Converts v to what an element of type t holds (rounds to float, truncates to int32, bool).
double convertTo(ScalarType t, double v);

}  // namespace tessel
