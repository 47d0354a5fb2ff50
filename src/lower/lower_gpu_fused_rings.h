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
  std::vector<std::string> t0, lid;  // per iterator dimension (not the streamed one)
  /// Per iterator dimension (not the streamed one), the thread's points along it (one unless
  /// unrolled).
  std::vector<std::vector<std::string>> point;
  std::string q, chunkLo, chunkHi;  // the step; the block's first and last plane
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
  /// Each step: the newest plane of every input ring (with prefetch, marked for pass
  /// prefetch-planes).
  std::vector<StmtPtr> loadInputs();
  /// With prefetch, before the sweep: where pass prefetch-planes starts each input ring's
  /// registers (lir::planeStart).
  std::vector<StmtPtr> startPrefetch();
  /// Value v at the current point shifted by `off` (per dimension), as stage `stage` reads it.
  ExprPtr read(const TileValue& v, int stage, const std::vector<int64_t>& off, ScalarType t) const;
  /// Stage s's result `val` into its ring (at the point) and its register, where it has them.
  std::vector<StmtPtr> keep(size_t s, const std::string& val, ScalarType t) const;
  /// Unrolled: the thread's point (of `copies`) that reads and keeps use next; each has its
  /// own registers.
  void setCopy(int copy) { copy_ = copy; }

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
  std::map<int, Ring> rings_;                     // TileAnalysis::buffers index -> shared ring
  std::map<int, std::vector<std::string>> regs_;  // producing stage -> its result's register,
                                                  // per point of the thread
  int copy_ = 0;
  int64_t bias_ = 0;  // keeps ring slots of early planes non-negative
  /// With prefetch: per input ring, the key (and register stem) of pass prefetch-planes.
  std::map<int, std::string> prefetch_;

  /// One element of input ring `buffer`'s plane `plane`, loaded at step `step`: the loop
  /// variables `ys` (one per in-plane dimension) give it; the declarations of its coordinates,
  /// whether it lies in the array and is needed, its global index and its ring index.
  struct Element {
    std::vector<StmtPtr> decls;
    ExprPtr inside, global, ring;
  };
  Element element(int buffer, const ExprPtr& plane, const ExprPtr& step,
                  const std::vector<std::string>& ys, Namer& scope) const;

  /// An input ring's value for comments: its name, and what it holds where folded.
  std::string inputName(const TileBuffer& b) const;
  /// Slot (plane mod planes) times the plane's elements plus the row-major in-plane offset
  /// from the buffer's first point.
  ExprPtr ringIndex(int buffer, const ExprPtr& plane, const std::vector<ExprPtr>& at) const;
  std::vector<StmtPtr> loadRing(int buffer);
  /// A register per point of a thread: `stem`, or stem_u0, stem_u1, ... when unrolled.
  std::vector<std::string> registers(const std::string& stem);
};

}  // namespace tessel::gpu::fused
