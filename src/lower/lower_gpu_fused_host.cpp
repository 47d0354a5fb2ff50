// The host function of a fused variant: it evaluates the fused calls' initialised locals and
// their statements' regions, launches the kernel (tiled or streamed) over blocks covering the
// written arrays, and swaps each written array with its second buffer (paper 001, Algorithm 5).
// Also lowerFused, the entry point (lower_gpu_internal.h), and the host code that runs a fused
// group's time steps: floor(S/T) fused kernels, then the remaining steps per statement.
#include <algorithm>
#include <iterator>
#include <numeric>

#include "ir/loop_ir_walk.h"
#include "lower/lower_gpu_fused.h"

namespace tessel::gpu {

namespace fused {

namespace {

class FusedHost {
 public:
  FusedHost(FusedContext& c, GpuProgram& out) : c_(c), out_(out) {}

  Function build();
  /// What tessel_program passes to the host function.
  std::vector<ExprPtr> callArgs() const { return hostArgs(c_, uses_.host); }

 private:
  FusedContext& c_;
  GpuProgram& out_;
  FusedUses uses_;
  FusedExprs x_{c_, uses_};

  /// Initialised locals of each call, evaluated on the host as the per-statement lowering does.
  void declareInits(std::vector<StmtPtr>& body);
  /// The statements' regions (language.md 5.4-5.6), evaluated by the host.
  void declareBounds(std::vector<StmtPtr>& body);
  /// Blocks: tiles over the union of the written arrays' extents.
  std::vector<ExprPtr> tiledGrid(std::vector<StmtPtr>& body);
  /// Streamed: tiles over the written arrays' extents in the plane, chunks along the stream.
  std::vector<ExprPtr> streamGrid(std::vector<StmtPtr>& body);
  /// The launch of kernel `k` over `grid`, then the swaps.
  std::vector<StmtPtr> launchAndSwap(const Function& k, const std::vector<ExprPtr>& grid);
};

void FusedHost::declareInits(std::vector<StmtPtr>& body) {
  std::set<int> calls(c_.v.seq.calls.begin(), c_.v.seq.calls.end());
  for (int c : calls) {
    const CallInst& ci = c_.prog.calls[c];
    for (size_t k = 0; k < ci.inits.size(); ++k) {
      std::string n = c_.names.take(ci.inits[k].name);
      c_.inits[{c, static_cast<int>(k)}] = n;
      ExprPtr v = x_.host(ci.inits[k].value, c);
      if (v->type != ci.inits[k].type || ci.inits[k].type == ScalarType::Int)
        v = cast(ci.inits[k].type, v);
      body.push_back(localDecl(valueType(ci.inits[k].type), n, v));
    }
  }
}

void FusedHost::declareBounds(std::vector<StmtPtr>& body) {
  std::set<int> calls(c_.v.seq.calls.begin(), c_.v.seq.calls.end());
  const std::vector<std::string>& iters = c_.g.iters;
  for (int c : calls) {
    CallRegions regs = analyzeRegions(c_.prog, c_.prog.calls[c]);
    for (size_t k = 0; k < regs.stmts.size(); ++k) {
      const StmtRegion& r = regs.stmts[k];
      if (!r.conditions.empty()) internal("a fused statement with region conditions");
      auto& b = c_.bounds[{c, static_cast<int>(k)}];
      for (int d = 0; d < c_.dims; ++d) {
        std::string lo = c_.names.take(fmt::format("lo{}_{}_{}", c, k, iters[d]));
        std::string hi = c_.names.take(fmt::format("hi{}_{}_{}", c, k, iters[d]));
        b.push_back({lo, hi});
      }
    }
    auto bound = [&](const SymBound& sb) {
      ExprPtr acc;
      for (auto& t : sb.terms) {
        ExprPtr x = t.base ? indexAddConst(x_.host(t.base, c), t.c) : intLit(t.c);
        acc = !acc ? x : sb.lower ? indexMax(acc, x) : indexMin(acc, x);
      }
      return acc;
    };
    for (size_t k = 0; k < regs.stmts.size(); ++k) {
      const StmtRegion& r = regs.stmts[k];
      auto& b = c_.bounds[{c, static_cast<int>(k)}];
      for (int d = 0; d < c_.dims; ++d) {
        body.push_back(localDecl(CType::Int64, b[d].first, bound(r.iter[d].lo)));
        body.push_back(localDecl(CType::Int64, b[d].second, bound(r.iter[d].hi)));
      }
    }
  }
}

std::vector<ExprPtr> FusedHost::tiledGrid(std::vector<StmtPtr>& body) {
  std::vector<ExprPtr> grid(static_cast<size_t>(c_.dims));
  for (int gd = 0; gd < c_.dims; ++gd) {
    int d = c_.dims - 1 - gd;
    ExprPtr ext;
    for (int a : c_.written) ext = ext ? indexMax(ext, x_.extent(a, d)) : x_.extent(a, d);
    std::string n = c_.names.take(std::string("blocks_") + "xyz"[gd]);
    int64_t t = c_.v.tile[static_cast<size_t>(d)];
    body.push_back(
        localDecl(CType::Int64, n, binary(Op::Div, indexAddConst(ext, t - 1), intLit(t))));
    grid[static_cast<size_t>(gd)] = ivar(n);
  }
  return grid;
}

std::vector<ExprPtr> FusedHost::streamGrid(std::vector<StmtPtr>& body) {
  std::vector<ExprPtr> grid;
  std::vector<int> dims = inPlane(c_);
  for (size_t n = dims.size(); n-- > 0;) {
    int d = dims[n];
    ExprPtr ext;
    for (int a : c_.written) ext = ext ? indexMax(ext, x_.extent(a, d)) : x_.extent(a, d);
    std::string name = c_.names.take(std::string("blocks_") + "xyz"[grid.size()]);
    int64_t t = c_.v.tile[static_cast<size_t>(d)];
    body.push_back(
        localDecl(CType::Int64, name, binary(Op::Div, indexAddConst(ext, t - 1), intLit(t))));
    grid.push_back(ivar(name));
  }
  std::string name = c_.names.take(std::string("blocks_") + "xyz"[grid.size()]);
  int chunk = c_.chunk;
  ExprPtr chunks =
      chunk > 0 ? binary(Op::Div, indexAddConst(streamExtent(c_, x_), chunk - 1), intLit(chunk))
                : intLit(1);
  body.push_back(localDecl(CType::Int64, name, chunks));
  grid.push_back(ivar(name));
  return grid;
}

std::vector<StmtPtr> FusedHost::launchAndSwap(const Function& k, const std::vector<ExprPtr>& grid) {
  std::vector<ExprPtr> blockExt;
  for (size_t gd = 0; gd < grid.size(); ++gd) blockExt.push_back(intLit(c_.block[gd]));
  std::vector<lir::Param> ps(k.params.begin(), k.params.end() - 1);
  std::vector<ExprPtr> args = argsNamingParams(ps);
  int id = static_cast<int>(out_.device.functions.size());
  std::vector<StmtPtr> run = {
      launch(c_.kernelName, id, grid, blockExt, ps, args),
      comment("The new values are in the second buffers: swap (paper 001, Algorithm 5).")};
  for (int a : c_.written)
    run.push_back(callFn("tessel_swap", {var(c_.g.arrays[a], c_.prog.arrays[a].type),
                                         var(c_.g.shadows[a], c_.prog.arrays[a].type)}));
  return run;
}

Function FusedHost::build() {
  // The arrays it writes back: a stage's global array that is a result (one no later kernel
  // reads stays on chip: analysis/dead_stores.h).
  const std::vector<int>& results = c_.a.results;
  for (auto& s : c_.a.stages)
    if (s.writes.kind == TileValue::Kind::Global && !s.region.empty &&
        std::find(results.begin(), results.end(), s.writes.index) != results.end())
      c_.written.insert(s.writes.index);
  std::vector<StmtPtr> body;
  declareInits(body);
  declareBounds(body);
  for (int a : c_.written)
    if (c_.g.shadows.at(static_cast<size_t>(a)).empty()) internal("no second buffer");
  Function k = c_.sd >= 0 ? streamedKernel(c_, uses_, x_, out_) : tiledKernel(c_, uses_, x_, out_);
  std::vector<ExprPtr> grid = c_.sd >= 0 ? streamGrid(body) : tiledGrid(body);
  std::vector<StmtPtr> run = launchAndSwap(k, grid);
  ExprPtr any;  // an array with no elements: nothing to compute
  for (auto& gx : grid) {
    ExprPtr pos = binary(Op::Gt, gx, intLit(0));
    any = any ? binary(Op::And, any, pos) : pos;
  }
  body.push_back(ifThen(any, run));
  // The regions of a statement no stage computes (one whose value nothing reads) are left out.
  std::set<std::string> bounds;
  for (const auto& [stmt, b] : c_.bounds)
    for (const auto& [lo, hi] : b) bounds.insert({lo, hi});
  auto isBound = [&](const StmtPtr& st) {
    return st->kind == StmtKind::LocalDecl && bounds.count(st->name);
  };
  std::vector<StmtPtr> others;
  std::copy_if(body.begin(), body.end(), std::back_inserter(others),
               [&](const StmtPtr& st) { return !isBound(st); });
  const std::set<std::string> used = namesUsed(others);
  std::erase_if(body, [&](const StmtPtr& st) { return isBound(st) && !used.count(st->name); });
  out_.device.functions.push_back(std::move(k));

  Function f;
  f.name = c_.hostName;
  f.linkage = Linkage::Internal;
  f.comment = out_.device.functions.back().comment;
  uses_.host.arrays.insert(c_.written.begin(), c_.written.end());
  f.params = hostParams(c_, uses_.host);
  f.body = block(std::move(body));
  return f;
}

}  // namespace

}  // namespace fused

lir::Function lowerFused(const Program& prog, const FusedVariant& v, const std::string& name,
                         GlobalNames& g, const GridShape& grid, GpuProgram& out,
                         std::vector<ExprPtr>& args) {
  const std::array<int, 3>& block = grid.block;
  const int chunk = grid.chunk;
  std::string kernelName = g.namer.take(name);
  std::string hostName = g.namer.take(name + "_run");
  int dims = prog.dims(), sd = v.analysis.spec.streamDim;
  std::array<int, 3> b = block;
  // Streamed: the grid covers the other dimensions; the next grid dimension counts chunks.
  if (sd >= 0)
    for (size_t gd = static_cast<size_t>(dims - 1); gd < 3; ++gd) b[gd] = 1;
  fused::FusedContext c{prog,
                        v,
                        v.analysis,
                        g,
                        b,
                        dims,
                        sd,
                        chunk,
                        grid.prefetch,
                        grid.unroll,
                        grid.cyclic,
                        kernelName,
                        hostName,
                        g.namer.inner(),
                        {},
                        {},
                        {}};
  fused::FusedHost host(c, out);
  lir::Function f = host.build();
  args = host.callArgs();
  return f;
}

using namespace lir;

std::vector<bool> runsPerStatement(const Program& prog, const std::vector<FusionGroup>& groups) {
  std::vector<bool> ordinary(prog.calls.size(), true);
  for (auto& grp : groups)
    if (grp.fused && !grp.iterate)
      for (size_t k = 0; k + grp.timeTile <= grp.body.size(); k += grp.timeTile)
        for (size_t j = k; j < k + grp.timeTile; ++j) ordinary[grp.body[j]] = false;
  return ordinary;
}

FusedCalls lowerFusedGroups(const Program& prog, const ResolvedSchedule& resolved, GlobalNames& g,
                            GpuProgram& out) {
  const std::vector<GridShape>& grids = resolved.grids;
  const std::vector<FusionGroup>& groups = resolved.groups;
  FusedCalls fused;
  g.shadows.assign(prog.arrays.size(), "");
  for (auto& grp : groups) {
    // Stream's statement fusion is the fused kernel of one step: named as the option.
    const char* family = grp.streamDim < 0   ? "overlapped"
                         : grp.timeTile <= 1 ? "stream --fuse-statements"
                                             : "stream + time_tile";
    if (!grp.fused) {
      out.notes.push_back(fmt::format("stencil '{}': {}: calls {} run per statement: {}",
                                      prog.stencils[grp.stencil].name, family,
                                      fmt::join(grp.body, ", "), grp.note));
      continue;
    }
    std::vector<const std::string*> said = {&grp.remark};
    for (const std::string& r : grp.remarks) said.push_back(&r);
    for (const std::string* r : said)
      if (!r->empty())
        out.notes.push_back(fmt::format("stencil '{}': {}: calls {}: {}",
                                        prog.stencils[grp.stencil].name, family,
                                        fmt::join(grp.body, ", "), *r));
    for (auto& v : grp.variants)
      for (int r : v.analysis.results)
        if (g.shadows[r].empty()) g.shadows[r] = g.namer.take(prog.arrays[r].name + "_next");
  }
  for (size_t k = 0; k < groups.size(); ++k) {
    const FusionGroup& grp = groups[k];
    if (!grp.fused) continue;
    if (grp.iterate)
      fused.loops[grp.iterate] = &grp;
    else
      fused.runs[{grp.parent, grp.first}] = &grp;
    for (auto& v : grp.variants) {
      std::vector<ExprPtr> a;
      Function f = gpu::lowerFused(
          prog, v, fmt::format("fused{}_p{}_{}", k, v.phase, prog.calls[v.seq.calls[0]].name), g,
          grids.at(grp.stencil), out, a);
      fused.fns[&grp][v.phase] = {f.name, a};
      out.host.functions.push_back(std::move(f));
    }
  }
  return fused;
}

void runFused(const Program& prog, const FusionGroup& grp, GlobalNames& g,
              const std::vector<std::vector<ExprPtr>>& args, const FusedCalls& fused,
              std::vector<StmtPtr>& out) {
  static const std::map<int, std::pair<std::string, std::vector<ExprPtr>>> kNone;
  auto found = fused.fns.find(&grp);
  const auto& fns = found == fused.fns.end() ? kNone : found->second;  // none: T > k
  int n = static_cast<int>(grp.body.size()), t = grp.timeTile, p = 0;
  for (; p + t <= n; p += t) {
    const auto& [fn, a] = fns.at(p);
    out.push_back(
        comment(fmt::format("calls {}..{} fused ({}, {} step{})", grp.body[p], grp.body[p + t - 1],
                            grp.streamDim >= 0 ? "streamed" : "overlapped", t, t == 1 ? "" : "s")));
    out.push_back(callFn(fn, a));
  }
  for (; p < n; ++p) {
    const CallInst& c = prog.calls.at(static_cast<size_t>(grp.body[p]));
    out.push_back(comment(fmt::format("{}({}): a remaining step, per statement", c.name,
                                      fmt::join(c.actualNames, ", "))));
    out.push_back(callOf(grp.body[p], g, args));
  }
}

StmtPtr loopFused(const Program& prog, const ExecNode& loop, const FusionGroup& grp, GlobalNames& g,
                  const std::vector<std::vector<ExprPtr>>& args, const FusedCalls& fused,
                  bool graph) {
  auto iters = prog.iteratorNames();
  const auto& fns = fused.fns.at(&grp);
  int64_t n = static_cast<int64_t>(grp.body.size()), t = grp.timeTile;
  std::string steps = g.namer.take("steps"), full = g.namer.take("fused_kernels");
  std::string k = g.namer.take("t"), s = g.namer.take("step"), ph = g.namer.take("phase");
  ExprPtr iterations = indexMax(
      intLit(0), indexAddConst(indexSub(paramsToVars(loop.hi, g), paramsToVars(loop.lo, g)), 1));
  std::vector<StmtPtr> b = {
      comment(fmt::format("iterate {}:{} (inclusive): {} call{} per iteration, fused {} at a time "
                          "({})",
                          toString(loop.lo, iters), toString(loop.hi, iters), n, n == 1 ? "" : "s",
                          t, grp.streamDim >= 0 ? "streamed" : "overlapped")),
      localDecl(CType::Int64, steps, indexMul(intLit(n), iterations)),
      localDecl(CType::Int64, full, binary(Op::Div, var(steps, ScalarType::Int), intLit(t)))};
  auto byPhase = [&](ExprPtr phase, auto&& each) {
    std::vector<StmtPtr> body;
    for (int64_t p = 0; p < n; ++p) {
      std::vector<StmtPtr> c = each(static_cast<int>(p));
      if (c.empty()) continue;
      body.push_back(ifThen(binary(Op::Eq, phase, intLit(p)), c));
    }
    return body;
  };
  std::vector<StmtPtr> fusedBody;
  if (fns.size() == 1) {
    fusedBody.push_back(callFn(fns.begin()->second.first, fns.begin()->second.second));
  } else {
    fusedBody.push_back(
        localDecl(CType::Int64, ph,
                  binary(Op::Mod, indexMul(var(k, ScalarType::Int), intLit(t)), intLit(n))));
    for (auto& x : byPhase(var(ph, ScalarType::Int), [&](int p) -> std::vector<StmtPtr> {
           auto it = fns.find(p);
           if (it == fns.end()) return {};
           return {callFn(it->second.first, it->second.second)};
         }))
      fusedBody.push_back(x);
  }
  ExprPtr last = indexAddConst(var(full, ScalarType::Int), -1);
  if (graph) {
    // The variants repeat after n / gcd(n, T) kernels, the swapped buffers after 2.
    const int64_t phases = fns.size() == 1 ? 1 : n / std::gcd(n, t);
    for (auto& x : graphLoop(g, k, intLit(0), last, 2 * phases, fusedBody)) b.push_back(x);
  } else {
    b.push_back(forLoop(k, intLit(0), last, LoopKind::Serial, fusedBody));
  }
  std::vector<StmtPtr> rest = {
      localDecl(CType::Int64, ph, binary(Op::Mod, var(s, ScalarType::Int), intLit(n)))};
  for (auto& x : byPhase(var(ph, ScalarType::Int), [&](int p) -> std::vector<StmtPtr> {
         return {callOf(grp.body[static_cast<size_t>(p)], g, args)};
       }))
    rest.push_back(x);
  b.push_back(
      comment(fmt::format("The steps left after the kernels fusing {} each (none where "
                          "the step count is a multiple of {}), one kernel per "
                          "statement.",
                          t, t)));
  b.push_back(forLoop(s, indexMul(var(full, ScalarType::Int), intLit(t)),
                      indexAddConst(var(steps, ScalarType::Int), -1), LoopKind::Serial, rest));
  return block(std::move(b));
}

}  // namespace tessel::gpu
