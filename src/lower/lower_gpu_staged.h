// The kernel of one statement under a staged family (`shared`, `stream`): what the statement's
// kernel builder (lower_gpu_stmt_kernel.h) asks of it. It plans the staging (analysis/staging.h),
// names the kernel's variables, replaces the right-hand side's reads by shared-memory loads and
// registers, and wraps the store in the family's body: the shared family's tile here, the stream
// family's plane sweep in lower_gpu_staged_stream.cpp. The parts are in lower_gpu_staged_parts.h.
// Part of the GPU lowering; not a public interface.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/staging.h"
#include "ir/loop_ir.h"
#include "lower/lower_gpu_internal.h"
#include "lower/namer.h"

namespace tessel::gpu {

/// Names a staged kernel declares, taken from the kernel's scope.
struct StagedNames {
  struct Group {
    std::string shared;              // the shared array of a tile
    std::vector<std::string> slots;  // stream: the shared array of each slot of the ring
    /// stream, a rolled ring (StagePlan::rolledRing): the array's one name is slots[0], and this
    /// variable, declared per plane, is where the plane streamed in starts in it
    std::string slotBase;
    /// stream: planes regLo..regHi, per unrolled copy (GridShape::copies) of the thread's point
    std::vector<std::vector<std::string>> regs;
    /// stream with prefetch: the key under which pass prefetch-planes loads the leading shared
    /// plane a plane ahead (and its registers' stem, "pf_in"); empty without
    std::string prefetch;
  };
  std::vector<Group> groups;        // per StmtStaging::groups entry
  std::vector<std::string> t0;      // per iterator: the block's first point ("" if none)
  std::string tid, elem;            // the thread's index in its block; a loaded element
  std::string first, last;          // stream: the block's first and last plane
  std::string rounds, round, base;  // stream with a ring: whole rounds of planes, the first of one
  std::vector<std::string> coord;   // per iterator: a loaded element's coordinate
  std::vector<std::string> along;   // per iterator: a load loop's offset in the tile
  std::vector<std::string> unroll;  // per grid dimension: the unroll loop variable
};

/// What every part of a staged kernel reads: the statement's call, the grid, the kernel's
/// region bound parameters (per iterator), the staging plan and the kernel's names.
struct StagedContext {
  const Program& prog;
  const CallInst& call;
  const GlobalNames& g;
  const GridShape& grid;
  const std::vector<std::string>& lo;
  const std::vector<std::string>& hi;
  KernelSite& site;
  StmtStaging staging;
  StagedNames names;
  int threads = 1;  // per block
  /// stream: the sweep runs from the block's first plane + sweepLo to its last + sweepHi (a
  /// retimed statement reads planes around its outputs: analysis/retiming.h).
  int64_t sweepLo = 0, sweepHi = 0;
};

class StagedKernel {
 public:
  /// `lo`, `hi`: the kernel's region bound parameters per iterator; `scope`: the kernel's names.
  /// `staging`: the statement's, as resolved (ResolvedSchedule::staging).
  StagedKernel(const Program& prog, const CallInst& call, const StmtStaging& staging,
               const GlobalNames& g, const GridShape& grid, const std::vector<std::string>& lo,
               const std::vector<std::string>& hi, Namer& scope, KernelSite& site);

  /// What replaces a reference of the right-hand side: a shared-memory load or a register; null
  /// where it is read from global memory.
  ExprPtr read(const Expr& ref) const;
  /// The kernel's body around the compute statements `computeAt(phase, copy)` builds (for the
  /// point the iterator variables name; this body declares them and guards them against the
  /// region's upper bounds). The stream family unrolls its sweep by its rings' slots and builds
  /// one copy per phase (the plane's position in the round), and one per point of the thread
  /// (`copy`, GridShape::copies: each has registers of its own); read() follows both, which the
  /// body sets before each call. The shared family loops over a thread's points: (0, 0).
  std::vector<lir::StmtPtr> body(
      const std::function<std::vector<lir::StmtPtr>(int phase, int copy)>& computeAt);
  /// stream: sweep the planes from the block's first + lo to its last + hi.
  void setSweep(int64_t lo, int64_t hi) {
    c_.sweepLo = lo;
    c_.sweepHi = hi;
  }
  /// stream: the variables of the block's first and last plane (of its outputs).
  const std::string& firstPlane() const { return c_.names.first; }
  const std::string& lastPlane() const { return c_.names.last; }
  /// Declares on kernel `f` the shared arrays the body uses and the block shape it assumes
  /// (its staging loops stride by the block's thread count).
  void declare(lir::Function& f) const;
  const StmtStaging& staging() const { return c_.staging; }
  /// stream: copies of the sweep's body per round (GpuKernelInfo::sweepCopies); else 1.
  int sweepCopies() const;
  /// One line per staged group: what lives where ("in: tile 34x10 in shared memory").
  std::string describe() const;

 private:
  StagedContext c_;
  int phase_ = 0, copy_ = 0;  // what read() builds references for (body())
};

}  // namespace tessel::gpu
