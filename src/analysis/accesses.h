// Accesses: what one statement reads and writes, taken from its expressions once (the one walk
// the footprint analyses share: staging, tile regions, stream fusion, halos and dependences).
//
// A statement refers to arrays through subscripts `A[s0][s1]...`, each an iterator plus an
// offset or a constant, and to per-point local scalars (read at the thread's own point). Global
// scalars and initialised locals are kernel arguments, not accesses. Which references read
// another thread's point (an offset along an iterator) is the placement rule of the staged and
// fused kernels (STENCILGEN V-A2): read only at the centre, a value lives in a register or is read
// from global memory once; read off the centre, it is staged in shared memory.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/program.h"

namespace tessel {

/// One reference to an array element or a per-point local scalar.
struct Reference {
  bool scalar = false;          // a per-point local scalar (CallInst::localScalars[index])
  ArrayId array;                // an array reference: the array
  int index = -1;               // a scalar reference: the local scalar
  std::vector<Subscript> subs;  // an array reference: per subscript, iterator and offset
  bool lhs = false;             // the statement's left-hand side
  bool operator==(const Reference&) const = default;

  /// The reference `e` (an ArrayRef or a ScalarRef).
  static Reference of(const Expr& e, bool lhs = false);
  /// The offset along iterator `iter`: 0 for a scalar, nullopt when no subscript uses `iter`
  /// (a lower-rank array or a fixed plane).
  std::optional<int64_t> along(int iter) const;
  /// The offset of subscript `p` (0 at a constant index).
  int64_t offset(size_t p) const;
  /// Some subscript is a constant index (a fixed plane).
  bool fixedPlane() const;
  /// Some subscript reads off the centre along an iterator other than `except`.
  bool offCentre(int except = -1) const;
};

struct StmtAccesses {
  Reference write;
  /// The right-hand side's references in order of appearance (every occurrence), then the
  /// left-hand side when a compound assignment reads it (`lhs` set).
  std::vector<Reference> reads;
};

StmtAccesses stmtAccesses(const Stmt& st);

}  // namespace tessel
