// Storage and computation folding (paper 000 III-B4): where every access of a statement to two
// arrays is one point-wise combination `A[s] op B[s]` (the same subscripts, the same operator,
// the operands in that order), a staged kernel can keep the combination in shared memory or a
// register instead of both arrays, computed once per element as it is loaded.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"

namespace tessel {

struct Fold {
  ArrayId array;    // staged as the combination: its references stand for `array op partner`
  ArrayId partner;  // folded into it, read only by the loads of the combination
  Op op = Op::Mul;
  std::string text;  // "my * u"
  int uses = 0;      // the combinations the statement computes (per point)
};

struct Folding {
  std::vector<Fold> folds;  // empty: nothing to fold
  Stmt stmt;                // the statement with each folded `A[s] op B[s]` replaced by `A[s]`
};

/// The folds of statement `st` of `call`: pairs of arrays of one floating-point type and the
/// same extents, not written by the statement, every reference to either of which is an operand
/// of `A[s] op B[s]` (op one of + - * /) with equal subscripts.
Folding foldStatement(const Program& prog, const CallInst& call, const Stmt& st);

/// "my * u (4 combinations per point)", joined by "; "; "" without folds.
std::string describeFolds(const Folding& f);

}  // namespace tessel
