#include "codegen/lower_gpu.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <stdexcept>

#include "analysis/regions.h"
#include "codegen/lower_gpu_internal.h"
#include "codegen/lower_gpu_staged.h"
#include "codegen/namer.h"

namespace tessel {

using namespace lir;  // the loop IR's types and factories

namespace gpu {

[[noreturn]] void internal(const std::string& what) {
  throw std::logic_error("internal error: GPU lowering: " + what);
}

CType valueType(ScalarType t) { return t == ScalarType::Int ? CType::Int64 : ctypeOf(t); }

ExprPtr allOf(ExprPtr acc, ExprPtr x) { return acc ? binary(Op::And, acc, x) : x; }

ExprPtr zeroOf(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return boolLit(false);
    case ScalarType::Int:
      return intLit(0);
    case ScalarType::Float:
    case ScalarType::Double:
      return floatLit(0.0, t);
  }
  return intLit(0);
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

ExprPtr withArgs(const ExprPtr& e, std::vector<ExprPtr> args) {
  auto n = std::make_shared<Expr>(*e);
  n->args = std::move(args);
  return n;
}

namespace {

/// What one kernel uses: its parameters, in a fixed order.
struct KernelUse {
  std::map<ArrayId, bool> arrays;  // -> written
  std::set<int> localScalars, scalars, inits, params;
  std::set<std::string> boxVars;  // box lo/n variables the local-scalar index needs
};

/// Lowers one CallInst: a kernel per statement, and the host function that launches them.
class CallGpu : public KernelSite {
 public:
  CallGpu(const Program& p, int index, GlobalNames& g, const GridShape& grid, GpuProgram& out)
      : prog_(p),
        call_(p.calls[index]),
        index_(index),
        g_(g),
        grid_(grid),
        out_(out),
        names_(g.namer) {}

  Function build();
  std::vector<ExprPtr> callArgs() const;

  ExprPtr kernelIndex(const ExprPtr& e) override { return lower(e); }
  std::string readBuffer(ArrayId a) override {
    if (!a.local) arraysUsed_.insert(a.index);
    use_->arrays.emplace(a, false);
    return bufferOf(a);
  }

 private:
  const Program& prog_;
  const CallInst& call_;
  int index_;
  GlobalNames& g_;
  const GridShape& grid_;
  GpuProgram& out_;
  Namer names_;  // the host function's scope; kernels reuse its names
  std::set<int> arraysUsed_, scalarsUsed_, paramsUsed_;
  std::vector<std::string> localArrays_, localScalars_, inits_;
  std::vector<std::string> boxLo_, boxN_;
  KernelUse* use_ = nullptr;              // the kernel being built; null while building host code
  const StagedKernel* staged_ = nullptr;  // its staging, for a staged family

