// The rings and registers of the streamed fused kernel (lower_gpu_overlapped_stream.cpp): per
// TileAnalysis buffer a ring of shared planes or a register, the ring's slot arithmetic (plane
// mod planes, biased non-negative), the loads of each input ring's newest plane, the reads of
// a value from its ring or register and the stores of a stage's result. Internal to the GPU
// lowering.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lower/lower_gpu_fused.h"

namespace tessel::gpu::fused {

/// The streamed kernel's per-block variables.
struct SweepNames {
  std::vector<std::string> t0, lid, point;  // per iterator dimension (not the streamed one)
  std::string q, chunkLo, chunkHi;          // the step; the block's first and last plane
};

class StreamRings {
 public:
  StreamRings(FusedContext& c, FusedUses& u, FusedExprs& x, const StreamedPlan& plan,
              const SweepNames& n)
      : c_(c), u_(u), x_(x), plan_(plan), n_(n) {}

  /// Names the rings (declared on `f`) and the registers; returns the rings' bytes.
  int64_t declare(Function& f);
  /// Each step: the registers' declarations.
  std::vector<StmtPtr> declareRegisters() const;
  /// Each step: the newest plane of every input ring.
  std::vector<StmtPtr> loadInputs();
  /// Value v at the current point shifted by `off` (per dimension), as stage `stage` reads it.
  ExprPtr read(const TileValue& v, int stage, const std::vector<int64_t>& off, ScalarType t) const;
  /// Stage s's result `val` into its ring (at the point) and its register, where it has them.
  std::vector<StmtPtr> keep(size_t s, const std::string& val, ScalarType t) const;

 private:
  struct Ring {
    std::string name;
    int64_t planes = 1, planeElems = 1;
  };
  FusedContext& c_;
  FusedUses& u_;
  FusedExprs& x_;
  const StreamedPlan& plan_;
  const SweepNames& n_;
  std::map<int, Ring> rings_;        // TileAnalysis::buffers index -> shared ring
  std::map<int, std::string> regs_;  // producing stage -> its result's register
  int64_t bias_ = 0;                 // keeps ring slots of early planes non-negative

  /// Slot (plane mod planes) times the plane's elements plus the row-major in-plane offset
  /// from the buffer's first point.
  ExprPtr ringIndex(int buffer, const ExprPtr& plane, const std::vector<ExprPtr>& at) const;
  std::vector<StmtPtr> loadRing(int buffer);
};

}  // namespace tessel::gpu::fused
