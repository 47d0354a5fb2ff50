// A fused variant's parameter bookkeeping: the kernel's signature and launch description from
// what its body uses, and the host function's parameters and the arguments tessel_program
// passes to it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "lower/lower_gpu_fused.h"

namespace tessel::gpu::fused {

namespace {

GpuKernelInfo kernelInfo(const FusedContext& c, int64_t shared) {
  GpuKernelInfo info;
  info.name = c.kernelName;
  info.call = c.v.seq.calls.front();
  info.family = ScheduleFamily::Overlapped;
  for (int d = c.dims - 1; d >= 0; --d)
    if (d != c.sd) info.gridIters.push_back(d);
  info.streamIter = c.sd;
  info.chunk = c.sd >= 0 ? c.chunk : 0;
  info.block = c.block;
  if (c.sd >= 0) {  // the streamed kernel's copies per thread (the tiled one loops instead)
    info.unroll = c.unroll;
    info.cyclic = c.cyclic;
  } else {
    info.tileUnroll = c.unroll;
  }
  info.fusedCalls = c.v.seq.calls;
  info.tile = c.v.tile;
  info.sharedBytes = shared;
  std::set<int> dead;
  for (auto& s : c.a.stages)
    if (s.writes.kind == TileValue::Kind::Global && !s.region.empty &&
        !c.written.count(s.writes.index))
      dead.insert(s.writes.index);
  std::vector<std::string> names;
  for (int a : dead) names.push_back(c.prog.arrays.at(static_cast<size_t>(a)).name);
  info.deadStores = fmt::format("{}", fmt::join(names, ", "));
  for (auto& b : c.a.buffers) info.sparePlane = info.sparePlane || b.planes > b.window;
  std::vector<std::string> inRegisters;
  for (const TileHull& h : c.a.hulls)
    if (h.inRegisters) inRegisters.push_back(valueName(c.prog, c.v.seq, h.value));
  info.registerValues = fmt::format("{}", fmt::join(inRegisters, ", "));
  if (inRegisters.empty()) {
    std::vector<std::string> candidates;
    for (const TileValue& v : c.a.registerCandidates) {
      candidates.push_back(valueName(c.prog, c.v.seq, v));
      for (const TileHull& h : c.a.hulls)
        if (h.value == v) info.registerCandidateBytes += h.bytes;
    }
    info.registerCandidates = fmt::format("{}", fmt::join(candidates, ", "));
  }
  return info;
}

}  // namespace

Function finishKernel(const FusedContext& c, const KernelUses& k, Function f,
                      std::vector<StmtPtr> kb, int64_t shared, const std::string& text,
                      GpuProgram& out) {
  const Program& prog = c.prog;
  const GlobalNames& g = c.g;
  f.name = c.kernelName;
  f.linkage = Linkage::Kernel;
  f.requiredBlock = c.block;
  f.comment = text;
  for (int a : k.arrays)
    f.params.push_back({g.arrays[a], ctypeOf(prog.arrays[a].type), true, true});
  for (int a : c.written)
    f.params.push_back({g.shadows[a], ctypeOf(prog.arrays[a].type), true, false});
  for (int s : k.scalars)
    f.params.push_back({g.scalars[s], valueType(prog.scalars[s].type), false});
  for (auto& ci : k.inits)
    f.params.push_back(
        {c.inits.at(ci), valueType(prog.calls[ci.first].inits[ci.second].type), false});
  for (int p : k.params) f.params.push_back({g.params[p], CType::Int64, false});
  std::set<std::pair<int, int>> seenStage;
  for (auto& ts : c.a.stages)
    if (!ts.region.empty && seenStage.insert({ts.call, ts.stmt}).second)
      for (auto& [lo, hi] : c.bounds.at({ts.call, ts.stmt})) {
        f.params.push_back({lo, CType::Int64, false});
        f.params.push_back({hi, CType::Int64, false});
      }
  f.params.push_back({kDeviceStatusParam, CType::Int32, true});
  f.params.back().maybeUnused = !k.status;
  f.body = block(std::move(kb));
  out.kernels.push_back(kernelInfo(c, shared));
  return f;
}

std::vector<lir::Param> hostParams(const FusedContext& c, const HostUses& u) {
  std::vector<lir::Param> ps = {runtimeParam()};
  for (int a : u.arrays) ps.push_back(bufferParam(c.g.arrays[a]));
  for (int a : c.written) ps.push_back(bufferParam(c.g.shadows[a]));
  for (int s : u.scalars) ps.push_back({c.g.scalars[s], valueType(c.prog.scalars[s].type), false});
  for (int p : u.params) ps.push_back({c.g.params[p], CType::Int64, false});
  return ps;
}

std::vector<ExprPtr> hostArgs(const FusedContext& c, const HostUses& u) {
  const Program& prog = c.prog;
  std::vector<ExprPtr> args = {var(kRuntimeVar, ScalarType::Int)};
  for (int a : u.arrays) args.push_back(var(c.g.arrays[a], prog.arrays[a].type));
  for (int a : c.written) args.push_back(var(c.g.shadows[a], prog.arrays[a].type));
  for (int s : u.scalars) args.push_back(var(c.g.scalars[s], prog.scalars[s].type));
  for (int p : u.params) args.push_back(var(c.g.params[p], ScalarType::Int));
  return args;
}

}  // namespace tessel::gpu::fused
