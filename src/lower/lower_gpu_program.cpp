// buildKernels: the names, every call's and fused group's kernels and host functions, and
// tessel_program (device buffers for the global arrays, the call sequence, copy-out), from the
// resolved schedule (schedule/resolve.h). Calls: lower_gpu.cpp; fused groups, and the host
// code that runs their time steps: lower_gpu_fused_host.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "codegen/dialect.h"
#include "codegen/gpu_host_runtime.h"
#include "ir/loop_ir_walk.h"
#include "lower/lower_gpu.h"
#include "lower/lower_gpu_internal.h"
#include "schedule/schedule.h"

namespace tessel {

using namespace lir;
using gpu::FusedCalls;
using gpu::GlobalNames;

std::string GlobalNames::poolBuffer(const std::string& name, ScalarType type, const ExprPtr& count,
                                    const std::vector<std::string>& iterNames,
                                    std::map<std::string, size_t>& used) {
  const std::string key = std::string(typeName(type)) + " " + toString(count, iterNames);
  std::vector<size_t>& entries = localBufferKeys[key];
  const size_t k = used[key]++;
  if (k == entries.size()) {
    entries.push_back(localBufferPool.size());
    localBufferPool.push_back({namer.take("local_" + name), ctypeOf(type), count});
  }
  return localBufferPool[entries[k]].name;
}

namespace {

/// The host statements of `nodes`. An outermost iterate loop runs as a graph where the runtime
/// takes one (graphLoop); a nested one is part of its outer loop's graph.
std::vector<StmtPtr> lowerExec(const Program& prog, const std::vector<ExecNode>& nodes,
                               GlobalNames& g, const std::vector<std::vector<ExprPtr>>& args,
                               const FusedCalls& fused, bool outermost) {
  std::vector<StmtPtr> out;
  auto iters = prog.iteratorNames();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ExecNode& n = nodes[i];
    auto run = fused.runs.find({&nodes, i});
    if (run != fused.runs.end()) {
      gpu::runFused(prog, *run->second, g, args, fused, out);
      i += run->second->count - 1;
      continue;
    }
    if (n.kind == ExecNode::Kind::Call) {
      const CallInst& c = prog.calls.at(n.call);
      out.push_back(comment(fmt::format("{}({})", c.name, fmt::join(c.actualNames, ", "))));
      out.push_back(gpu::callOf(n.call, g, args));
      continue;
    }
    auto loop = fused.loops.find(&n);
    if (loop != fused.loops.end()) {
      out.push_back(gpu::loopFused(prog, n, *loop->second, g, args, fused, outermost));
      continue;
    }
    std::string t = g.namer.take("t");
    out.push_back(comment(
        fmt::format("iterate {}:{} (inclusive)", toString(n.lo, iters), toString(n.hi, iters))));
    ExprPtr lo = paramsToVars(n.lo, g), hi = paramsToVars(n.hi, g);
    std::vector<StmtPtr> body = lowerExec(prog, n.body, g, args, fused, false);
    if (outermost)  // a swap's buffers are back in place after 2 iterations
      out.push_back(block(gpu::graphLoop(g, t, lo, hi, 2, body)));
    else
      out.push_back(forLoop(t, lo, hi, LoopKind::Serial, body));
  }
  return out;
}

/// The arrays copied back to the host: the copyout list, or if there is none, every global
/// array some call writes (what `tessel run` reports).
std::vector<bool> copiedOut(const Program& prog) {
  std::vector<bool> out(prog.arrays.size(), false);
  bool any = false;
  for (size_t a = 0; a < prog.arrays.size(); ++a) any = any || prog.arrays[a].data.copyout;
  for (size_t a = 0; a < prog.arrays.size(); ++a) out[a] = prog.arrays[a].data.copyout;
  if (any) return out;
  for (auto& c : prog.calls)
    for (auto& s : c.stmts)
      if (s.lhs->kind == ExprKind::ArrayRef && !s.lhs->array.local) out[s.lhs->array.index] = true;
  return out;
}

Function programFunction(const Program& prog, GlobalNames& g,
                         const std::vector<std::vector<ExprPtr>>& args, const FusedCalls& fused) {
  Function f;
  f.name = "tessel_program";
  f.linkage = Linkage::Internal;
  f.result = CType::Int32;
  f.comment =
      "The program: device buffers for the global arrays, its calls and iterate loops in\n"
      "textual order, the results copied back. Returns the host's error status (the device's\n"
      "is collected by the runtime).";
  lir::Param rt;
  rt.name = gpu::kRuntimeVar;
  rt.opaqueType = gpu::kRuntimeType;
  f.params = programTableParams();
  f.params.insert(f.params.begin(), rt);
  // A table the program does not use is left unnamed (no unused-parameter warning).
  if (prog.arrays.empty()) f.params[1] = {"/*arrays: none*/", {}, {}, {}, {}, "void* const*"};
  if (prog.scalars.empty()) f.params[2] = {"/*scalars: none*/", {}, {}, {}, {}, "const double*"};
  if (prog.params.empty()) f.params[3] = {"/*params: none*/", {}, {}, {}, {}, "const int64_t*"};
  ExprPtr rtv = var(gpu::kRuntimeVar, ScalarType::Int);
  std::vector<StmtPtr> b = {resetStatus()};
  for (size_t p = 0; p < prog.params.size(); ++p)
    b.push_back(localDecl(CType::Int64, g.params[p],
                          load("params", intLit(static_cast<int64_t>(p)), ScalarType::Int)));
  // The scalars are declared once the rest is built: those no call uses are left out (no
  // unused-variable warning for a scalar argument no statement reads). The parameters stay:
  // pass narrow-indices tests them all.
  const size_t declsAt = b.size();
  std::vector<bool> out = copiedOut(prog);
  b.push_back(
      comment("Device buffers: copyin and constant arrays start with the host's values, the others "
              "with zeros."));
  for (size_t a = 0; a < prog.arrays.size(); ++a) {
    const ArrayDecl& d = prog.arrays[a];
    ExprPtr n = intLit(1);
    for (auto& e : d.extents) n = indexMul(n, paramsToVars(e, g));
    b.push_back(alloc(ctypeOf(d.type), g.arrays[a], n));
    ExprPtr host = load("arrays", intLit(static_cast<int64_t>(a)), ScalarType::Int);
    ExprPtr dev = var(g.arrays[a], d.type);
    if (d.data.copyin || d.data.constant)
      b.push_back(callFn("tessel_copy_in", {rtv, dev, host}));
    else
      b.push_back(callFn("tessel_zero", {rtv, dev}));
    if (!g.shadows[a].empty()) {
      b.push_back(
          comment(fmt::format("The second buffer of '{}' (overlapped kernels write it).", d.name)));
      b.push_back(alloc(ctypeOf(d.type), g.shadows[a], n));
      b.push_back(callFn("tessel_zero", {rtv, var(g.shadows[a], d.type)}));
    }
  }
  if (!g.localBufferPool.empty())
    b.push_back(comment(
        "The calls' local arrays and per-point local scalars: allocated once for the run (none "
        "inside\na loop replayed as a graph), shared by calls of one type and size (they run one "
        "after the\nother); each call clears or fills its own."));
  for (const GlobalNames::LocalBuffer& lb : g.localBufferPool)
    b.push_back(alloc(lb.type, lb.name, paramsToVars(lb.count, g)));
  b.push_back(comment(""));
  for (auto& s : lowerExec(prog, prog.body, g, args, fused, true)) b.push_back(s);
  b.push_back(comment(""));
  b.push_back(comment("Results back to the host."));
  for (size_t a = 0; a < prog.arrays.size(); ++a)
    if (out[a])
      b.push_back(callFn("tessel_copy_out",
                         {rtv, load("arrays", intLit(static_cast<int64_t>(a)), ScalarType::Int),
                          var(g.arrays[a], prog.arrays[a].type)}));
  b.push_back(returnStatus());
  const std::set<std::string> used = namesUsed(b);
  std::vector<StmtPtr> decls;
  for (size_t s = 0; s < prog.scalars.size(); ++s) {
    if (!used.count(g.scalars[s])) {
      decls.push_back(comment(
          fmt::format("Scalar '{}' (scalars[{}]): no call uses it.", prog.scalars[s].name, s)));
      continue;
    }
    ScalarType t = prog.scalars[s].type;
    ExprPtr v = load("scalars", intLit(static_cast<int64_t>(s)), ScalarType::Double);
    decls.push_back(
        localDecl(valueType(t), g.scalars[s], t == ScalarType::Double ? v : cast(t, v)));
  }
  const std::set<std::string> tables = namesUsed(decls);
  if (!prog.scalars.empty() && !tables.count("scalars"))
    f.params[2] = {"/*scalars: none used*/", {}, {}, {}, {}, "const double*"};
  b.insert(b.begin() + static_cast<std::ptrdiff_t>(declsAt), decls.begin(), decls.end());
  f.body = block(std::move(b));
  return f;
}

}  // namespace

