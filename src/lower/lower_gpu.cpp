// One call's GPU lowering (lower_gpu.h describes the whole scheme): the host function that
// declares the call's locals, evaluates each statement's region and launches the statement's
// kernel (built by lower_gpu_stmt_kernel.h); and the small helpers the GPU lowering's parts share.
#include "lower/lower_gpu.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "analysis/regions.h"
#include "analysis/stmt_fusion.h"
#include "lower/lower_gpu_internal.h"
#include "lower/lower_gpu_stmt_kernel.h"
#include "lower/namer.h"

namespace tessel {

using namespace lir;  // the loop IR's types and factories

namespace gpu {

[[noreturn]] void internal(const std::string& what) {
  throw std::logic_error("internal error: GPU lowering: " + what);
}

ExprPtr pointInBlock(const GridShape& grid, size_t gd, int copy) {
  ExprPtr l = intrinsic(Intrinsic::LocalId, static_cast<int>(gd));
  const int e = grid.unroll[gd], u = grid.copyAlong(copy, gd);
  if (e <= 1) return l;
  return grid.cyclic ? indexAddConst(l, static_cast<int64_t>(u) * grid.block[gd])
                     : indexAddConst(indexMul(l, intLit(e)), u);
}

lir::Param runtimeParam() {
  lir::Param rt;
  rt.name = kRuntimeVar;
  rt.opaqueType = kRuntimeType;
  return rt;
}

lir::Param bufferParam(const std::string& name) {
  lir::Param p;
  p.name = name;
  p.opaqueType = kBufferType;
  return p;
}

namespace {

/// The kernel's comment: the call, the statement and its region (from `heading`), the thread
/// mapping.
std::string kernelText(const Program& prog, const CallInst& call, int index, size_t k,
                       const GridShape& grid, const std::string& heading) {
  auto iters = prog.iteratorNames();
  std::string kc = fmt::format("Call {} ({}), statement {}: {}", index, call.name, k + 1,
                               statementText(prog, call, call.stmts[k]));
  kc += "\n" + heading.substr(heading.find("\nRegion: ") + 1);
  std::string mapping;
  for (size_t gd = 0; gd < grid.iters.size(); ++gd)
    mapping += fmt::format("{}{} -> {}", gd ? ", " : "", iters[grid.iters[gd]], "xyz"[gd]);
  switch (grid.family) {
    case ScheduleFamily::Global:
    case ScheduleFamily::GlobalStream:
    case ScheduleFamily::Overlapped:  // not here: GridShape::perStatement() makes it `global`
      kc += "\nOne thread per point: " + mapping;
      if (grid.stream >= 0) kc += fmt::format("; each thread loops over {}", iters[grid.stream]);
      break;
    case ScheduleFamily::Shared: {
      std::string tile;
      for (size_t gd = 0; gd < grid.iters.size(); ++gd)
        tile += fmt::format("{}{}", gd ? "x" : "", grid.tile(gd));
      kc += fmt::format("\nShared-memory tiling: {}; a block computes a {} tile", mapping, tile);
      break;
    }
    case ScheduleFamily::Stream:
      kc += fmt::format("\nStreaming along {} ({}): {}; a block sweeps {}", iters[grid.stream],
                        grid.chunk == 0 ? "serial" : "concurrent", mapping,
                        grid.chunk == 0 ? std::string("every plane")
                                        : fmt::format("a chunk of {} planes", grid.chunk));
      break;
  }
  return kc;
}

/// The launch's grid and block extents: per grid dimension, the region's extent rounded up to
/// whole tiles (declared in `then`), and for the stream family the chunks of planes.
void launchShape(const GridShape& grid, const std::vector<std::string>& lo,
                 const std::vector<std::string>& hi, Namer& scope, std::vector<StmtPtr>& then,
                 std::vector<ExprPtr>& gridExt, std::vector<ExprPtr>& blockExt) {
  for (size_t gd = 0; gd < grid.iters.size(); ++gd) {
    int it = grid.iters[gd], b = grid.tile(gd);
    ExprPtr extent =
        indexAddConst(indexSub(var(hi[it], ScalarType::Int), var(lo[it], ScalarType::Int)), b);
    std::string n = scope.take(std::string("blocks_") + "xyz"[gd]);
    then.push_back(
        localDecl(CType::Int64, n, b == 1 ? extent : binary(Op::Div, extent, intLit(b))));
    gridExt.push_back(var(n, ScalarType::Int));
    blockExt.push_back(intLit(grid.block[gd]));
  }
  if (grid.family == ScheduleFamily::Stream) {
    // One more grid dimension: the chunks of planes along the streamed iterator.
    int sd = grid.stream;
    ExprPtr planes = indexAddConst(
        indexSub(var(hi[sd], ScalarType::Int), var(lo[sd], ScalarType::Int)), grid.chunk);
    ExprPtr chunks = grid.chunk == 0   ? intLit(1)
                     : grid.chunk == 1 ? planes
                                       : binary(Op::Div, planes, intLit(grid.chunk));
    std::string n = scope.take("chunks");
    then.push_back(localDecl(CType::Int64, n, chunks));
    gridExt.push_back(var(n, ScalarType::Int));
    blockExt.push_back(intLit(1));
  }
}

/// The launch description of the kernel of statement k of call `index`.
GpuKernelInfo kernelInfo(GpuKernelInfo info, const std::string& name, int index, size_t k,
                         const GridShape& grid) {
  info.name = name;
  info.call = index;
  info.stmt = static_cast<int>(k);
  // As applied (an overlapped stencil's per-statement kernels are `global` ones: perStatement).
  info.family = grid.family;
  info.gridIters = grid.iters;
  info.block = grid.block;
  info.streamIter = grid.stream;
  info.chunk = grid.chunk;
  info.unroll = grid.unroll;
  info.cyclic = grid.cyclic;
  for (size_t gd = 0; gd < grid.iters.size() && gd < 3; ++gd) info.tilePoints[gd] = grid.tile(gd);
  if (grid.haloLo != std::array<int, 3>{0, 0, 0} || grid.haloHi != std::array<int, 3>{0, 0, 0}) {
    std::vector<int64_t> b, t;
    for (size_t gd = 0; gd < grid.iters.size(); ++gd) {
      b.push_back(grid.block[gd]);
      t.push_back(grid.tile(gd));
    }
    info.perspective = fmt::format(
        "block {} for a {} output tile (a thread per input element "
        "along {})",
        fmt::join(b, "x"), fmt::join(t, "x"),
        grid.haloLo[1] + grid.haloHi[1] + grid.haloLo[2] + grid.haloHi[2] > 0
            ? "every dimension with a halo"
            : "x");
  }
  return info;
}

/// Lowers one CallInst: the host function that launches a kernel per statement
/// (lower_gpu_stmt_kernel.h builds each).
class CallGpu : public RefObserver {
 public:
  CallGpu(const Program& p, int index, GlobalNames& g, const CallSchedule& s, GpuProgram& out)
      : prog_(p),
        call_(p.calls[index]),
        index_(index),
        g_(g),
        sched_(s),
        out_(out),
        names_(g.namer.inner()) {}

