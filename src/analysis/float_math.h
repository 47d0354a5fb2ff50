// Which arrays carry the value of a `float` math function (language.md section 7.3: sqrt, exp,
// log, log10, sin, cos, tan, tanh, atan, pow on float arguments). The C library and the
// reference interpreter round them as C's sinf, ... do; the GPUs' float built-ins do not round
// them correctly (OpenCL allows up to a few ulp), so a `double` array computed from one agrees
// with the reference to float precision only, and `run --verify` on a GPU backend compares it so.
#pragma once

#include <vector>

#include "ir/program.h"

namespace tessel {

/// Per global array (Program::arrays order): whether some call writes it from the value of a
/// float math function, directly or through the locals of that call or an array an earlier call
/// (or an earlier iteration) wrote so. Exact functions (abs, fabs, min, max, floor, ceil) and
/// double or int arguments do not count.
std::vector<bool> floatMathArrays(const Program& prog);

}  // namespace tessel
