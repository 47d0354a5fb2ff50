// The overlapped family: one kernel per fused sequence of stages (paper 001, Algorithms 3-5).
//
// A thread block owns one output tile (grid x <-> the last iterator). Its kernel:
//   1. loads, into one shared buffer per value the sequence writes (a global array, a local
//      array, a per-point local scalar), the hull the tile analysis gives for that value: global
//      arrays (and scratch copies) from their current device buffer, guarded by the array's
//      extent. Points a stage never writes therefore keep their previous values (language.md
//      5.7), also at domain edges where a stage's region stops short of the hull;
//   2. runs the stages in order, each over its hull intersected with the statement's region
//      (kernel arguments computed by the host), with a barrier after each. Reads of values the
//      sequence writes come from shared memory, the others from global memory;
//   3. writes every point of the tile that lies in a written global array's extent to that
//      array's second buffer (the "shadow"). Tiles cover the arrays' whole extents, so after the
//      kernel the shadow holds the whole new array, and the host swaps the two buffers
//      (Algorithm 5): no block ever reads what another block writes in the same launch.
#include "codegen/lower_gpu_fused.h"

namespace tessel::gpu {

namespace fused {

ExprPtr FusedGpu::lowerHost(const ExprPtr& e, int call) {
  switch (e->kind) {
    case ExprKind::ParamRef:
      return param(e->index);
    case ExprKind::ScalarRef:
      if (e->scalarKind == ScalarKind::Global) {
        scalarsUsed_.insert(e->index);
        return var(g_.scalars.at(static_cast<size_t>(e->index)), e->type);
      }
      if (e->scalarKind == ScalarKind::Init) return var(inits_.at({call, e->index}), e->type);
      internal("a local scalar in host code");
    case ExprKind::ArrayRef:
    case ExprKind::IterRef:
      internal("an array or iterator in host code");
    default:
      break;
  }
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  for (auto& x : e->args) args.push_back(lowerHost(x, call));
  return withArgs(e, std::move(args));
}

// Row-major over the array's own extents, at the point `at` (per iterator dimension) plus the
// subscripts' offsets.
ExprPtr FusedGpu::globalIndex(const Expr& ref, const std::vector<ExprPtr>& at) {
  const auto& ext = prog_.extents(callAt(step_ < 0 ? 0 : step_), ref.array);
  ExprPtr acc;
  for (size_t d = 0; d < ref.subs.size(); ++d) {
    const Subscript& s = ref.subs[d];
    ExprPtr scaled = d == 0 ? intLit(0) : indexMul(acc, lowerKernel(ext[d]));
    if (!s.fixed()) scaled = indexAdd(scaled, at.at(static_cast<size_t>(s.iter)));
    acc = indexAddConst(scaled, s.offset);
  }
  return acc ? acc : intLit(0);
}

ExprPtr FusedGpu::sharedIndex(const TileValue& v, const std::vector<ExprPtr>& at) {
  const TileHull& h = *hull_.at(v);
  ExprPtr acc;
  for (int d = 0; d < dims_; ++d) {
    size_t k = static_cast<size_t>(d);
    ExprPtr rel = indexSub(at[k], indexAddConst(ivar(t0_[k]), h.box.lo[k]));
    acc = d == 0 ? rel : indexAdd(indexMul(acc, intLit(h.box.hi[k] - h.box.lo[k] + 1)), rel);
  }
  return acc;
}

ExprPtr FusedGpu::lowerKernel(const ExprPtr& e) {
  switch (e->kind) {
    case ExprKind::ParamRef:
      return param(e->index);
    case ExprKind::IterRef:
      return ivar(g_.iters.at(static_cast<size_t>(e->index)));
    case ExprKind::ScalarRef:
      switch (e->scalarKind) {
        case ScalarKind::Global:
          scalarsUsed_.insert(e->index);
          kScalars_.insert(e->index);
          return var(g_.scalars.at(static_cast<size_t>(e->index)), e->type);
        case ScalarKind::Init: {
          int c = v_.seq.calls.at(static_cast<size_t>(step_));
          kInits_.insert({c, e->index});
          return var(inits_.at({c, e->index}), e->type);
        }
        case ScalarKind::Local: {
          TileValue v{TileValue::Kind::LocalScalar, step_, e->index};
          if (sd_ >= 0) return streamRead(v, std::vector<int64_t>(dims_, 0), e->type);
          return load(sharedName_.at(v), sharedIndex(v, iterVars()), e->type);
        }
      }
      break;
    case ExprKind::ArrayRef: {
      TileValue v = valueOf(e->array);
      if (sd_ >= 0) {
        std::vector<int64_t> off(static_cast<size_t>(dims_), 0);
        for (const Subscript& s : e->subs)
          if (!s.fixed()) off[static_cast<size_t>(s.iter)] = s.offset;
        StreamSource src = streamSource(a_, stage_, v);
        if (src.kind != StreamSource::Kind::Global) return streamRead(v, off, e->type);
      }
      std::vector<ExprPtr> at = iterVars();
      if (sharedName_.count(v)) {
        for (const Subscript& s : e->subs)
          at[static_cast<size_t>(s.iter)] =
              indexAddConst(at[static_cast<size_t>(s.iter)], s.offset);
        return load(sharedName_.at(v), sharedIndex(v, at), e->type);
      }
      if (e->array.local) internal("a local array that is not in shared memory");
      arraysUsed_.insert(e->array.index);
      kArrays_.insert(e->array.index);
      return load(g_.arrays.at(static_cast<size_t>(e->array.index)), globalIndex(*e, at), e->type);
    }
    default:
      break;
  }
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  for (auto& x : e->args) args.push_back(lowerKernel(x));
  ExprPtr r = withArgs(e, std::move(args));
  if (callsStatusHelper(*r)) usesStatus_ = true;
  return r;
}

// Cooperative: thread t of n loads elements t, t+n, ... of the hull, within the source array.
std::vector<StmtPtr> FusedGpu::loadHull(const TileHull& h) {
  int src = h.value.kind == TileValue::Kind::Global ? h.value.index
            : h.value.kind == TileValue::Kind::LocalArray
                ? callAt(h.value.step).localArrays.at(static_cast<size_t>(h.value.index)).scratchOf
                : -1;
  if (src < 0) return {};
  arraysUsed_.insert(src);
  kArrays_.insert(src);
  Namer scope = names_;
  std::string e = scope.take("e");
  int64_t nthreads = static_cast<int64_t>(block_[0]) * block_[1] * block_[2];
  std::vector<StmtPtr> body;
  std::vector<ExprPtr> at(static_cast<size_t>(dims_));
  ExprPtr rest = ivar(e), inside;
  for (int d = dims_ - 1; d >= 0; --d) {
    size_t k = static_cast<size_t>(d);
    int64_t n = h.box.hi[k] - h.box.lo[k] + 1;
    ExprPtr off = d == 0 ? rest : binary(Op::Mod, rest, intLit(n));
    if (d > 0) rest = binary(Op::Div, rest, intLit(n));
    std::string x = scope.take("x_" + g_.iters[k]);
    body.push_back(
        localDecl(CType::Int64, x, indexAdd(indexAddConst(ivar(t0_[k]), h.box.lo[k]), off)));
    at[k] = ivar(x);
    ExprPtr in = binary(Op::And, binary(Op::Ge, ivar(x), intLit(0)),
                        binary(Op::Lt, ivar(x), extent(src, d)));
    inside = inside ? binary(Op::And, inside, in) : in;
  }
  // Points the value's first writer overwrites before anything reads them are not loaded.
  if (h.firstWriter >= 0) {
    const TileStage& w = a_.stages.at(static_cast<size_t>(h.firstWriter));
    const tessel::Stmt& ws = callAt(w.step).stmts.at(static_cast<size_t>(w.stmt));
    const auto& bnd = bounds_.at({w.call, w.stmt});
    std::vector<int64_t> off(static_cast<size_t>(dims_), 0);
    if (!ws.lhsIsScalar())
      for (const Subscript& sub : ws.lhs->subs) off[static_cast<size_t>(sub.iter)] = sub.offset;
    ExprPtr outside;  // outside the box the first writer writes
    for (int d = 0; d < dims_; ++d) {
      size_t k = static_cast<size_t>(d);
      ExprPtr lo = indexAddConst(
          indexMax(indexAddConst(ivar(t0_[k]), w.region.lo[k]), ivar(bnd[k].first)), off[k]);
      ExprPtr hi = indexAddConst(
          indexMin(indexAddConst(ivar(t0_[k]), w.region.hi[k]), ivar(bnd[k].second)), off[k]);
      ExprPtr out = binary(Op::Or, binary(Op::Lt, at[k], lo), binary(Op::Gt, at[k], hi));
      outside = outside ? binary(Op::Or, outside, out) : out;
    }
    inside = binary(Op::And, inside, outside);
  }
  ScalarType t = prog_.arrays.at(static_cast<size_t>(src)).type;
  // Row-major in the source array, which has every dimension (it is written).
  ExprPtr gi;
  for (int d = 0; d < dims_; ++d)
    gi = d == 0 ? at[0] : indexAdd(indexMul(gi, extent(src, d)), at[static_cast<size_t>(d)]);
  body.push_back(ifThen(inside, {store(sharedName_.at(h.value), ivar(e),
                                       load(g_.arrays.at(static_cast<size_t>(src)), gi, t))}));
  // The thread's index in the block, the last iterator's (x) fastest.
  ExprPtr linear;
  for (int d = 0; d < dims_; ++d)
    linear =
        d == 0 ? ivar(lid_[0])
               : indexAdd(indexMul(linear, intLit(threads(d))), ivar(lid_[static_cast<size_t>(d)]));
  return {comment(fmt::format("Load {} ({} elements) into shared memory.",
                              valueName(prog_, v_.seq, h.value), h.elements)),
          forStep(e, linear, intLit(h.elements - 1), intLit(nthreads), body)};
}

std::vector<StmtPtr> FusedGpu::stage(size_t s) {
  const TileStage& ts = a_.stages[s];
  if (ts.region.empty) return {};
  step_ = ts.step;
  const tessel::Stmt& st = callAt(ts.step).stmts.at(static_cast<size_t>(ts.stmt));
  const auto& bnd = bounds_.at({ts.call, ts.stmt});
  // The point's store: converted to the left-hand side's type; compound forms read it.
  TileValue lv = st.lhsIsScalar() ? TileValue{TileValue::Kind::LocalScalar, ts.step, st.lhs->index}
                                  : valueOf(st.lhs->array);
  std::vector<ExprPtr> at = iterVars();
  if (!st.lhsIsScalar())
    for (const Subscript& sub : st.lhs->subs)
      at[static_cast<size_t>(sub.iter)] =
          indexAddConst(at[static_cast<size_t>(sub.iter)], sub.offset);
  ScalarType lt = st.lhs->type;
  ExprPtr idx = sharedIndex(lv, at);
  ExprPtr value = lowerKernel(st.rhs);
  if (st.op != AssignOp::Set)
    value = binary(compoundOp(st.op), load(sharedName_.at(lv), idx, lt), value);
  if (value->type != lt) value = cast(lt, value);
  if (usesStatusHelper(value)) usesStatus_ = true;
  std::vector<StmtPtr> body = {store(sharedName_.at(lv), idx, value)};
  // Loops, innermost = the last iterator: the stage's hull within the statement's region.
  for (int d = dims_ - 1; d >= 0; --d) {
    size_t k = static_cast<size_t>(d);
    ExprPtr lo = indexMax(indexAddConst(ivar(t0_[k]), ts.region.lo[k]), ivar(bnd[k].first));
    ExprPtr hi = indexMin(indexAddConst(ivar(t0_[k]), ts.region.hi[k]), ivar(bnd[k].second));
    body = {forStep(g_.iters[k], indexAdd(lo, ivar(lid_[k])), hi, intLit(threads(d)), body)};
  }
  auto iters = prog_.iteratorNames();
  std::string text =
      fmt::format("Stage {} (step {}, statement {}): {} {} {}", s + 1, ts.step + 1, ts.stmt + 1,
                  toString(st.lhs, iters), assignOpSpelling(st.op), toString(st.rhs, iters));
  std::vector<StmtPtr> out = {comment(text)};
  out.insert(out.end(), body.begin(), body.end());
  out.push_back(barrier());
  step_ = -1;
  return out;
}

std::vector<StmtPtr> FusedGpu::writeBack(int array) {
  TileValue v{TileValue::Kind::Global, -1, array};
  ScalarType t = prog_.arrays.at(static_cast<size_t>(array)).type;
  std::vector<ExprPtr> at = iterVars();
  ExprPtr gi;
  for (int d = 0; d < dims_; ++d)
    gi = d == 0 ? at[0] : indexAdd(indexMul(gi, extent(array, d)), at[static_cast<size_t>(d)]);
  std::vector<StmtPtr> body = {store(g_.shadows.at(static_cast<size_t>(array)), gi,
                                     load(sharedName_.at(v), sharedIndex(v, at), t))};
  for (int d = dims_ - 1; d >= 0; --d) {
    size_t k = static_cast<size_t>(d);
    ExprPtr hi =
        indexMin(indexAddConst(ivar(t0_[k]), v_.tile[k] - 1), indexAddConst(extent(array, d), -1));
    body = {
        forStep(g_.iters[k], indexAdd(ivar(t0_[k]), ivar(lid_[k])), hi, intLit(threads(d)), body)};
  }
  std::vector<StmtPtr> out = {
      comment(fmt::format("The tile of {} to its second buffer.", prog_.arrays[array].name))};
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

Function FusedGpu::kernel() {
  if (sd_ >= 0) return streamKernel();
  inKernel_ = true;
  std::vector<StmtPtr> kb;
  Function f;
  for (int d = 0; d < dims_; ++d) {
    size_t k = static_cast<size_t>(d);
    t0_.push_back(names_.take("t0_" + g_.iters[k]));
    lid_.push_back(names_.take("tid_" + g_.iters[k]));
    kb.push_back(localDecl(CType::Int64, lid_[k], intrinsic(Intrinsic::LocalId, gridDim(d))));
    kb.push_back(
        localDecl(CType::Int64, t0_[k],
                  indexMul(intrinsic(Intrinsic::GroupId, gridDim(d)), intLit(v_.tile[k]))));
  }
  int64_t shared = 0;
  for (auto& h : a_.hulls) {
    hull_[h.value] = &h;
    std::string base = valueName(prog_, v_.seq, h.value);
    base = base.substr(0, base.find(' '));
    std::string n = names_.take("sh_" + base);
    sharedName_[h.value] = n;
    CType ct =
        h.value.kind == TileValue::Kind::Global
            ? ctypeOf(prog_.arrays.at(static_cast<size_t>(h.value.index)).type)
        : h.value.kind == TileValue::Kind::LocalArray
            ? ctypeOf(callAt(h.value.step).localArrays.at(static_cast<size_t>(h.value.index)).type)
            : ctypeOf(
                  callAt(h.value.step).localScalars.at(static_cast<size_t>(h.value.index)).type);
    f.shared.push_back(sharedArray(ct, n, std::max<int64_t>(1, h.elements)));
    shared += h.elements * byteSize(ct);
  }
  for (auto& h : a_.hulls)
    for (auto& s : loadHull(h)) kb.push_back(s);
  kb.push_back(barrier());
  for (size_t s = 0; s < a_.stages.size(); ++s)
    for (auto& x : stage(s)) kb.push_back(x);
  for (int r : a_.results)
    if (written_.count(r))
      for (auto& x : writeBack(r)) kb.push_back(x);
  inKernel_ = false;
  auto iters = prog_.iteratorNames();
  std::vector<std::string> callNames;
  for (int c : v_.seq.calls) callNames.push_back(fmt::format("{} {}", c, prog_.calls[c].name));
  std::string text = fmt::format(
      "Overlapped: {} fused call{} (calls {}), tile {} ({}), {} threads, {} stage{}, {} bytes of "
      "shared memory, {:.1f}% of the computed points redundant.",
      v_.seq.calls.size(), v_.seq.calls.size() == 1 ? "" : "s", fmt::join(callNames, ", "),
      fmt::join(v_.tile, "x"), fmt::join(iters, ","), block_[0] * block_[1] * block_[2],
      a_.stages.size(), a_.stages.size() == 1 ? "" : "s", shared, a_.totals.redundancyPercent);
  return finishKernel(std::move(f), std::move(kb), shared, text);
}

Function FusedGpu::finishKernel(Function f, std::vector<StmtPtr> kb, int64_t shared,
                                const std::string& text) {
  f.name = name_;
  f.linkage = Linkage::Kernel;
  f.requiredBlock = block_;
  f.comment = text;
  // Parameters: arrays read from global memory, the written arrays' second buffers, scalars,
  // initialised locals, parameters, the statements' region bounds.
  for (int a : kArrays_)
    f.params.push_back({g_.arrays[a], ctypeOf(prog_.arrays[a].type), true, true});
  for (int a : written_)
    f.params.push_back({g_.shadows[a], ctypeOf(prog_.arrays[a].type), true, false});
  for (int s : kScalars_)
    f.params.push_back({g_.scalars[s], valueType(prog_.scalars[s].type), false});
  for (auto& ci : kInits_)
    f.params.push_back(
        {inits_.at(ci), valueType(prog_.calls[ci.first].inits[ci.second].type), false});
  for (int p : kParams_) f.params.push_back({g_.params[p], CType::Int64, false});
  std::set<std::pair<int, int>> seenStage;
  for (auto& ts : a_.stages)
    if (!ts.region.empty && seenStage.insert({ts.call, ts.stmt}).second)
      for (auto& [lo, hi] : bounds_.at({ts.call, ts.stmt})) {
        f.params.push_back({lo, CType::Int64, false});
        f.params.push_back({hi, CType::Int64, false});
      }
  f.params.push_back({kDeviceStatusParam, CType::Int32, true});
  f.params.back().maybeUnused = !usesStatus_;
  f.body = block(std::move(kb));

  GpuKernelInfo info;
  info.name = name_;
  info.call = v_.seq.calls.front();
  info.family = ScheduleFamily::Overlapped;
  for (int d = dims_ - 1; d >= 0; --d)
    if (d != sd_) info.gridIters.push_back(d);
  info.streamIter = sd_;
  info.chunk = sd_ >= 0 ? chunk_ : 0;
  info.block = block_;
  info.fusedCalls = v_.seq.calls;
  info.tile = v_.tile;
  info.sharedBytes = shared;
  out_.kernels.push_back(info);
  return f;
}

Function FusedGpu::build() {
  for (auto& s : a_.stages)
    if (s.writes.kind == TileValue::Kind::Global && !s.region.empty)
      written_.insert(s.writes.index);
  std::vector<StmtPtr> body;
  // Initialised locals of each call, evaluated on the host as the per-statement lowering does.
  std::set<int> calls(v_.seq.calls.begin(), v_.seq.calls.end());
  for (int c : calls) {
    const CallInst& ci = prog_.calls[c];
    for (size_t k = 0; k < ci.inits.size(); ++k) {
      std::string n = names_.take(ci.inits[k].name);
      inits_[{c, static_cast<int>(k)}] = n;
      ExprPtr v = lowerHost(ci.inits[k].value, c);
      if (v->type != ci.inits[k].type || ci.inits[k].type == ScalarType::Int)
        v = cast(ci.inits[k].type, v);
      body.push_back(localDecl(valueType(ci.inits[k].type), n, v));
    }
  }
  // The statements' regions (language.md 5.4-5.6), evaluated by the host.
  for (int c : calls) {
    CallRegions regs = analyzeRegions(prog_, prog_.calls[c]);
    for (size_t k = 0; k < regs.stmts.size(); ++k) {
      const StmtRegion& r = regs.stmts[k];
      if (!r.conditions.empty()) internal("a fused statement with region conditions");
      auto& b = bounds_[{c, static_cast<int>(k)}];
      for (int d = 0; d < dims_; ++d) {
        std::string lo = names_.take(fmt::format("lo{}_{}_{}", c, k, g_.iters[d]));
        std::string hi = names_.take(fmt::format("hi{}_{}_{}", c, k, g_.iters[d]));
        b.push_back({lo, hi});
      }
    }
    for (size_t k = 0; k < regs.stmts.size(); ++k) {
      const StmtRegion& r = regs.stmts[k];
      auto& b = bounds_[{c, static_cast<int>(k)}];
      for (int d = 0; d < dims_; ++d) {
        auto bound = [&](const SymBound& sb) {
          ExprPtr acc;
          for (auto& t : sb.terms) {
            ExprPtr x = t.base ? indexAddConst(lowerHost(t.base, c), t.c) : intLit(t.c);
            acc = !acc ? x : sb.lower ? indexMax(acc, x) : indexMin(acc, x);
          }
          return acc;
        };
        body.push_back(localDecl(CType::Int64, b[d].first, bound(r.iter[d].lo)));
        body.push_back(localDecl(CType::Int64, b[d].second, bound(r.iter[d].hi)));
      }
    }
  }
  for (int a : written_)
    if (g_.shadows.at(static_cast<size_t>(a)).empty()) internal("no second buffer");
  Function k = kernel();
  // Blocks: tiles over the union of the written arrays' extents.
  std::vector<ExprPtr> grid, blockExt;
  if (sd_ >= 0) {
    grid = streamGrid(body);
    for (size_t gd = 0; gd < grid.size(); ++gd) blockExt.push_back(intLit(block_[gd]));
  } else {
    grid.resize(static_cast<size_t>(dims_));
    for (int gd = 0; gd < dims_; ++gd) {
      int d = dims_ - 1 - gd;
      ExprPtr ext;
      for (int a : written_) ext = ext ? indexMax(ext, extent(a, d)) : extent(a, d);
      std::string n = names_.take(std::string("blocks_") + "xyz"[gd]);
      int64_t t = v_.tile[static_cast<size_t>(d)];
      body.push_back(
          localDecl(CType::Int64, n, binary(Op::Div, indexAddConst(ext, t - 1), intLit(t))));
      grid[static_cast<size_t>(gd)] = ivar(n);
      blockExt.push_back(intLit(block_[static_cast<size_t>(gd)]));
    }
  }
  std::vector<lir::Param> ps(k.params.begin(), k.params.end() - 1);
  std::vector<ExprPtr> args = argsNamingParams(ps);
  int id = static_cast<int>(out_.device.functions.size());
  std::vector<StmtPtr> run = {
      launch(name_, id, grid, blockExt, ps, args),
      comment("The new values are in the second buffers: swap (paper 001, Algorithm 5).")};
  for (int a : written_)
    run.push_back(callFn("tessel_swap", {var(g_.arrays[a], prog_.arrays[a].type),
                                         var(g_.shadows[a], prog_.arrays[a].type)}));
  ExprPtr any;  // an array with no elements: nothing to compute
  for (auto& gx : grid) {
    ExprPtr pos = binary(Op::Gt, gx, intLit(0));
    any = any ? binary(Op::And, any, pos) : pos;
  }
  body.push_back(ifThen(any, run));
  out_.device.functions.push_back(std::move(k));

  Function f;
  f.name = hostName_;
  f.linkage = Linkage::Internal;
  f.comment = out_.device.functions.back().comment;
  f.params.push_back(runtimeParam());
  std::set<int> bufs = arraysUsed_;
  bufs.insert(written_.begin(), written_.end());
  for (int a : bufs) f.params.push_back(bufferParam(g_.arrays[a]));
  for (int a : written_) f.params.push_back(bufferParam(g_.shadows[a]));
  for (int s : scalarsUsed_)
    f.params.push_back({g_.scalars[s], valueType(prog_.scalars[s].type), false});
  for (int p : paramsUsed_) f.params.push_back({g_.params[p], CType::Int64, false});
  f.body = block(std::move(body));
  arraysUsed_ = bufs;
  return f;
}

std::vector<ExprPtr> FusedGpu::callArgs() const {
  std::vector<ExprPtr> args = {var(kRuntimeVar, ScalarType::Int)};
  for (int a : arraysUsed_) args.push_back(var(g_.arrays[a], prog_.arrays[a].type));
  for (int a : written_) args.push_back(var(g_.shadows[a], prog_.arrays[a].type));
  for (int s : scalarsUsed_) args.push_back(var(g_.scalars[s], prog_.scalars[s].type));
  for (int p : paramsUsed_) args.push_back(var(g_.params[p], ScalarType::Int));
  return args;
}

}  // namespace fused

using namespace lir;
using fused::FusedGpu;

Function lowerFused(const Program& prog, const FusedVariant& v, const std::string& name,
                    GlobalNames& g, const std::array<int, 3>& block, int chunk, GpuProgram& out,
                    std::vector<ExprPtr>& args) {
  std::string kernelName = g.namer.take(name);
  std::string hostName = g.namer.take(name + "_run");
  FusedGpu fg(prog, v, kernelName, hostName, g, block, chunk, out);
  Function f = fg.build();
  args = fg.callArgs();
  return f;
}

}  // namespace tessel::gpu
