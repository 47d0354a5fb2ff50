// The lowering of one fused variant (the overlapped family and stream + time_tile): the context
// its parts share and their interfaces. The host function: lower_gpu_fused_host.cpp; the
// translation of expressions: lower_gpu_fused_exprs.cpp; the kernel's signature and the host's
// arguments: lower_gpu_fused_params.cpp; the tiled kernel: lower_gpu_overlapped.cpp; the
// streamed kernel: lower_gpu_overlapped_stream.cpp, its rings and registers in
// lower_gpu_fused_rings.cpp. Internal to the GPU lowering.
#pragma once

#include <fmt/format.h>

#include <map>
#include <set>

#include "analysis/regions.h"
#include "analysis/stream_fusion.h"
#include "lower/lower_gpu_internal.h"

namespace tessel::gpu::fused {

using namespace lir;

inline ExprPtr ivar(const std::string& n) { return var(n, ScalarType::Int); }

/// A statement's region bound variables, per iterator dimension: (lo, hi).
using Bounds = std::vector<std::pair<std::string, std::string>>;

/// What every part of a fused variant's lowering reads: the variant, its launch shape, the
/// names in scope and the host variables the kernel takes.
struct FusedContext {
  const Program& prog;
  const FusedVariant& v;
  const TileAnalysis& a;
  GlobalNames& g;
  std::array<int, 3> block;
  int dims;
  int sd;         // the streamed dimension (stream + time_tile), or -1
  int chunk;      // streamed: planes per block; 0: a block sweeps every plane
  bool prefetch;  // streamed: each input ring's next plane into registers a step ahead
  /// Streamed: points per thread along grid x, y, z (a copy of each stage per point, with its
  /// own registers) and whether a thread's points are a block apart (else consecutive).
  std::array<int, 3> unroll;
  bool cyclic;
  std::string kernelName, hostName;
  Namer names;                                       // the host function's scope (and kernel's)
  std::map<std::pair<int, int>, std::string> inits;  // (call, init) -> host variable
  std::map<std::pair<int, int>, Bounds> bounds;      // (call, statement) -> its region's bounds
  std::set<int> written;  // the global arrays the kernel writes (into their second buffers)
};

/// The grid dimension of iterator dimension d (not the streamed one): the last iterator is x.
inline int gridDim(const FusedContext& c, int d) {
  return c.sd >= 0 && d < c.sd ? c.dims - 2 - d : c.dims - 1 - d;
}
/// Threads per block along iterator dimension d.
inline int threads(const FusedContext& c, int d) {
  return c.block[static_cast<size_t>(gridDim(c, d))];
}
/// Points per thread along iterator dimension d (streamed kernels; 1 for the others).
inline int unrollAlong(const FusedContext& c, int d) {
  return c.sd >= 0 ? std::max(1, c.unroll[static_cast<size_t>(gridDim(c, d))]) : 1;
}
/// The call of step `step` of the sequence.
const CallInst& callAt(const FusedContext& c, int step);
/// The iterator variables, per dimension.
std::vector<ExprPtr> iterVars(const FusedContext& c);
/// The iterator dimensions but the streamed one, slowest first.
std::vector<int> inPlane(const FusedContext& c);
/// The value an array reference of step `step` names.
inline TileValue valueOf(ArrayId id, int step) {
  if (!id.local) return {TileValue::Kind::Global, -1, id.index};
  return {TileValue::Kind::LocalArray, step, id.index};
}
/// The fold of global array `array` (TileSpec::folds: its buffer holds `array op partner`), or
/// null.
inline const Fold* foldOf(const FusedContext& c, int array) {
  for (const Fold& f : c.a.spec.folds)
    if (!f.array.local && f.array.index == array) return &f;
  return nullptr;
}
/// The element type of a value the sequence writes.
ScalarType elementType(const FusedContext& c, const TileValue& v);
/// The variable-name stem of a value ("u" for "u (step 2)").
std::string valueStem(const FusedContext& c, const TileValue& v);
/// "0 j2d5pt, 1 j2d5pt": the fused calls, for the kernel's comment.
std::vector<std::string> callNames(const FusedContext& c);

/// What the kernel takes besides its written arrays' second buffers and the region bounds.
struct KernelUses {
  std::set<int> arrays, scalars, params;  // arrays: read from global memory (or loaded)
  std::set<std::pair<int, int>> inits;    // (call, init)
  bool status = false;                    // it calls a status helper
};

/// What the host function and its kernel use, recorded as expressions are translated.
struct FusedUses {
  HostUses host;  // arrays: the global arrays the kernel reads
  KernelUses kernel;
  bool inKernel = false;  // translating kernel code: parameters count for the kernel too
  void array(int a) {
    host.arrays.insert(a);
    kernel.arrays.insert(a);
  }
};

/// Where a kernel keeps the values the sequence writes: the tiled kernel in shared tiles, the
/// streamed one in rings of planes and registers.
class FusedReads {
 public:
  virtual ~FusedReads() = default;
  /// Local scalar v at the current point.
  virtual ExprPtr local(const TileValue& v, ScalarType t) = 0;
  /// Array reference `ref` (value v) from where the kernel keeps it; null: from global memory.
  virtual ExprPtr array(const Expr& ref, const TileValue& v) = 0;
};

/// Translates the fused calls' expressions, recording what they use: host code (parameters,
/// global scalars, initialised locals) and kernel code at the point the iterator variables
/// name.
class FusedExprs {
 public:
  FusedExprs(FusedContext& c, FusedUses& u) : c_(c), u_(u) {}