  ExprPtr lower(const ExprPtr& e);
  ExprPtr linearIndex(const Expr& ref);
  ExprPtr boxIndex();
  ExprPtr bound(const SymBound& b);
  ExprPtr count(const std::vector<ExprPtr>& extents);
  const std::string& bufferOf(ArrayId a) const {
    return a.local ? localArrays_.at(a.index) : g_.arrays.at(a.index);
  }
  ExprPtr param(int p) {
    paramsUsed_.insert(p);
    if (use_) use_->params.insert(p);
    return var(g_.params.at(p), ScalarType::Int);
  }
  void statement(size_t k, const StmtRegion& reg, std::vector<StmtPtr>& out);
  Function kernel(size_t k, const std::string& name, const std::vector<std::string>& lo,
                  const std::vector<std::string>& hi, std::string text, Namer& scope,
                  GpuKernelInfo& info);
  std::vector<lir::Param> kernelParams(const KernelUse& u, const std::vector<std::string>& lo,
                                       const std::vector<std::string>& hi) const;
};

ExprPtr CallGpu::lower(const ExprPtr& e) {
  switch (e->kind) {
    case ExprKind::ParamRef:
      return param(e->index);
    case ExprKind::IterRef:
      if (!use_) internal("an iterator in host code");
      return var(g_.iters.at(e->index), ScalarType::Int);
    case ExprKind::ScalarRef:
      switch (e->scalarKind) {
        case ScalarKind::Global:
          scalarsUsed_.insert(e->index);
          if (use_) use_->scalars.insert(e->index);
          return var(g_.scalars.at(e->index), e->type);
        case ScalarKind::Init:
          if (use_) use_->inits.insert(e->index);
          return var(inits_.at(e->index), e->type);
        case ScalarKind::Local:
          if (!use_) internal("a local scalar in host code");
          use_->localScalars.insert(e->index);
          return load(localScalars_.at(e->index), boxIndex(), e->type);
      }
      break;
    case ExprKind::ArrayRef:
      if (!use_) internal("an array access in host code");
      if (staged_)
        if (ExprPtr r = staged_->read(*e)) return r;
      if (!e->array.local) arraysUsed_.insert(e->array.index);
      use_->arrays.emplace(e->array, false);
      return load(bufferOf(e->array), linearIndex(*e), e->type);
    default: {
      if (e->args.empty()) return e;
      std::vector<ExprPtr> args;
      for (auto& a : e->args) args.push_back(lower(a));
      return withArgs(e, std::move(args));
    }
  }
  internal("unknown scalar kind");
}

// Row-major over the array's own extents: ((s0 * E1 + s1) * E2 + s2).
ExprPtr CallGpu::linearIndex(const Expr& ref) {
  const auto& ext = prog_.extents(call_, ref.array);
  if (ext.size() != ref.subs.size()) internal("subscript count of '" + ref.name + "'");
  ExprPtr acc;
  for (size_t d = 0; d < ref.subs.size(); ++d) {
    const Subscript& s = ref.subs[d];
    ExprPtr scaled = d == 0 ? intLit(0) : indexMul(acc, lower(ext[d]));
    if (!s.fixed()) scaled = indexAdd(scaled, var(g_.iters.at(s.iter), ScalarType::Int));
    acc = indexAddConst(scaled, s.offset);
  }
  return acc ? acc : intLit(0);
}

ExprPtr CallGpu::boxIndex() {
  ExprPtr acc;
  for (size_t d = 0; d < boxLo_.size(); ++d) {
    use_->boxVars.insert(boxLo_[d]);
    ExprPtr rel = indexSub(var(g_.iters[d], ScalarType::Int), var(boxLo_[d], ScalarType::Int));
    if (d > 0) use_->boxVars.insert(boxN_[d]);
    acc = d == 0 ? rel : indexAdd(indexMul(acc, var(boxN_[d], ScalarType::Int)), rel);
  }
  return acc ? acc : intLit(0);
}

ExprPtr CallGpu::bound(const SymBound& b) {
  if (b.terms.empty()) internal("a region bound without terms");
  ExprPtr acc;
  for (auto& t : b.terms) {
    ExprPtr x = t.base ? indexAddConst(lower(t.base), t.c) : intLit(t.c);
    acc = !acc ? x : b.lower ? indexMax(acc, x) : indexMin(acc, x);
  }
  return acc;
}

ExprPtr CallGpu::count(const std::vector<ExprPtr>& extents) {
  ExprPtr n = intLit(1);
  for (auto& e : extents) n = indexMul(n, lower(e));
  return n;
}

std::vector<ExprPtr> CallGpu::callArgs() const {
  std::vector<ExprPtr> args = {var(kRuntimeVar, ScalarType::Int)};
  for (int a : arraysUsed_) args.push_back(var(g_.arrays[a], prog_.arrays[a].type));
  for (int s : scalarsUsed_) args.push_back(var(g_.scalars[s], prog_.scalars[s].type));
  for (int p : paramsUsed_) args.push_back(var(g_.params[p], ScalarType::Int));
  return args;
}

std::vector<lir::Param> CallGpu::kernelParams(const KernelUse& u,
                                              const std::vector<std::string>& lo,
                                              const std::vector<std::string>& hi) const {
  std::vector<lir::Param> ps;
  for (auto& [id, written] : u.arrays)
    ps.push_back({bufferOf(id), ctypeOf(prog_.elementType(call_, id)), true, !written});
  for (int s : u.localScalars)
    ps.push_back({localScalars_[s], ctypeOf(call_.localScalars[s].type), true});
  for (int s : u.scalars) ps.push_back({g_.scalars[s], valueType(prog_.scalars[s].type), false});
  for (int i : u.inits) ps.push_back({inits_[i], valueType(call_.inits[i].type), false});
  for (int p : u.params) ps.push_back({g_.params[p], CType::Int64, false});
  for (size_t d = 0; d < lo.size(); ++d) {
    ps.push_back({lo[d], CType::Int64, false});
    ps.push_back({hi[d], CType::Int64, false});
  }
  for (size_t d = 0; d < boxLo_.size(); ++d) {
    if (u.boxVars.count(boxLo_[d])) ps.push_back({boxLo_[d], CType::Int64, false});
    if (u.boxVars.count(boxN_[d])) ps.push_back({boxN_[d], CType::Int64, false});
  }
  return ps;
}

Function CallGpu::kernel(size_t k, const std::string& name, const std::vector<std::string>& lo,
                         const std::vector<std::string>& hi, std::string text, Namer& scope,
                         GpuKernelInfo& info) {
  const tessel::Stmt& st = call_.stmts[k];
  KernelUse use;
  use_ = &use;
  std::optional<StagedKernel> staged;
  if (grid_.staged()) staged.emplace(prog_, call_, st, g_, grid_, lo, hi, scope, *this);
  staged_ = staged ? &*staged : nullptr;
  // The store: converted to the left-hand side's type; compound forms read the left side.
  ScalarType lt = st.lhs->type;
  std::string buf;
  ExprPtr idx;
  if (st.lhsIsScalar()) {
    use.localScalars.insert(st.lhs->index);
    buf = localScalars_.at(st.lhs->index);
    idx = boxIndex();
  } else {
    buf = bufferOf(st.lhs->array);
    if (!st.lhs->array.local) arraysUsed_.insert(st.lhs->array.index);
    idx = linearIndex(*st.lhs);
  }
  ExprPtr value = lower(st.rhs);
  if (st.op != AssignOp::Set) value = binary(compoundOp(st.op), load(buf, idx, lt), value);
  if (value->type != lt) value = cast(lt, value);
  if (!st.lhsIsScalar()) use.arrays[st.lhs->array] = true;  // after the reads: written wins
  std::vector<StmtPtr> body = {store(buf, idx, value)};
  staged_ = nullptr;

  Function f;
  std::vector<StmtPtr> kb;
  if (staged) {
    // Staged families: the builder maps threads, stages, synchronises and guards.
    kb = staged->body(body);
    std::string how = staged->describe();
    if (!how.empty()) text += "\n" + how;
    staged->declare(f);
    info.sharedBytes = staged->staging().sharedBytes;
    info.staging = how;
  } else {
    // Each thread: one point of the grid's dimensions, looping over the streaming one.
    if (grid_.stream >= 0) {
      int s = grid_.stream;
      body = {forLoop(g_.iters[s], var(lo[s], ScalarType::Int), var(hi[s], ScalarType::Int),
                      LoopKind::Serial, body)};
    }
    ExprPtr guard;
    for (size_t gd = 0; gd < grid_.iters.size(); ++gd) {
      int it = grid_.iters[gd];
      ExprPtr id = intrinsic(Intrinsic::GlobalId, static_cast<int>(gd));
      kb.push_back(
          localDecl(CType::Int64, g_.iters[it], indexAdd(var(lo[it], ScalarType::Int), id)));
      guard = allOf(
          guard, binary(Op::Le, var(g_.iters[it], ScalarType::Int), var(hi[it], ScalarType::Int)));
    }
    kb.push_back(comment("Guard: the grid is rounded up to whole blocks."));
    kb.push_back(ifThen(guard, body));
  }
  use_ = nullptr;

  f.name = name;
  f.linkage = Linkage::Kernel;
  f.comment = std::move(text);
  f.params = kernelParams(use, lo, hi);
  f.params.push_back({kDeviceStatusParam, CType::Int32, true});
  f.params.back().maybeUnused = !usesStatusHelper(value) && !usesStatusHelper(idx);
  f.body = block(std::move(kb));
  return f;
}

void CallGpu::statement(size_t k, const StmtRegion& reg, std::vector<StmtPtr>& out) {
  const tessel::Stmt& st = call_.stmts[k];
  auto iters = prog_.iteratorNames();
  std::string text = fmt::format("Statement {}", k + 1);
  if (st.loc.valid()) text += fmt::format(" (line {})", st.loc.line());
  text += ": " + statementText(prog_, call_, st) + "\nRegion: ";
  for (size_t d = 0; d < reg.iter.size(); ++d)
    text += fmt::format("{}{} in {}", d ? ", " : "", iters[d], reg.iter[d].str());
  out.push_back(comment(text));

  // The region's bounds, evaluated by the host; a region that is empty launches nothing.
  Namer scope = names_;
  std::vector<std::string> lo, hi;
  std::vector<StmtPtr> blk;
  ExprPtr nonEmpty;
  bool never = false;
  for (size_t d = 0; d < reg.iter.size(); ++d) {
    lo.push_back(scope.take("lo_" + g_.iters[d]));
    hi.push_back(scope.take("hi_" + g_.iters[d]));
    ExprPtr l = bound(reg.iter[d].lo), h = bound(reg.iter[d].hi);
    if (l->kind == ExprKind::IntLit && h->kind == ExprKind::IntLit && l->ival > h->ival)
      never = true;
    blk.push_back(localDecl(CType::Int64, lo[d], l));
    blk.push_back(localDecl(CType::Int64, hi[d], h));
    nonEmpty =
        allOf(nonEmpty, binary(Op::Le, var(lo[d], ScalarType::Int), var(hi[d], ScalarType::Int)));
  }
  // Conditions on fixed planes: decided here when both sides are constants, else at run time.
  for (auto& c : reg.conditions) {
    ExprPtr a = bound(c.a), b = bound(c.b);
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
  std::string kc = fmt::format("Call {} ({}), statement {}: {}", index_, call_.name, k + 1,
                               statementText(prog_, call_, st));
  kc += "\n" + text.substr(text.find("\nRegion: ") + 1);
  std::string mapping;
  for (size_t gd = 0; gd < grid_.iters.size(); ++gd)
    mapping += fmt::format("{}{} -> {}", gd ? ", " : "", iters[grid_.iters[gd]], "xyz"[gd]);
  switch (grid_.family) {
    case ScheduleFamily::Global:
    case ScheduleFamily::GlobalStream:
    case ScheduleFamily::Overlapped:  // the statements it does not fuse run as `global`
      kc += "\nOne thread per point: " + mapping;
      if (grid_.stream >= 0) kc += fmt::format("; each thread loops over {}", iters[grid_.stream]);
      break;
    case ScheduleFamily::Shared: {
      std::string tile;
      for (size_t gd = 0; gd < grid_.iters.size(); ++gd)
        tile += fmt::format("{}{}", gd ? "x" : "", grid_.tile(gd));
      kc += fmt::format("\nShared-memory tiling: {}; a block computes a {} tile", mapping, tile);
      break;
    }
    case ScheduleFamily::Stream:
      kc += fmt::format("\nStreaming along {} ({}): {}; a block sweeps {}", iters[grid_.stream],
                        grid_.chunk == 0 ? "serial" : "concurrent", mapping,
                        grid_.chunk == 0 ? std::string("every plane")
                                         : fmt::format("a chunk of {} planes", grid_.chunk));
      break;
  }
  GpuKernelInfo info;
  Function f = kernel(k, name, lo, hi, kc, scope, info);

  // Blocks per grid dimension: the region's extent rounded up to whole tiles.
  std::vector<ExprPtr> gridExt, blockExt, args;
  std::vector<StmtPtr> then;
  for (size_t gd = 0; gd < grid_.iters.size(); ++gd) {
    int it = grid_.iters[gd], b = grid_.tile(gd);
    ExprPtr extent =
        indexAddConst(indexSub(var(hi[it], ScalarType::Int), var(lo[it], ScalarType::Int)), b);
    std::string n = scope.take(std::string("blocks_") + "xyz"[gd]);
    then.push_back(
        localDecl(CType::Int64, n, b == 1 ? extent : binary(Op::Div, extent, intLit(b))));
    gridExt.push_back(var(n, ScalarType::Int));
    blockExt.push_back(intLit(grid_.block[gd]));
  }
  if (grid_.family == ScheduleFamily::Stream) {
    // One more grid dimension: the chunks of planes along the streamed iterator.
    int sd = grid_.stream;
    ExprPtr planes = indexAddConst(
        indexSub(var(hi[sd], ScalarType::Int), var(lo[sd], ScalarType::Int)), grid_.chunk);
    ExprPtr chunks = grid_.chunk == 0   ? intLit(1)
                     : grid_.chunk == 1 ? planes
                                        : binary(Op::Div, planes, intLit(grid_.chunk));
    std::string n = scope.take("chunks");
    then.push_back(localDecl(CType::Int64, n, chunks));
    gridExt.push_back(var(n, ScalarType::Int));
    blockExt.push_back(intLit(1));
  }
  std::vector<lir::Param> ps(f.params.begin(), f.params.end() - 1);  // the runtime adds the status
  for (auto& a : argsNamingParams(ps)) args.push_back(a);
  then.push_back(launch(name, id, gridExt, blockExt, ps, args));
  blk.push_back(ifThen(nonEmpty, then));
  out.push_back(block(std::move(blk)));

  info.name = name;
  info.call = index_;
  info.stmt = static_cast<int>(k);
  // As applied: an overlapped stencil's per-statement kernels (remaining steps, fallbacks) are
  // global ones.
  info.family = grid_.family == ScheduleFamily::Overlapped ? ScheduleFamily::Global : grid_.family;
  info.gridIters = grid_.iters;
  info.block = grid_.block;
  info.streamIter = grid_.stream;
  info.chunk = grid_.chunk;
  info.unroll = grid_.unroll;
  out_.kernels.push_back(info);
  out_.device.functions.push_back(std::move(f));
}

Function CallGpu::build() {
  auto iters = prog_.iteratorNames();
  Function f;
  f.name = g_.callFns[index_];
  f.linkage = Linkage::Internal;
  f.comment =
      fmt::format("Call {}: {}({})", index_, call_.name, fmt::join(call_.actualNames, ", "));
  if (call_.loc.valid()) f.comment += fmt::format(" at line {}", call_.loc.line());
  std::vector<StmtPtr> body;
  if (!call_.inits.empty())
    body.push_back(comment("Initialised locals: evaluated once per call, on the host."));
  for (auto& in : call_.inits) {
    inits_.push_back(names_.take(in.name));
    ExprPtr v = lower(in.value);
    if (v->type != in.type || in.type == ScalarType::Int) v = cast(in.type, v);
    body.push_back(localDecl(valueType(in.type), inits_.back(), v));
  }
  for (auto& la : call_.localArrays) {
    std::string n = names_.take(la.name);
    localArrays_.push_back(n);
    ExprPtr cnt = count(la.extents);
    if (la.scratchOf >= 0) {
      arraysUsed_.insert(la.scratchOf);
      body.push_back(comment(fmt::format("Local array '{}': a private copy of '{}' for this call.",
                                         la.name, prog_.arrays[la.scratchOf].name)));
      body.push_back(alloc(ctypeOf(la.type), n, cnt));
      body.push_back(copy(ctypeOf(la.type), n, g_.arrays[la.scratchOf], cnt));
    } else {
      body.push_back(comment(fmt::format("Local array '{}', fresh for this call.", la.name)));
      body.push_back(alloc(ctypeOf(la.type), n, cnt));
    }
  }
  if (!call_.localScalars.empty()) {
    body.push_back(comment("Per-point local scalars live in buffers over the call-domain box."));
    ExprPtr cnt = intLit(1);
    for (size_t d = 0; d < call_.domain.size(); ++d) {
      boxLo_.push_back(names_.take("box_lo_" + g_.iters[d]));
      boxN_.push_back(names_.take("box_n_" + g_.iters[d]));
      ExprPtr lo = lower(call_.domain[d].lo), hi = lower(call_.domain[d].hi);
      body.push_back(localDecl(CType::Int64, boxLo_[d], lo));
      ExprPtr ext = indexSub(indexAddConst(hi, 1), var(boxLo_[d], ScalarType::Int));
      body.push_back(localDecl(CType::Int64, boxN_[d], indexMax(intLit(0), ext)));
      cnt = indexMul(cnt, var(boxN_[d], ScalarType::Int));
    }
    for (auto& ls : call_.localScalars) {
      std::string n = names_.take(ls.name);
      localScalars_.push_back(n);
      body.push_back(alloc(ctypeOf(ls.type), n, cnt));
    }
  }
  CallRegions regions = analyzeRegions(prog_, call_);
  size_t kernelsBefore = out_.kernels.size();
  for (size_t k = 0; k < call_.stmts.size(); ++k) {
    if (!body.empty()) body.push_back(comment(""));
    statement(k, regions.stmts.at(k), body);
  }
  f.body = block(std::move(body));
  // Parameters last: lowering the body found which ones it uses.
  lir::Param rt = runtimeParam();
  // Unused by a call that allocates and launches nothing (every region is empty).
  rt.maybeUnused =
      out_.kernels.size() == kernelsBefore && localArrays_.empty() && localScalars_.empty();
  f.params.push_back(rt);
  for (int a : arraysUsed_) f.params.push_back(bufferParam(g_.arrays[a]));
  for (int s : scalarsUsed_)
    f.params.push_back({g_.scalars[s], valueType(prog_.scalars[s].type), false});
  for (int p : paramsUsed_) f.params.push_back({g_.params[p], CType::Int64, false});
  return f;
}

}  // namespace

Function lowerCall(const Program& prog, int index, GlobalNames& g, const GridShape& grid,
                   GpuProgram& out, std::vector<ExprPtr>& args) {
  CallGpu cg(prog, index, g, grid, out);
  Function f = cg.build();
  args = cg.callArgs();
  return f;
}

}  // namespace gpu

}  // namespace tessel