  Function build();
  std::vector<ExprPtr> callArgs() const;
  /// Host code reads parameters, global scalars and initialised locals only.
  void uses(const Expr& ref) override;

 private:
  const Program& prog_;
  const CallInst& call_;
  int index_;
  GlobalNames& g_;
  const CallSchedule& sched_;
  GpuProgram& out_;
  Namer names_;  // the host function's scope; kernels reuse its names
  HostUses uses_;
  CallNames locals_;
  CallExprs x_{prog_, call_, g_, locals_, *this};

  void statement(size_t k, const StmtRegion& reg, std::vector<StmtPtr>& out);
  /// Group g of `groups` (two statements or more, `global` with statement fusion) as one kernel;
  /// false (nothing emitted) where a statement's region has a condition only the run decides.
  bool fusedStatements(const StatementGroups& groups, size_t g, const CallRegions& regions,
                       std::vector<StmtPtr>& out);
  /// Appends to `out` the block `blk` (the host's bounds) followed by the launch of kernel `f`
  /// (named `name`, launch id `id`) over the box lo..hi where `when` holds (null: always), and
  /// records the kernel (`info`; `k`: its first statement).
  void launchKernel(Function f, const std::string& name, int id, const std::vector<std::string>& lo,
                    const std::vector<std::string>& hi, Namer& scope, ExprPtr when,
                    std::vector<StmtPtr> blk, GpuKernelInfo info, size_t k,
                    std::vector<StmtPtr>& out);
};

void CallGpu::uses(const Expr& ref) {
  switch (ref.kind) {
    case ExprKind::ParamRef:
      uses_.params.insert(ref.index);
      break;
    case ExprKind::IterRef:
      internal("an iterator in host code");
    case ExprKind::ScalarRef:
      if (ref.scalarKind == ScalarKind::Local) internal("a local scalar in host code");
      if (ref.scalarKind == ScalarKind::Global) uses_.scalars.insert(ref.index);
      break;
    case ExprKind::ArrayRef:
      internal("an array access in host code");
    default:
      break;
  }
}

std::vector<ExprPtr> CallGpu::callArgs() const {
  std::vector<ExprPtr> args = {var(kRuntimeVar, ScalarType::Int)};
  for (auto& a : uses_.args(prog_, g_)) args.push_back(a);
  const std::vector<std::string>& bufs = g_.localBuffers.at(static_cast<size_t>(index_));
  for (size_t k = 0; k < bufs.size(); ++k) args.push_back(var(bufs[k], call_.localArrays[k].type));
  const std::vector<std::string>& scalars = g_.localScalarBuffers.at(static_cast<size_t>(index_));
  for (size_t s = 0; s < scalars.size(); ++s)
    if (!locals_.localScalars.at(s).empty())
      args.push_back(var(scalars[s], call_.localScalars[s].type));
  return args;
}

void CallGpu::statement(size_t k, const StmtRegion& reg, std::vector<StmtPtr>& out) {
  std::string text = statementHeading(prog_, call_, k, reg);
  out.push_back(comment(text));

  // The region's bounds, evaluated by the host; a region that is empty launches nothing.
  Namer scope = names_.inner();
  std::vector<std::string> lo, hi;
  std::vector<StmtPtr> blk;
  ExprPtr nonEmpty;
  bool never = false;
  for (size_t d = 0; d < reg.iter.size(); ++d) {
    lo.push_back(scope.take("lo_" + g_.iters[d]));
    hi.push_back(scope.take("hi_" + g_.iters[d]));
    ExprPtr l = x_.bound(reg.iter[d].lo), h = x_.bound(reg.iter[d].hi);
    if (l->kind == ExprKind::IntLit && h->kind == ExprKind::IntLit && l->ival > h->ival)
      never = true;
    blk.push_back(localDecl(CType::Int64, lo[d], l));
    blk.push_back(localDecl(CType::Int64, hi[d], h));
    nonEmpty =
        allOf(nonEmpty, binary(Op::Le, var(lo[d], ScalarType::Int), var(hi[d], ScalarType::Int)));
  }
  // Conditions on fixed planes: decided here when both sides are constants, else at run time.
  for (auto& c : reg.conditions) {
    ExprPtr a = x_.bound(c.a), b = x_.bound(c.b);
    if (a->kind == ExprKind::IntLit && b->kind == ExprKind::IntLit) {
      never = never || a->ival > b->ival;
      continue;
    }
    nonEmpty = allOf(nonEmpty, binary(Op::Le, a, b));
  }
  if (never) {
    out.push_back(comment("Never runs: its region is empty."));
    return;
  }

  int id = static_cast<int>(out_.kernels.size());
  std::string name = g_.namer.take(fmt::format("call{}_{}_s{}", index_, call_.name, k));
  GpuKernelInfo info;
  CallSite site{prog_, call_, g_, sched_.grid, sched_.staging, locals_, uses_};
  Function f =
      StmtKernel(site, lo, hi)
          .build(k, name, kernelText(prog_, call_, index_, k, sched_.grid, text), scope, info);

  launchKernel(std::move(f), name, id, lo, hi, scope, nonEmpty, std::move(blk), info, k, out);
}

void CallGpu::launchKernel(Function f, const std::string& name, int id,
                           const std::vector<std::string>& lo, const std::vector<std::string>& hi,
                           Namer& scope, ExprPtr when, std::vector<StmtPtr> blk, GpuKernelInfo info,
                           size_t k, std::vector<StmtPtr>& out) {
  std::vector<ExprPtr> gridExt, blockExt, args;
  std::vector<StmtPtr> then;
  launchShape(sched_.grid, lo, hi, scope, then, gridExt, blockExt);
  std::vector<lir::Param> ps(f.params.begin(), f.params.end() - 1);  // the runtime adds the status
  for (auto& a : argsNamingParams(ps)) args.push_back(a);
  then.push_back(launch(name, id, gridExt, blockExt, ps, args));
  blk.push_back(when ? ifThen(when, then) : block(then));
  out.push_back(block(std::move(blk)));
  out_.kernels.push_back(kernelInfo(info, name, index_, k, sched_.grid));
  out_.device.functions.push_back(std::move(f));
}

bool CallGpu::fusedStatements(const StatementGroups& groups, size_t g, const CallRegions& regions,
                              std::vector<StmtPtr>& out) {
  // The statements that can run; a condition known only at run time keeps the group apart.
  const auto run = fusedStatementsThatRun(x_, regions, groups.groups.at(g));
  if (!run) return false;
  const std::vector<size_t>& ks = *run;
  std::vector<std::string> regs(call_.localScalars.size());
  std::vector<std::string> held;
  for (size_t s = 0; s < regs.size(); ++s)
    if (groups.scalarGroup[s] == static_cast<int>(g)) {
      regs[s] = names_.take("reg_" + call_.localScalars[s].name);
      held.push_back(call_.localScalars[s].name);
    }
  std::vector<std::string> nums;
  for (size_t k : groups.groups.at(g)) nums.push_back(std::to_string(k + 1));
  std::string text = fmt::format(
      "Statements {} fused into one kernel (fuse_statements, analysis/stmt_fusion.h): each "
      "thread runs them in order at its point, each where its own region holds; no thread "
      "touches an element another thread writes.{}",
      fmt::join(nums, ", "),
      held.empty() ? std::string()
                   : fmt::format(" Local scalars in registers: {}.", fmt::join(held, ", ")));
  out.push_back(comment(text));
  if (ks.empty()) {
    out.push_back(comment("Never runs: every region is empty."));
    return true;
  }
  // Per statement its region's bounds; the kernel's grid covers their bounding box.
  Namer scope = names_.inner();
  std::vector<StmtPtr> blk;
  const GroupBounds b = declareGroupBounds(x_, g_, regions, ks, scope, blk);
  int id = static_cast<int>(out_.kernels.size());
  std::string name =
      g_.namer.take(fmt::format("call{}_{}_s{}_s{}", index_, call_.name, ks.front(), ks.back()));
  GpuKernelInfo info;
  CallSite site{prog_, call_, g_, sched_.grid, sched_.staging, locals_, uses_};
  std::string mapping;
  for (size_t gd = 0; gd < sched_.grid.iters.size(); ++gd)
    mapping += fmt::format("{}{} -> {}", gd ? ", " : "",
                           g_.iters[static_cast<size_t>(sched_.grid.iters[gd])], "xyz"[gd]);
  Function f = StmtKernel(site, b.boxLo, b.boxHi)
                   .buildFused(ks, b.lo, b.hi, regs, name,
                               fmt::format("Call {} ({}): {}\nOne thread per point: {}", index_,
                                           call_.name, text, mapping),
                               info);
  launchKernel(std::move(f), name, id, b.boxLo, b.boxHi, scope, b.any, std::move(blk), info,
               ks.front(), out);
  return true;
}

Function CallGpu::build() {
  Function f = callFunction(call_, index_, g_.callFns[index_]);
  for (auto& la : call_.localArrays)
    if (la.scratchOf >= 0) uses_.arrays.insert(la.scratchOf);
  const CallRegions& regions = sched_.regions;
  // Statement fusion (`global`, fuse_statements): groups of two or more share a kernel, which
  // keeps the local scalars all of whose uses it holds in registers (unless a plane condition
  // only the run decides splits the group into its statements again).
  StatementGroups groups;
  if (sched_.grid.fuseStatements && sched_.grid.family == ScheduleFamily::Global)
    groups = fuseStatements(prog_, call_);
  else
    for (size_t k = 0; k < call_.stmts.size(); ++k) groups.groups.push_back({k});
  LocalsStyle style{
      "Initialised locals: evaluated once per call, on the host.", "box_", false, true, {}};
  for (int sg : groups.scalarGroup) {
    const bool fused = sg >= 0 && groups.groups.at(static_cast<size_t>(sg)).size() > 1 &&
                       fusedStatementsThatRun(x_, regions, groups.groups[static_cast<size_t>(sg)]);
    style.inRegister.push_back(fused);
  }
  // The buffers come from tessel_program's pool (GlobalNames::poolBuffer): a local scalar's
  // covers the call-domain box, as declareLocals indexes it.
  const std::vector<std::string> iterNames = prog_.iteratorNames();
  std::map<std::string, size_t> used;
  for (const LocalArray& la : call_.localArrays) {
    ExprPtr n = intLit(1);
    for (auto& e : la.extents) n = indexMul(n, e);
    g_.localBuffers.at(static_cast<size_t>(index_))
        .push_back(g_.poolBuffer(la.name, la.type, n, iterNames, used));
  }
  ExprPtr box = intLit(1);
  for (const auto& r : call_.domain)
    box = indexMul(box, indexMax(intLit(0), indexSub(indexAddConst(r.hi, 1), r.lo)));
  for (size_t s = 0; s < call_.localScalars.size(); ++s) {
    const LocalScalar& ls = call_.localScalars[s];
    const bool buffered = style.inRegister.empty() || !style.inRegister[s];
    g_.localScalarBuffers.at(static_cast<size_t>(index_))
        .push_back(buffered ? g_.poolBuffer(ls.name, ls.type, box, iterNames, used) : "");
  }
  std::vector<StmtPtr> body = declareLocals(prog_, call_, g_, style, names_, locals_, x_);
  // A fresh local array is cleared here, as a new allocation would be.
  for (size_t k = 0; k < call_.localArrays.size(); ++k)
    if (call_.localArrays[k].scratchOf < 0)
      body.push_back(
          callFn("tessel_zero", {var(kRuntimeVar, ScalarType::Int),
                                 var(locals_.localArrays[k], call_.localArrays[k].type)}));
  size_t kernelsBefore = out_.kernels.size();
  for (size_t g = 0; g < groups.groups.size(); ++g) {
    if (!body.empty()) body.push_back(comment(""));
    if (groups.groups[g].size() > 1 && fusedStatements(groups, g, regions, body)) continue;
    for (size_t k : groups.groups[g]) statement(k, regions.stmts.at(k), body);
  }
  f.body = block(std::move(body));
  // Parameters last: lowering the body found which ones it uses.
  lir::Param rt = runtimeParam();
  // Unused by a call that clears and launches nothing (every region is empty).
  rt.maybeUnused = out_.kernels.size() == kernelsBefore && locals_.localArrays.empty();
  f.params.push_back(rt);
  for (int a : uses_.arrays) f.params.push_back(bufferParam(g_.arrays[a]));
  for (int s : uses_.scalars)
    f.params.push_back({g_.scalars[s], valueType(prog_.scalars[s].type), false});
  for (int p : uses_.params) f.params.push_back({g_.params[p], CType::Int64, false});
  // Last, as callArgs passes them: the local arrays' buffers (GlobalNames::localBuffers), then
  // the local scalars' (GlobalNames::localScalarBuffers).
  for (const std::string& n : locals_.localArrays) f.params.push_back(bufferParam(n));
  for (const std::string& n : locals_.localScalars)
    if (!n.empty()) f.params.push_back(bufferParam(n));
  return f;
}

}  // namespace

Function lowerCall(const Program& prog, int index, GlobalNames& g, const CallSchedule& s,
                   GpuProgram& out, std::vector<ExprPtr>& args) {
  CallGpu cg(prog, index, g, s, out);
  Function f = cg.build();
  args = cg.callArgs();
  return f;
}

}  // namespace gpu

}  // namespace tessel
