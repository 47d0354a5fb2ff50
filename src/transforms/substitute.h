// Replacing a variable by an expression in loop IR, with the index arithmetic folded: how
// unroll-loops gives each copy its index's value and prefetch-planes moves a plane's load to
// the next plane (`k` -> `k + 1`) or the first (`k` -> `first_k`).
#pragma once

#include <string>
#include <vector>

#include "ir/loop_ir.h"

namespace tessel::transforms {

/// `body` with every read of variable `name` replaced by `value`, the integer additions,
/// subtractions and multiplications that thereby get a literal operand folded
/// (`(k + 1) + 2` -> `k + 3`). Declarations and loops of that name are not renamed.
std::vector<lir::StmtPtr> substituteVar(const std::vector<lir::StmtPtr>& body,
                                        const std::string& name, const ExprPtr& value);

}  // namespace tessel::transforms
