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
// The host function that launches it: lower_gpu_fused_host.cpp.
#include "lower/lower_gpu_fused.h"

namespace tessel::gpu::fused {

namespace {

/// Outside the box that hull h's first writer writes: the points its first writer overwrites
/// before anything reads them are not loaded. `at`: the loaded element's point.
ExprPtr outsideFirstWrite(const FusedContext& c, const TileHull& h,
                          const std::vector<std::string>& t0, const std::vector<ExprPtr>& at) {
  const TileStage& w = c.a.stages.at(static_cast<size_t>(h.firstWriter));
  const tessel::Stmt& ws = callAt(c, w.step).stmts.at(static_cast<size_t>(w.stmt));
  const auto& bnd = c.bounds.at({w.call, w.stmt});
  std::vector<int64_t> off(static_cast<size_t>(c.dims), 0);
  if (!ws.lhsIsScalar())
    for (const Subscript& sub : ws.lhs->subs) off[static_cast<size_t>(sub.iter)] = sub.offset;
  ExprPtr outside;
  for (int d = 0; d < c.dims; ++d) {
    size_t k = static_cast<size_t>(d);
    ExprPtr lo = indexAddConst(
        indexMax(indexAddConst(ivar(t0[k]), w.region.lo[k]), ivar(bnd[k].first)), off[k]);
    ExprPtr hi = indexAddConst(
        indexMin(indexAddConst(ivar(t0[k]), w.region.hi[k]), ivar(bnd[k].second)), off[k]);
    ExprPtr out = binary(Op::Or, binary(Op::Lt, at[k], lo), binary(Op::Gt, at[k], hi));
    outside = outside ? binary(Op::Or, outside, out) : out;
  }
  return outside;
}

/// The overlapped kernel: a shared tile per value the sequence writes (its hull), loaded,
/// computed stage by stage and written back.
class TiledKernel : public FusedReads {
 public:
  TiledKernel(FusedContext& c, FusedUses& u, FusedExprs& x) : c_(c), u_(u), x_(x) {}

  Function build(GpuProgram& out);
  ExprPtr local(const TileValue& v, ScalarType t) override {
    if (auto r = registers_.find(v); r != registers_.end()) return var(r->second, t);
    return load(tiles_.at(v).name, sharedIndex(v, iterVars(c_)), t);
  }
  ExprPtr array(const Expr& ref, const TileValue& v) override;

 private:
  struct Tile {
    std::string name;  // the shared array
    const TileHull* hull = nullptr;
  };
  FusedContext& c_;
  FusedUses& u_;
  FusedExprs& x_;
  std::vector<std::string> t0_, lid_;  // per iterator dimension
  std::map<TileValue, Tile> tiles_;
  /// The values computed in the current stage's loop (TileHull::inRegisters): their variables.
  std::map<TileValue, std::string> registers_;

