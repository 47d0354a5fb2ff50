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

/// One statement of a fused sequence (stream + time_tile) and the call it belongs to.
struct FoldItem {
  const CallInst* call = nullptr;
  const Stmt* stmt = nullptr;
};

/// The folds of a fused sequence's statements (each statement once, however often its call
/// repeats): pairs of global arrays that no statement of the sequence writes, every reference to
/// either of which in every statement is an operand of the same `A[s] op B[s]`. `uses` counts the
/// combinations of all the statements per point.
std::vector<Fold> foldSequence(const Program& prog, const std::vector<FoldItem>& items);

/// Why `fold` of a single statement does not hold over `items` (a statement that writes one of
/// the arrays or reads one of them otherwise), e.g. "statement 1 of 'diffusivity' reads 'u'
/// otherwise"; "" where it holds.
std::string whyNotSequenceFold(const Program& prog, const std::vector<FoldItem>& items,
                               const Fold& fold);

/// `e` (of a statement of `call`) with every combination of `folds` replaced by its array.
ExprPtr applyFolds(const Program& prog, const CallInst& call, const ExprPtr& e,
                   const std::vector<Fold>& folds);

/// "my * u (4 combinations per point)", joined by "; "; "" without folds.
std::string describeFolds(const Folding& f);
/// The folds' texts, joined by ", " ("my * u, mz * u").
std::string foldTexts(const std::vector<Fold>& folds);

}  // namespace tessel
