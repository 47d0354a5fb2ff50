// The kernel of one statement under a staged family (`shared`, `stream`): the thread mapping,
// the cooperative loads of what analysis/staging.h stages, barriers, the plane sweep with its
// rotation, and the reads of the right-hand side from shared memory and registers. Part of the
// GPU lowering (lower_gpu.cpp builds the store and the host code); not a public interface.
#pragma once

#include <string>
#include <vector>

#include "analysis/staging.h"
#include "ir/loop_ir.h"
#include "codegen/lower_gpu_internal.h"
#include "codegen/namer.h"

namespace tessel::gpu {

class StagedKernel {
 public:
  /// `lo`, `hi`: the kernel's region bound parameters per iterator; `scope`: the kernel's names.
  StagedKernel(const Program& prog, const CallInst& call, const tessel::Stmt& st,
               const GlobalNames& g, const GridShape& grid, const std::vector<std::string>& lo,
               const std::vector<std::string>& hi, Namer& scope, KernelSite& site);

  /// What replaces a reference of the right-hand side: a shared-memory load or a register; null
  /// where it is read from global memory.
  ExprPtr read(const Expr& ref) const;
  /// The kernel's body around `compute` (statements for the point the iterator variables name;
  /// this body declares them and guards them against the region's upper bounds).
  std::vector<lir::StmtPtr> body(const std::vector<lir::StmtPtr>& compute);
  /// Declares on kernel `f` the shared arrays the body uses and the block shape it assumes
  /// (its staging loops stride by the block's thread count).
  void declare(lir::Function& f) const;
  const StmtStaging& staging() const { return staging_; }
  /// One line per staged group: what lives where ("in: tile 34x10 in shared memory").
  std::string describe() const;

 private:
  struct GroupNames {
    std::string shared;             // the shared array (tile or ring of planes)
    std::vector<std::string> regs;  // stream: planes regLo..regHi
  };
  const Program& prog_;
  const CallInst& call_;
  const GlobalNames& g_;
  const GridShape& grid_;
  const std::vector<std::string>& lo_;
  const std::vector<std::string>& hi_;
  KernelSite& site_;
  StmtStaging staging_;
  std::vector<GroupNames> names_;  // per staging_.groups entry
  std::vector<std::string> t0_;    // per iterator: the block's first point ("" if none)
  std::string tid_, elem_, cs_, ce_;
  std::vector<std::string> coord_;   // per iterator: a loaded element's coordinate
  std::vector<std::string> unroll_;  // per grid dimension: the unroll loop variable
  int threads_ = 1;

  int group(const Expr& ref) const;
  ExprPtr iterVar(int d) const;
  /// The index in a group's tile (one plane of it) of the element at the current point shifted
  /// by `offsets` (per subscript).
  ExprPtr tileIndex(const StagePlan& p, const std::vector<int64_t>& offsets) const;
  ExprPtr globalIndex(const StagePlan& p, const std::vector<ExprPtr>& coords);
  ExprPtr inArray(const StagePlan& p, const std::vector<ExprPtr>& coords);
  /// Cooperative load of a group's tile (or of plane `plane` into ring slot `slot`). With
  /// `ownReg` (a register holding the thread's own element of that plane), each thread stores
  /// its register and the loop loads only the halo.
  std::vector<lir::StmtPtr> loadTile(size_t gi, const ExprPtr& plane, const ExprPtr& slot,
                                     const std::string& ownReg = "");
  /// Loads plane `plane` of group gi at the thread's own point into register `reg`.
  lir::StmtPtr loadRegister(size_t gi, const ExprPtr& plane, const std::string& reg);
  ExprPtr slotOf(const StagePlan& p, const ExprPtr& plane) const;
  ExprPtr guard() const;
  std::vector<lir::StmtPtr> sharedBody(const std::vector<lir::StmtPtr>& compute);
  std::vector<lir::StmtPtr> streamBody(const std::vector<lir::StmtPtr>& compute);
};

}  // namespace tessel::gpu