  /// Host code of call `call` (-1: an array extent, over parameters only).
  ExprPtr host(const ExprPtr& e, int call);
  /// Kernel code of the statement of step `step()`, reading written values through `reads`.
  ExprPtr kernel(const ExprPtr& e);
  /// Extent d of global array `array` (host or kernel code).
  ExprPtr extent(int array, int d) { return host(c_.prog.arrays.at(array).extents.at(d), -1); }
  /// Row-major in the referenced array at the point `at` (per iterator dimension) plus the
  /// subscripts' offsets.
  ExprPtr globalIndex(const Expr& ref, const std::vector<ExprPtr>& at);
  /// Row-major in global array `array` (which has every dimension: it is written) at `at`.
  ExprPtr rowMajor(int array, const std::vector<ExprPtr>& at);
  /// Global array `array`'s element at index `index`, or for a folded array (foldOf) the
  /// combination with its partner's element there (the same extents: the same index).
  ExprPtr element(int array, const ExprPtr& index);
  /// The step whose statement is being translated (-1: none).
  int step() const { return step_; }
  void setStep(int step) { step_ = step; }
  void setReads(FusedReads* reads) { reads_ = reads; }

 private:
  FusedContext& c_;
  FusedUses& u_;
  FusedReads* reads_ = nullptr;
  int step_ = -1;

  ExprPtr param(int p);
};

/// The planes along the streamed dimension: the written arrays' largest extent.
ExprPtr streamExtent(const FusedContext& c, FusedExprs& x);

/// The kernel `c.kernelName` with body `kb` and comment `text`: its parameters (arrays read
/// from global memory, the written arrays' second buffers, scalars, initialised locals,
/// parameters, the statements' region bounds, the status); its GpuKernelInfo goes to `out`.
Function finishKernel(const FusedContext& c, const KernelUses& k, Function f,
                      std::vector<StmtPtr> kb, int64_t shared, const std::string& text,
                      GpuProgram& out);
/// The host function's parameters after the runtime: `u.arrays`' buffers (which include the
/// written arrays), the second buffers, scalars, parameters.
std::vector<lir::Param> hostParams(const FusedContext& c, const HostUses& u);
/// What tessel_program passes for those, the runtime first.
std::vector<ExprPtr> hostArgs(const FusedContext& c, const HostUses& u);

/// The overlapped family's kernel (lower_gpu_overlapped.cpp).
Function tiledKernel(FusedContext& c, FusedUses& u, FusedExprs& x, GpuProgram& out);
/// The stream + time_tile kernel (lower_gpu_overlapped_stream.cpp).
Function streamedKernel(FusedContext& c, FusedUses& u, FusedExprs& x, GpuProgram& out);

}  // namespace tessel::gpu::fused