  ExprPtr sharedIndex(const TileValue& v, const std::vector<ExprPtr>& at) const;
  /// Names and declares the shared tiles on `f`; returns their bytes.
  int64_t declareTiles(Function& f);
  std::vector<StmtPtr> loadHull(const TileHull& h);
  std::vector<StmtPtr> stage(size_t s);
  /// Whether the point the iterator variables name lies where stage `w`'s loop runs.
  ExprPtr insideStage(const TileStage& w) const;
  std::vector<StmtPtr> writeBack(int array);
};

ExprPtr TiledKernel::array(const Expr& ref, const TileValue& v) {
  if (auto r = registers_.find(v); r != registers_.end()) return var(r->second, ref.type);
  if (!tiles_.count(v)) return nullptr;
  std::vector<ExprPtr> at = iterVars(c_);
  for (const Subscript& s : ref.subs)
    at[static_cast<size_t>(s.iter)] = indexAddConst(at[static_cast<size_t>(s.iter)], s.offset);
  return load(tiles_.at(v).name, sharedIndex(v, at), ref.type);
}

ExprPtr TiledKernel::sharedIndex(const TileValue& v, const std::vector<ExprPtr>& at) const {
  const TileHull& h = *tiles_.at(v).hull;
  ExprPtr acc;
  for (int d = 0; d < c_.dims; ++d) {
    size_t k = static_cast<size_t>(d);
    ExprPtr rel = indexSub(at[k], indexAddConst(ivar(t0_[k]), h.box.lo[k]));
    acc = d == 0 ? rel : indexAdd(indexMul(acc, intLit(h.box.hi[k] - h.box.lo[k] + 1)), rel);
  }
  return acc;
}

int64_t TiledKernel::declareTiles(Function& f) {
  int64_t shared = 0;
  for (auto& h : c_.a.hulls) {
    // A value nothing reads (its stages are dead) or that its reader computes in a register:
    // no tile.
    if (h.box.empty || h.inRegisters) continue;
    std::string n = c_.names.take("sh_" + valueStem(c_, h.value));
    tiles_[h.value] = {n, &h};
    CType ct = ctypeOf(elementType(c_, h.value));
    f.shared.push_back(sharedArray(ct, n, std::max<int64_t>(1, h.elements)));
    shared += h.elements * byteSize(ct);
  }
  return shared;
}

// Cooperative: thread t of n loads elements t, t+n, ... of the hull, within the source array.
std::vector<StmtPtr> TiledKernel::loadHull(const TileHull& h) {
  int src =
      h.value.kind == TileValue::Kind::Global ? h.value.index
      : h.value.kind == TileValue::Kind::LocalArray
          ? callAt(c_, h.value.step).localArrays.at(static_cast<size_t>(h.value.index)).scratchOf
          : -1;
  // No source, or no tile (nothing reads the value: its stages are dead, declareTiles).
  if (src < 0 || !tiles_.count(h.value)) return {};
  u_.array(src);
  Namer scope = c_.names;
  std::string e = scope.take("e");
  int64_t nthreads = static_cast<int64_t>(c_.block[0]) * c_.block[1] * c_.block[2];
  std::vector<StmtPtr> body;
  std::vector<ExprPtr> at(static_cast<size_t>(c_.dims));
  ExprPtr rest = ivar(e), inside;
  for (int d = c_.dims - 1; d >= 0; --d) {
    size_t k = static_cast<size_t>(d);
    int64_t n = h.box.hi[k] - h.box.lo[k] + 1;
    ExprPtr off = d == 0 ? rest : binary(Op::Mod, rest, intLit(n));
    if (d > 0) rest = binary(Op::Div, rest, intLit(n));
    std::string x = scope.take("x_" + c_.g.iters[k]);
    body.push_back(
        localDecl(CType::Int64, x, indexAdd(indexAddConst(ivar(t0_[k]), h.box.lo[k]), off)));
    at[k] = ivar(x);
    ExprPtr in = binary(Op::And, binary(Op::Ge, ivar(x), intLit(0)),
                        binary(Op::Lt, ivar(x), x_.extent(src, d)));
    inside = inside ? binary(Op::And, inside, in) : in;
  }
  if (h.firstWriter >= 0) inside = binary(Op::And, inside, outsideFirstWrite(c_, h, t0_, at));
  ScalarType t = c_.prog.arrays.at(static_cast<size_t>(src)).type;
  ExprPtr gi = x_.rowMajor(src, at);
  body.push_back(ifThen(inside, {store(tiles_.at(h.value).name, ivar(e),
                                       load(c_.g.arrays.at(static_cast<size_t>(src)), gi, t))}));
  // The thread's index in the block, the last iterator's (x) fastest.
  ExprPtr linear;
  for (int d = 0; d < c_.dims; ++d)
    linear = d == 0 ? ivar(lid_[0])
                    : indexAdd(indexMul(linear, intLit(threads(c_, d))),
                               ivar(lid_[static_cast<size_t>(d)]));
  return {comment(fmt::format("Load {} ({} elements) into shared memory.",
                              valueName(c_.prog, c_.v.seq, h.value), h.elements)),
          forStep(e, linear, intLit(h.elements - 1), intLit(nthreads), body)};
}

ExprPtr TiledKernel::insideStage(const TileStage& w) const {
  const auto& bnd = c_.bounds.at({w.call, w.stmt});
  ExprPtr inside;
  for (int d = 0; d < c_.dims; ++d) {
    const size_t k = static_cast<size_t>(d);
    const ExprPtr x = ivar(c_.g.iters[k]);
    ExprPtr lo = indexMax(indexAddConst(ivar(t0_[k]), w.region.lo[k]), ivar(bnd[k].first));
    ExprPtr hi = indexMin(indexAddConst(ivar(t0_[k]), w.region.hi[k]), ivar(bnd[k].second));
    ExprPtr in = binary(Op::And, binary(Op::Ge, x, lo), binary(Op::Le, x, hi));
    inside = inside ? binary(Op::And, inside, in) : in;
  }
  return inside;
}

std::vector<StmtPtr> TiledKernel::stage(size_t s) {
  const TileStage& ts = c_.a.stages[s];
  if (ts.region.empty || ts.computedIn >= 0) return {};  // dead, or computed in a later loop
  // The values this stage's loop computes first, at its point, in registers (the writers in
  // stage order: one may read another's). A value of one writer is a constant; a chain's
  // (`m0 = ...; m0 += ...;`) is a variable each writer assigns where its own loop would have
  // run (its region within the tile and the statement's).
  std::vector<StmtPtr> body;
  std::vector<std::string> inRegisters;
  registers_.clear();
  for (size_t p = 0; p < s; ++p) {
    const TileStage& w = c_.a.stages[p];
    if (w.computedIn != static_cast<int>(s)) continue;
    x_.setStep(w.step);
    const tessel::Stmt& ws = callAt(c_, w.step).stmts.at(static_cast<size_t>(w.stmt));
    const size_t writers = static_cast<size_t>(
        std::count_if(c_.a.stages.begin(), c_.a.stages.end(),
                      [&](const TileStage& o) { return o.writes == w.writes; }));
    const ScalarType lt = ws.lhs->type;
    auto reg = registers_.find(w.writes);
    ExprPtr value = x_.kernel(w.rhs);
    if (ws.op != AssignOp::Set && reg != registers_.end())
      value = binary(compoundOp(ws.op), var(reg->second, lt), value);
    if (value->type != lt) value = cast(lt, value);
    if (usesStatusHelper(value)) u_.kernel.status = true;
    if (reg == registers_.end()) {
      const std::string name = c_.names.take("r_" + valueStem(c_, w.writes));
      reg = registers_.emplace(w.writes, name).first;
      if (writers == 1) {
        body.push_back(localDecl(ctypeOf(lt), name, value));
        inRegisters.push_back(fmt::format("{} (stage {})", name, p + 1));
        continue;
      }
      body.push_back(localDecl(ctypeOf(lt), name, cast(lt, intLit(0)), false));
    }
    body.push_back(ifThen(insideStage(w), {assign(reg->second, value)}));
    inRegisters.push_back(fmt::format("{} (stage {})", reg->second, p + 1));
  }
  x_.setStep(ts.step);
  const tessel::Stmt& st = callAt(c_, ts.step).stmts.at(static_cast<size_t>(ts.stmt));
  const auto& bnd = c_.bounds.at({ts.call, ts.stmt});
  // The point's store: converted to the left-hand side's type; compound forms read it.
  TileValue lv = st.lhsIsScalar() ? TileValue{TileValue::Kind::LocalScalar, ts.step, st.lhs->index}
                                  : valueOf(st.lhs->array, ts.step);
  std::vector<ExprPtr> at = iterVars(c_);
  if (!st.lhsIsScalar())
    for (const Subscript& sub : st.lhs->subs)
      at[static_cast<size_t>(sub.iter)] =
          indexAddConst(at[static_cast<size_t>(sub.iter)], sub.offset);
  ScalarType lt = st.lhs->type;
  const std::string& tile = tiles_.at(lv).name;
  ExprPtr idx = sharedIndex(lv, at);
  ExprPtr value = x_.kernel(ts.rhs);
  if (st.op != AssignOp::Set) value = binary(compoundOp(st.op), load(tile, idx, lt), value);
  if (value->type != lt) value = cast(lt, value);
  if (usesStatusHelper(value)) u_.kernel.status = true;
  body.push_back(store(tile, idx, value));
  registers_.clear();
  // Loops, innermost = the last iterator: the stage's hull within the statement's region.
  for (int d = c_.dims - 1; d >= 0; --d) {
    size_t k = static_cast<size_t>(d);
    ExprPtr lo = indexMax(indexAddConst(ivar(t0_[k]), ts.region.lo[k]), ivar(bnd[k].first));
    ExprPtr hi = indexMin(indexAddConst(ivar(t0_[k]), ts.region.hi[k]), ivar(bnd[k].second));
    body = {forStep(c_.g.iters[k], indexAdd(lo, ivar(lid_[k])), hi, intLit(threads(c_, d)), body)};
  }
  // The statement with the arrays of this step's call (not the stencil's formals).
  std::string text = fmt::format("Stage {} (step {}, statement {}): {}", s + 1, ts.step + 1,
                                 ts.stmt + 1, statementText(c_.prog, callAt(c_, ts.step), st));
  if (!inRegisters.empty())
    text +=
        fmt::format("; first, in registers at the same point: {}", fmt::join(inRegisters, ", "));
  std::vector<StmtPtr> out = {comment(text)};
  out.insert(out.end(), body.begin(), body.end());
  x_.setStep(-1);
  return out;
}

std::vector<StmtPtr> TiledKernel::writeBack(int array) {
  TileValue v{TileValue::Kind::Global, -1, array};
  ScalarType t = c_.prog.arrays.at(static_cast<size_t>(array)).type;
  std::vector<ExprPtr> at = iterVars(c_);
  ExprPtr gi = x_.rowMajor(array, at);
  std::vector<StmtPtr> body = {store(c_.g.shadows.at(static_cast<size_t>(array)), gi,
                                     load(tiles_.at(v).name, sharedIndex(v, at), t))};
  for (int d = c_.dims - 1; d >= 0; --d) {
    size_t k = static_cast<size_t>(d);
    ExprPtr hi = indexMin(indexAddConst(ivar(t0_[k]), c_.v.tile[k] - 1),
                          indexAddConst(x_.extent(array, d), -1));
    body = {forStep(c_.g.iters[k], indexAdd(ivar(t0_[k]), ivar(lid_[k])), hi,
                    intLit(threads(c_, d)), body)};
  }
  std::vector<StmtPtr> out = {
      comment(fmt::format("The tile of {} to its second buffer.", c_.prog.arrays[array].name))};
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

Function TiledKernel::build(GpuProgram& out) {
  u_.inKernel = true;
  x_.setReads(this);
  std::vector<StmtPtr> kb;
  Function f;
  for (int d = 0; d < c_.dims; ++d) {
    size_t k = static_cast<size_t>(d);
    t0_.push_back(c_.names.take("t0_" + c_.g.iters[k]));
    lid_.push_back(c_.names.take("tid_" + c_.g.iters[k]));
    kb.push_back(localDecl(CType::Int64, lid_[k], intrinsic(Intrinsic::LocalId, gridDim(c_, d))));
    kb.push_back(
        localDecl(CType::Int64, t0_[k],
                  indexMul(intrinsic(Intrinsic::GroupId, gridDim(c_, d)), intLit(c_.v.tile[k]))));
  }
  int64_t shared = declareTiles(f);
  for (auto& h : c_.a.hulls)
    for (auto& s : loadHull(h)) kb.push_back(s);
  for (size_t s = 0; s < c_.a.stages.size(); ++s)
    for (auto& x : stage(s)) kb.push_back(x);
  for (int r : c_.a.results)
    if (c_.written.count(r))
      for (auto& x : writeBack(r)) kb.push_back(x);
  u_.inKernel = false;
  x_.setReads(nullptr);
  auto iters = c_.prog.iteratorNames();
  size_t calls = c_.v.seq.calls.size(), stages = c_.a.stages.size();
  std::string text = fmt::format(
      "Overlapped: {} fused call{} (calls {}), tile {} ({}), {} threads, {} stage{}, {} bytes of "
      "shared memory, {:.1f}% of the computed points redundant.",
      calls, calls == 1 ? "" : "s", fmt::join(callNames(c_), ", "), fmt::join(c_.v.tile, "x"),
      fmt::join(iters, ","), c_.block[0] * c_.block[1] * c_.block[2], stages,
      stages == 1 ? "" : "s", shared, c_.a.totals.redundancyPercent);
  return finishKernel(c_, u_.kernel, std::move(f), std::move(kb), shared, text, out);
}

}  // namespace

Function tiledKernel(FusedContext& c, FusedUses& u, FusedExprs& x, GpuProgram& out) {
  return TiledKernel(c, u, x).build(out);
}

}  // namespace tessel::gpu::fused
