// Integer arithmetic in a stencil's statements (language.md 9.9: ints compute in 64 bits).
//
// Pass narrow-indices (transforms/narrow_indices.h) gives a kernel 32-bit int arithmetic only
// where every int value it computes is an index bounded by the array extents; a statement that
// computes with ints itself (`n * i`, `abs(i - j)`, an int local's `+=`) keeps its kernels at
// 64 bits. Subscripts are not arithmetic here: they are iterator +- constant (language.md 5).
#pragma once

#include "ir/program.h"

namespace tessel {

/// True when `e` computes an int value with an operator or a function (+, -, *, /, %, ^,
/// negation, abs, min, max on ints). Comparisons of ints, conversions and int loads are not.
bool computesWithInts(const ExprPtr& e);

/// The first statement of a call of stencil `stencil` whose right-hand side computes with ints,
/// or null.
const Stmt* intArithmeticIn(const Program& prog, int stencil);

}  // namespace tessel
