// The kernel of one statement of a call (lower_gpu.cpp builds the call's host function and
// launches): the statement's store at a thread's point, the thread mapping (one point per thread,
// or a staged family's, lower_gpu_staged.h) and the kernel's parameters, which are what its body
// reads and writes. Part of the GPU lowering; not a public interface.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lower/lower_gpu_internal.h"

namespace tessel::gpu {

class StagedKernel;

/// What a call's host function shares with the kernels of its statements.
struct CallSite {
  const Program& prog;
  const CallInst& call;
  GlobalNames& g;
  const GridShape& grid;
  const std::vector<StmtStaging>& staging;  // per statement, under a staged family
  const CallNames& locals;
  HostUses& uses;  // what the host function takes: a kernel's global arrays, scalars, params
};

/// What one kernel uses: its parameters, in a fixed order.
struct KernelUse {
  std::map<ArrayId, bool> arrays;  // -> written
  std::set<int> localScalars, scalars, inits, params;
  bool box = false;  // the local-scalar box variables (a local scalar is read or written)
};

class StmtKernel : public KernelSite, public RefObserver {
 public:
  /// `lo`, `hi`: the kernel's region bound parameters per iterator.
  StmtKernel(const CallSite& site, const std::vector<std::string>& lo,
             const std::vector<std::string>& hi)
      : c_(site), lo_(lo), hi_(hi), x_(site.prog, site.call, site.g, site.locals, *this) {}

  /// Kernel `name` computing statement k; `text`: its comment (a staged family adds what it
  /// stages); `scope`: the kernel's names. Fills the staging fields of `info`.
  lir::Function build(size_t k, const std::string& name, std::string text, Namer& scope,
                      GpuKernelInfo& info);

  /// Kernel `name` computing the statements `ks` of a fused group (analysis/stmt_fusion.h,
  /// `global` family; lo/hi: the group's bounding box): each thread runs them in order at its
  /// point, each guarded by its own region (`stmtLo[n]`, `stmtHi[n]`: the bound parameters of
  /// statement ks[n] per iterator). `registers`: per local scalar of the call, the register
  /// holding it in this kernel, or "" (its buffer).
  lir::Function buildFused(const std::vector<size_t>& ks,
                           const std::vector<std::vector<std::string>>& stmtLo,
                           const std::vector<std::vector<std::string>>& stmtHi,
                           const std::vector<std::string>& registers, const std::string& name,
                           std::string text, GpuKernelInfo& info);

  ExprPtr kernelIndex(const ExprPtr& e) override { return x_.lower(e); }
  std::string readBuffer(ArrayId a) override;
  void uses(const Expr& ref) override;
  ExprPtr replace(const Expr& ref) override;

 private:
  const CallSite& c_;
  const std::vector<std::string>& lo_;
  const std::vector<std::string>& hi_;
  KernelUse use_;
  CallExprs x_;
  const StagedKernel* staged_ = nullptr;  // the staging, while the store is translated
  const std::vector<std::string>* registers_ = nullptr;  // buildFused: local scalars' registers
  std::vector<lir::Param> extraParams_;                  // buildFused: the statements' bounds

  std::vector<lir::Param> params() const;
  /// The body of a retimed statement (analysis/retiming.h): per plane streamed in, each part
  /// added to its output's accumulator, the completed output stored, the accumulators rotated.
  /// `staged`: the stream family's staging (its sweep); null under global-stream, where each
  /// thread sweeps and reads global memory. `status`: set when the body calls a helper that sets
  /// the error status; `accumulators`: set to the accumulators per thread.
  std::vector<lir::StmtPtr> retimedBody(const tessel::Stmt& st, StagedKernel* staged, Namer& scope,
                                        bool& status, int& accumulators);
  /// The thread's points of the grid's dimensions (GridShape::copies: one, or one per unrolled
  /// copy, each guarded against the region's upper bounds) computing `bodyAt(copy)`, after
  /// `before`; with `from`, all of them inside a loop over the streamed iterator from `from` to
  /// `to`.
  std::vector<lir::StmtPtr> pointPerThread(
      const std::function<std::vector<lir::StmtPtr>(int copy)>& bodyAt,
      std::vector<lir::StmtPtr> before = {}, const ExprPtr& from = nullptr,
      const ExprPtr& to = nullptr) const;
};

}  // namespace tessel::gpu
