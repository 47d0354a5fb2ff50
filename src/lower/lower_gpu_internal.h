// Shared between the parts of the GPU lowering (lower_gpu.cpp: calls and their kernels;
// lower_gpu_fused_host.cpp: fused groups and the host code running their time steps;
// lower_gpu_program.cpp: names, tessel_program). Not a public interface.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "ir/loop_ir.h"
#include "ir/program.h"
#include "lower/call_exprs.h"
#include "lower/lower_gpu.h"
#include "lower/namer.h"
#include "schedule/resolve.h"

namespace tessel::gpu {

/// Names of the host runtime (gpu_host_runtime.h) that the host code uses.
inline constexpr const char* kRuntimeVar = "rt";
inline constexpr const char* kRuntimeType = "tessel_runtime&";
inline constexpr const char* kBufferType = "tessel_device_buffer&";
/// The last parameter of every kernel: the device error status (dialects' statusName).
inline constexpr const char* kDeviceStatusParam = "tessel_device_status";

/// C names of the program's global symbols, shared by every generated function.
struct GlobalNames : ProgramNames {
  /// overlapped: the second device buffer of each global array a fused kernel writes (its
  /// results go there and the host swaps the two, paper 001 Algorithm 5); "" for the others.
  std::vector<std::string> shadows;
  /// The device buffers of the calls' local arrays and per-point local scalars, allocated once
  /// per run by tessel_program (a cudaMalloc and a synchronising cudaFree per call before, issue
  /// 11; and no allocation or free may fall inside a loop captured as a CUDA Graph, or recorded
  /// and replayed in OpenCL, whose replay would read a freed buffer). Calls run one after the
  /// other, so they share buffers: one per type and element count, as many as one call needs at
  /// once (two locals of one call never share).
  struct LocalBuffer {
    std::string name;
    lir::CType type = lir::CType::Double;
    ExprPtr count;  // elements, over parameters (ParamRef)
  };
  std::vector<LocalBuffer> localBufferPool;
  std::map<std::string, std::vector<size_t>> localBufferKeys;  // type and count -> pool entries
  /// Per call that runs per statement (filled as it is lowered): the buffer of each local array,
  /// and of each local scalar ("" for one every statement keeps in a register).
  std::vector<std::vector<std::string>> localBuffers, localScalarBuffers;
  /// A buffer of the pool for a local `name` of one call; `used` counts what that call has taken.
  std::string poolBuffer(const std::string& name, ScalarType type, const ExprPtr& count,
                         const std::vector<std::string>& iterNames,
                         std::map<std::string, size_t>& used);
  /// Host loops lowered by graphLoop so far: each one's site number (the runtime keeps a
  /// loop's executable graph by it, from one run to the next).
  int graphSites = 0;
};

/// What a staged kernel's builder needs from the call being lowered.
class KernelSite {
 public:
  virtual ~KernelSite() = default;
  /// An int expression over parameters and literals (an array extent), in kernel code.
  virtual ExprPtr kernelIndex(const ExprPtr& e) = 0;
  /// The buffer of array `a`, which the kernel reads.
  virtual std::string readBuffer(ArrayId a) = 0;
};

[[noreturn]] void internal(const std::string& what);
/// The thread's point of unrolled copy `copy` along grid dimension gd, from its block's first
/// point: the thread's index in the block, times the unroll factor plus the copy's position
/// (blocked: consecutive points) or plus the position times the block (cyclic: a block apart).
ExprPtr pointInBlock(const GridShape& grid, size_t gd, int copy);
/// Host-function parameters: the runtime handle and a device buffer (runtime types, by name).
lir::Param runtimeParam();
lir::Param bufferParam(const std::string& name);

/// How a call's per-statement kernels run: its stencil's grid (GridShape::perStatement) and,
/// under a staged family, each statement's staging (ResolvedSchedule::staging).
struct CallSchedule {
  const GridShape& grid;
  const std::vector<StmtStaging>& staging;
  const CallRegions& regions;  // ResolvedSchedule::regions of the call
};

/// Lowers call `index`: appends its kernels to out.device and out.kernels and returns its host
/// function; `args` receives what tessel_program passes to it.
lir::Function lowerCall(const Program& prog, int index, GlobalNames& g, const CallSchedule& s,
                        GpuProgram& out, std::vector<ExprPtr>& args);

/// Lowers one variant of a fused group (lower_gpu_fused.h): appends its kernel to
/// out.device and out.kernels and returns the host function that launches it and swaps the
/// written arrays with their shadows; `args` receives what tessel_program passes to it.
/// `grid.block`: threads per block along x, y, z. A variant whose analysis streams a dimension
/// (stream + time_tile) gets a streamed kernel (lower_gpu_overlapped_stream.cpp) sweeping
/// `grid.chunk` planes per block (0: every plane), its input rings prefetched with
/// `grid.prefetch`.
lir::Function lowerFused(const Program& prog, const FusedVariant& v, const std::string& name,
                         GlobalNames& g, const GridShape& grid, GpuProgram& out,
                         std::vector<ExprPtr>& args);

/// What tessel_program calls for call `c` when it runs per statement: its host function.
inline lir::StmtPtr callOf(int c, const GlobalNames& g,
                           const std::vector<std::vector<ExprPtr>>& args) {
  return lir::callFn(g.callFns.at(static_cast<size_t>(c)), args.at(static_cast<size_t>(c)));
}

/// Per call: whether it runs per-statement kernels, i.e. is not covered by a straight run's
/// fused kernels (a loop's remaining steps may be any of its calls).
std::vector<bool> runsPerStatement(const Program& prog, const std::vector<FusionGroup>& groups);

/// What tessel_program needs to run the fused groups: per group, the host function and its
/// arguments for each variant (by starting phase).
struct FusedCalls {
  std::map<const ExecNode*, const FusionGroup*> loops;
  std::map<std::pair<const std::vector<ExecNode>*, size_t>, const FusionGroup*> runs;
  std::map<const FusionGroup*, std::map<int, std::pair<std::string, std::vector<ExprPtr>>>> fns;
};

/// Lowers every fused group's variants (lowerFused): their kernels and host functions, the
/// second buffers of the arrays they write, and a note for each group not fused or fused with
/// a remark.
FusedCalls lowerFusedGroups(const Program& prog, const ResolvedSchedule& resolved, GlobalNames& g,
                            GpuProgram& out);
/// The host statements of a straight run of k calls: floor(k/T) fused kernels, then the rest
/// one statement at a time.
void runFused(const Program& prog, const FusionGroup& grp, GlobalNames& g,
              const std::vector<std::vector<ExprPtr>>& args, const FusedCalls& fused,
              std::vector<lir::StmtPtr>& out);
/// The host loop of an iterate loop of n calls: S = n * iterations steps; floor(S/T) fused
/// kernels, each the variant for its starting body position, then the S mod T remaining steps
/// per statement. `graph`: the loop of fused kernels runs as a graph where the runtime takes
/// one (graphLoop; not for a loop nested in another, which is part of the outer one's graph).
lir::StmtPtr loopFused(const Program& prog, const ExecNode& loop, const FusionGroup& grp,
                       GlobalNames& g, const std::vector<std::vector<ExprPtr>>& args,
                       const FusedCalls& fused, bool graph);

/// A host loop `for loopVar = lo..hi` over `body` (lower_gpu_graph.cpp): where the runtime
/// takes it, its first `period` iterations are captured once as a graph and replayed, and the
/// iterations left run one by one. `period` must be a multiple of the iterations after which
/// the body's host state repeats (buffer swaps: 2; a fused loop's phases).
std::vector<lir::StmtPtr> graphLoop(GlobalNames& g, const std::string& loopVar, const ExprPtr& lo,
                                    const ExprPtr& hi, int64_t period,
                                    const std::vector<lir::StmtPtr>& body);

}  // namespace tessel::gpu
