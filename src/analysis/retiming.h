// Statement decomposition and retiming (issue 12; paper 000 section III-B2, paper 004 section
// V-B2 with Algorithm 2 and Listings 2-3).
//
// A statement `out[k][j][i] = rhs`, streamed along k, is split by associativity and
// distributivity into a sum of terms: sums and differences are split, a product or a quotient
// whose other operand reads no plane of the streamed dimension (a literal, a coefficient, a
// scalar, an array without the streamed dimension) is distributed over the sum it multiplies,
// anything else (a function call, a product of two plane reads, a select, a cast) stays one
// term. A term is **homogenisable** when every access in it reads the same plane k + o of the
// streamed dimension (ARTEMIS's test: the offset along the streamed dimension can be reduced to
// 0 for all its accesses); the terms that read plane k + o, shifted by -o, form the accumulation
// sub-statement of offset o, which reads only its own plane:
//
//   out[k] = sum over o of S_o evaluated on plane k + o
//
// so that a kernel streaming k can, with plane p in shared memory, add S_o(p) to the
// accumulators of outputs p - o (2r + 1 registers for an order-r stencil) and read each plane
// once (STENCILGEN's Algorithm 2). Terms that read no plane at all go to offset 0. Reassociating
// the sum changes the rounding: results differ from the reference in the last bits.
//
// A term that reads the array the statement writes (at the output's own point: language.md 5.8,
// `a[k][j][i] = a[k][j][i] + ...`) is not accumulated: it is evaluated when the output is
// complete, from memory, just before the store, like a compound assignment's read of its own
// point (`a[k][j][i] += ...`). The plane streamed in never brings that array, so a kernel never
// loads a plane another block of the sweep writes (the planes before and after a chunk, which a
// chunk's sweep reads for its first and last outputs, are the neighbouring chunks' outputs).
//
// A per-point local scalar is read on the iterator's plane (its value at the point, which an
// earlier statement's kernel computed into its per-point buffer); a statement that writes one
// is retimed like one that writes an array, into that buffer. (The fused streamed kernels keep
// local scalars in registers: the schedule's validation refuses retiming such statements there.)
//
// Where a term reads two planes (`c[k+1][j][i] * a[k-1][j][i]`, `r * a[k+1][j][i]` with r a
// local scalar), the statement cannot be retimed and the result names the accesses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace tessel {

/// One accumulation sub-statement: the terms that read plane k + offset, shifted to read plane
/// k + 0 (the plane being streamed in).
struct RetimedPart {
  int64_t offset = 0;  // along the streamed dimension, relative to the output's plane
  ExprPtr sum;         // the terms, added in their source order
  int terms = 0;
};

struct Retiming {
  bool ok = false;
  std::string whyNot;  // when !ok: the access and why, as a sentence
  SourceLoc where;     // when !ok: the access that prevents it
  int streamDim = -1;
  /// The plane the statement writes, relative to its iterator (`psi[j-1][i] = ...`: -1); the
  /// parts' offsets are relative to it.
  int64_t lhsPlane = 0;
  std::vector<RetimedPart> parts;  // by increasing offset; at least one
  /// The terms that read the array the statement writes, added in their source order, relative
  /// to the output's plane (the statement's own subscripts with the output on plane k + 0):
  /// evaluated from memory when the output is complete. Null when there are none.
  ExprPtr atOutput;
  int atOutputTerms = 0;
  bool writesLocalScalar = false;  // the statement writes a per-point local scalar's buffer
  /// Accumulators a thread keeps: the span of the parts' offsets (2r + 1 for an order-r star).
  int64_t accumulators = 0;
  /// Distinct reads of the streamed arrays per output point: before, one per (array, offset in
  /// every dimension) of the statement; after, one per (array, in-plane offset) of the plane
  /// streamed in, which all parts share (j3d27pt: 27 -> 9).
  int readsBefore = 0, readsAfter = 0;
};

/// Decomposes and retimes statement `stmt` of `call` along iterator dimension `streamDim`.
Retiming retime(const Program& prog, const CallInst& call, const Stmt& stmt, int streamDim);

/// Why the fused streamed kernels (stream + time_tile, stream --fuse-statements) cannot retime
/// statement `st`, which the per-statement kernels of stream and global-stream retime as `r`
/// (empty when they can), and where (`at`): the fused kernels keep per-point local scalars in
/// registers, and their retimed stages accumulate from the rings only, where another stage or
/// step may have changed the array a statement writes before its output is complete.
std::string whyFusedKernelsCannotRetime(const Stmt& st, const Retiming& r, SourceLoc& at);

/// The parts added back, each on its plane, then the terms evaluated at the output (atOutput):
/// the statement's right-hand side reassociated, what
/// a retimed kernel computes for one output point (r.ok; `lhsPlane`: the plane the statement
/// writes, relative to its iterator, 0 for `out[k]...`).
ExprPtr planeSum(const Retiming& r, int64_t lhsPlane = 0);

/// Part `p` reading plane k + `plane` instead of k (a kernel whose iterator k is the output's
/// plane, not the plane streamed in).
ExprPtr retimedAt(const RetimedPart& p, int streamDim, int64_t plane);

/// The terms evaluated at the output (r.atOutput, non-null) for the output on plane k + `plane`.
ExprPtr atOutputAt(const Retiming& r, int64_t plane);

/// The parts added together as they read the plane streamed in (every access of the streamed
/// dimension at offset 0): what a retimed kernel reads of each plane (its staging).
ExprPtr planeReads(const Retiming& r);

/// A line per part (iterator names from `prog`), or why the statement is not retimed.
std::string describeRetiming(const Program& prog, const Retiming& r);

}  // namespace tessel
