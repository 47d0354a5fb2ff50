// The lowering of one fused variant (the overlapped family and stream + time_tile): shared by
// lower_gpu_overlapped.cpp (host function, tiled kernel) and lower_gpu_overlapped_stream.cpp
// (the streamed kernel). Internal to the GPU lowering.
#pragma once

#include <fmt/format.h>

#include <map>
#include <set>

#include "analysis/regions.h"
#include "analysis/stream_fusion.h"
#include "codegen/lower_gpu_internal.h"

namespace tessel::gpu::fused {

using namespace lir;

inline ExprPtr ivar(const std::string& n) { return var(n, ScalarType::Int); }

class FusedGpu {
 public:
  FusedGpu(const Program& p, const FusedVariant& v, std::string kernelName, std::string hostName,
           GlobalNames& g, const std::array<int, 3>& block, int chunk, GpuProgram& out)
      : prog_(p),
        v_(v),
        a_(v.analysis),
        name_(std::move(kernelName)),
        hostName_(std::move(hostName)),
        g_(g),
        block_(block),
        out_(out),
        names_(g.namer),
        dims_(p.dims()),
        sd_(v.analysis.spec.streamDim),
        chunk_(chunk) {
    // Streamed: the grid covers the other dimensions; the next grid dimension counts chunks.
    if (sd_ >= 0)
      for (size_t gd = static_cast<size_t>(dims_ - 1); gd < 3; ++gd) block_[gd] = 1;
  }

  Function build();
  std::vector<ExprPtr> callArgs() const;

 private:
  const Program& prog_;
  const FusedVariant& v_;
  const TileAnalysis& a_;
  std::string name_, hostName_;
  GlobalNames& g_;
  std::array<int, 3> block_;
  GpuProgram& out_;
  Namer names_;
  int dims_;
  int sd_;     // the streamed dimension (stream + time_tile), or -1
  int chunk_;  // streamed: planes per block; 0: a block sweeps every plane

  // Host-side names.
  std::map<std::pair<int, int>, std::string> inits_;  // (call, init) -> variable
  std::map<std::pair<int, int>, std::vector<std::pair<std::string, std::string>>> bounds_;
  std::set<int> arraysUsed_, scalarsUsed_, paramsUsed_, written_;
  // Kernel-side state.
  bool inKernel_ = false;
  int step_ = -1;  // the step whose statement is being lowered
  std::map<TileValue, std::string> sharedName_;
  std::map<TileValue, const TileHull*> hull_;
  std::vector<std::string> t0_, lid_;  // per iterator dimension
  std::set<int> kArrays_, kScalars_, kParams_;
  std::set<std::pair<int, int>> kInits_;
  bool usesStatus_ = false;

  /// The grid dimension of iterator dimension d (not the streamed one): the last iterator is x.
  int gridDim(int d) const { return sd_ >= 0 && d < sd_ ? dims_ - 2 - d : dims_ - 1 - d; }
  int threads(int d) const { return block_[static_cast<size_t>(gridDim(d))]; }
  const CallInst& callAt(int step) const {
    return prog_.calls.at(static_cast<size_t>(v_.seq.calls.at(static_cast<size_t>(step))));
  }
  ExprPtr param(int p) {
    paramsUsed_.insert(p);
    if (inKernel_) kParams_.insert(p);
    return ivar(g_.params.at(static_cast<size_t>(p)));
  }
  ExprPtr lowerHost(const ExprPtr& e, int call);
  ExprPtr lowerKernel(const ExprPtr& e);
  ExprPtr globalIndex(const Expr& ref, const std::vector<ExprPtr>& at);
  ExprPtr sharedIndex(const TileValue& v, const std::vector<ExprPtr>& at);
  ExprPtr extent(int array, int d) { return lowerHost(prog_.arrays.at(array).extents.at(d), -1); }
  TileValue valueOf(ArrayId id) const {
    if (!id.local) return {TileValue::Kind::Global, -1, id.index};
    return {TileValue::Kind::LocalArray, step_, id.index};
  }
  std::vector<ExprPtr> iterVars() const {
    std::vector<ExprPtr> v;
    for (int d = 0; d < dims_; ++d) v.push_back(ivar(g_.iters[static_cast<size_t>(d)]));
    return v;
  }
  std::vector<StmtPtr> loadHull(const TileHull& h);
  std::vector<StmtPtr> stage(size_t s);
  std::vector<StmtPtr> writeBack(int array);
  Function kernel();
  /// The kernel's signature, comment and GpuKernelInfo around body `kb`.
  Function finishKernel(Function f, std::vector<StmtPtr> kb, int64_t shared,
                        const std::string& comment);

  // Streamed (lower_gpu_overlapped_stream.cpp).
  struct Ring {
    std::string name;
    int64_t planes = 1, planeElems = 1;
  };
  StreamedPlan plan_;
  std::map<int, Ring> rings_;          // TileAnalysis::buffers index -> shared ring
  std::map<int, std::string> regs_;    // producing stage -> its result's register
  std::vector<std::string> point_;     // per dimension: the thread's point (not sd_)
  std::string q_, chunkLo_, chunkHi_;  // the step, the block's first and last plane
  int64_t ringBias_ = 0;               // keeps ring slots of early planes non-negative
  int stage_ = -1;                     // the stage being lowered
  std::vector<int> inPlane() const;    // iterator dimensions but sd_, slowest first
  ExprPtr streamExtent();              // planes along sd_: the written arrays' largest
  ExprPtr ringIndex(int buffer, const ExprPtr& plane, const std::vector<ExprPtr>& at);
  ExprPtr streamRead(const TileValue& v, const std::vector<int64_t>& off, ScalarType t);
  std::vector<StmtPtr> loadRing(int buffer);
  std::vector<StmtPtr> streamStage(size_t s);
  Function streamKernel();
  std::vector<ExprPtr> streamGrid(std::vector<StmtPtr>& body);
};

}  // namespace tessel::gpu::fused