GpuProgram buildKernels(const Program& prog, const ResolvedSchedule& resolved) {
  if (resolved.grids.size() != prog.stencils.size())
    throw std::invalid_argument(
        fmt::format("a schedule resolved for {} stencils, not the program's {}",
                    resolved.grids.size(), prog.stencils.size()));
  if (resolved.staging.size() != prog.calls.size())
    throw std::invalid_argument(
        fmt::format("a schedule resolved for {} calls, not the program's {}",
                    resolved.staging.size(), prog.calls.size()));
  for (const GridShape& grid : resolved.grids)
    if (grid.iters.size() + (grid.stream >= 0 ? 1 : 0) != static_cast<size_t>(prog.dims()))
      throw std::invalid_argument(fmt::format(
          "a schedule resolved for a program of other dimensions than this one's {}", prog.dims()));
  GpuProgram out;
  out.notes = resolved.notes;
  const std::vector<GridShape>& grids = resolved.grids;
  const std::vector<FusionGroup>& groups = resolved.groups;
  GlobalNames g;
  for (const Dialect& d : {gpuHostDialect(), cudaDialect(), openclDialect()}) {
    for (auto& w : d.reservedWords) g.namer.reserve(w);
    for (auto& w : d.mathNames()) g.namer.reserve(w);
    g.namer.reserve(d.statusName);
  }
  for (auto& w : gpuHostRuntimeNames()) g.namer.reserve(w);
  // Macros and API names of the OpenCL, CUDA and C headers, and the runtime's own.
  for (auto* p : {"CL_", "cl_", "CUDA", "CU_", "cuda", "FLT_", "DBL_", "M_", "tessel_", "kTessel"})
    g.namer.reservePrefix(p);
  for (auto* w : {"arrays", "scalars", "params", "tessel_program", "tessel_ipow", "tessel_idiv",
                  "tessel_imod", "tessel_fail", "tessel_toint_f", "tessel_toint_d",
                  gpu::kRuntimeVar, gpu::kDeviceStatusParam})
    g.namer.reserve(w);
  for (size_t c = 0; c < prog.calls.size(); ++c)
    g.callFns.push_back(g.namer.take(fmt::format("call{}_{}", c, prog.calls[c].name)));
  for (auto& a : prog.arrays) g.arrays.push_back(g.namer.take(a.name));
  for (auto& s : prog.scalars) g.scalars.push_back(g.namer.take(s.name));
  for (auto& p : prog.params) g.params.push_back(g.namer.take(p.name));
  for (auto& it : prog.iterators) g.iters.push_back(g.namer.take(it.name));

  // The per-statement kernels of every call that runs unfused.
  const std::vector<bool> ordinary = gpu::runsPerStatement(prog, groups);
  g.localBuffers.assign(prog.calls.size(), {});
  g.localScalarBuffers.assign(prog.calls.size(), {});
  std::vector<std::vector<ExprPtr>> args(prog.calls.size());
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    if (!ordinary[c]) continue;
    const GridShape grid = grids.at(prog.calls[c].stencil).perStatement();
    gpu::CallSchedule s{grid, resolved.staging.at(c), resolved.regions.at(c)};
    out.host.functions.push_back(gpu::lowerCall(prog, static_cast<int>(c), g, s, out, args[c]));
  }

  FusedCalls fused = gpu::lowerFusedGroups(prog, resolved, g, out);
  out.host.functions.push_back(programFunction(prog, g, args, fused));
  return out;
}

}  // namespace tessel
