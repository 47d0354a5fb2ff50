// The streamed fused kernel: stream + time_tile T (paper 004, Figure 7, "3.5-D blocking").
//
// A block owns one output tile of the dimensions other than the streamed one (the grid's x and
// y; the next grid dimension counts chunks of planes) and sweeps the streamed dimension over its
// chunk, one step q at a time (analysis/stream_fusion.h):
//   1. every input ring loads its newest plane (q + its lead), guarded by the array's extent;
//   2. every stage s computes plane q + lead_s at the thread's point of its in-plane region:
//      inside its statement's region the statement, elsewhere (domain edges and boundary
//      planes) the value's previous version, so that such points keep their values; the result
//      goes to the stage's ring (or register) and, for the last writer of a global array, on
//      the tile and within the chunk, to the array's second buffer. A barrier follows.
// The block starts `prologue` steps before its chunk so that every ring holds right values
// when they are first read; in those steps a stage or a load runs only from the step whose
// result a later step reads (StreamedPlan::stageFrom, loadFrom: a condition on q in its guard).
// Planes outside the arrays are skipped. The host swaps the second
// buffers after the launch, as for the overlapped family.
// A retimed stage (TileStage::retimed; paper 004 Algorithm 2 under 3.5-D blocking) reads every
// plane when it is the newest, hi planes ahead of its output: each step it adds the parts of
// that plane to its accumulators (the outputs on planes q + lead .. q + lead + hi - lo), and
// the one on q + lead, then complete, is its result; it starts accumulating hi - lo steps early.
// The rings and registers: lower_gpu_fused_rings.cpp.
#include "analysis/retiming.h"
#include "lower/lower_gpu_fused_rings.h"

namespace tessel::gpu::fused {

namespace {

ExprPtr within(const ExprPtr& x, const ExprPtr& lo, const ExprPtr& hi) {
  return binary(Op::And, binary(Op::Ge, x, lo), binary(Op::Le, x, hi));
}

class StreamedKernel : public FusedReads {
 public:
  StreamedKernel(FusedContext& c, FusedUses& u, FusedExprs& x)
      : c_(c), u_(u), x_(x), plan_(streamedPlan(c.prog, c.a)), rings_(c, u, x, plan_, n_) {}

  Function build(GpuProgram& out);
  ExprPtr local(const TileValue& v, ScalarType t) override {
    return rings_.read(v, stage_, std::vector<int64_t>(c_.dims, 0), t);
  }
  ExprPtr array(const Expr& ref, const TileValue& v) override;

 private:
  FusedContext& c_;
  FusedUses& u_;
  FusedExprs& x_;
  StreamedPlan plan_;
  SweepNames n_;
  StreamRings rings_;
  int stage_ = -1;  // the stage being lowered

  /// The block's origin, the thread's point and the block's planes (a chunk, or all of them).
  std::vector<StmtPtr> blockStart();
  std::vector<StmtPtr> stage(size_t s);
  /// Stage s at the thread's point `copy` (of copies(): one unless unrolled).
  StmtPtr stageAt(size_t s, int copy);
  int copies() const;
  /// The variable of the thread's point `copy` along in-plane dimension d.
  std::string pointOf(int d, int copy) const;
  /// Retimed stages: their parts and accumulators (acc[m]: the output on plane q + lead + m).
  struct Accumulators {
    Retiming parts;
    std::vector<std::vector<std::string>> acc;  // per point of the thread
    ScalarType type = ScalarType::Double;
  };
  std::map<size_t, Accumulators> retimed_;
  /// The accumulators of every retimed stage, declared before the sweep.
  std::vector<StmtPtr> declareAccumulators();
  /// A retimed stage's step: its parts added, the completed output its result (`compute`
  /// stores it where stage() stores a computed value).
  std::vector<StmtPtr> accumulate(size_t s, int copy, const ExprPtr& inPlaneStmt,
                                  const ExprPtr& planeLo, const ExprPtr& planeHi);
  /// The current version of value lv at the point: from its last writer, an input ring, or
  /// memory (`global`: lv is a global array).
  ExprPtr previous(const TileValue& lv, ScalarType lt, bool global);
  /// The last writer of a global array: its result, on the tile and within the chunk, to the
  /// array's second buffer.
  StmtPtr finalWrite(int array, const std::string& val, ScalarType lt);
  std::string describe(int64_t shared) const;
};

ExprPtr StreamedKernel::array(const Expr& ref, const TileValue& v) {
  std::vector<int64_t> off(static_cast<size_t>(c_.dims), 0);
  bool fixedPlane = false;
  for (const Subscript& s : ref.subs)
    if (!s.fixed())
      off[static_cast<size_t>(s.iter)] = s.offset;
    else
      fixedPlane = true;
  // A fixed plane (of an array the kernel does not write: analyzeTile refuses the others) comes
  // from global memory: the rings hold the planes around the sweep's point.
  if (fixedPlane) {
    if (v.kind != TileValue::Kind::Global) internal("a fixed plane of a value the kernel computes");
    return nullptr;
  }
  StreamSource src = streamSource(c_.a, stage_, v);
  if (src.kind != StreamSource::Kind::Global) return rings_.read(v, stage_, off, ref.type);
  return nullptr;
}

std::vector<StmtPtr> StreamedKernel::blockStart() {
  std::vector<StmtPtr> kb;
  n_.t0.assign(static_cast<size_t>(c_.dims), "");
  n_.lid.assign(static_cast<size_t>(c_.dims), "");
  n_.point.assign(static_cast<size_t>(c_.dims), {});
  for (int d : inPlane(c_)) {
    size_t k = static_cast<size_t>(d);
    n_.t0[k] = c_.names.take("t0_" + c_.g.iters[k]);
    n_.lid[k] = c_.names.take("tid_" + c_.g.iters[k]);
    const int copies = unrollAlong(c_, d);
    for (int u = 0; u < copies; ++u)
      n_.point[k].push_back(c_.names.take(copies == 1 ? "p_" + c_.g.iters[k]
                                                      : fmt::format("p_{}_u{}", c_.g.iters[k], u)));
    int64_t lo = 0;
    bool first = true;
    for (auto& s : c_.a.stages)
      if (!s.region.empty) {
        lo = first ? s.region.lo[k] : std::min(lo, s.region.lo[k]);
        first = false;
      }
    kb.push_back(localDecl(CType::Int64, n_.lid[k], intrinsic(Intrinsic::LocalId, gridDim(c_, d))));
    kb.push_back(
        localDecl(CType::Int64, n_.t0[k],
                  indexMul(intrinsic(Intrinsic::GroupId, gridDim(c_, d)), intLit(c_.v.tile[k]))));
    // Unrolled, a thread's points along d: consecutive (blocked) or a block apart (cyclic).
    for (int u = 0; u < copies; ++u) {
      ExprPtr at = copies == 1 ? ivar(n_.lid[k])
                   : c_.cyclic ? indexAddConst(ivar(n_.lid[k]), int64_t{u} * threads(c_, d))
                               : indexAddConst(indexMul(ivar(n_.lid[k]), intLit(copies)), u);
      kb.push_back(localDecl(CType::Int64, n_.point[k][static_cast<size_t>(u)],
                             indexAdd(indexAddConst(ivar(n_.t0[k]), lo), at)));
    }
  }
  n_.chunkLo = c_.names.take("plane_lo");
  n_.chunkHi = c_.names.take("plane_hi");
  int chunkDim = c_.dims - 1, chunk = c_.chunk;
  if (chunk > 0) {
    kb.push_back(localDecl(CType::Int64, n_.chunkLo,
                           indexMul(intrinsic(Intrinsic::GroupId, chunkDim), intLit(chunk))));
    kb.push_back(localDecl(
        CType::Int64, n_.chunkHi,
        indexAddConst(indexMin(indexAddConst(ivar(n_.chunkLo), chunk), streamExtent(c_, x_)), -1)));
  } else {
    kb.push_back(localDecl(CType::Int64, n_.chunkLo, intLit(0)));
    kb.push_back(localDecl(CType::Int64, n_.chunkHi, indexAddConst(streamExtent(c_, x_), -1)));
  }
  return kb;
}

ExprPtr StreamedKernel::previous(const TileValue& lv, ScalarType lt, bool global) {
  // From its ring or register, unless it comes from memory (StreamedPlan::previousFromMemory).
  const bool memory = global && plan_.previousFromMemory.at(static_cast<size_t>(stage_));
  if (streamSource(c_.a, stage_, lv).kind != StreamSource::Kind::Global && !memory)
    return rings_.read(lv, stage_, std::vector<int64_t>(static_cast<size_t>(c_.dims), 0), lt);
  if (!global) internal("a local value without a previous version");
  u_.array(lv.index);
  return load(c_.g.arrays.at(static_cast<size_t>(lv.index)), x_.rowMajor(lv.index, iterVars(c_)),
              lt);
}

StmtPtr StreamedKernel::finalWrite(int array, const std::string& val, ScalarType lt) {
  const std::vector<std::string>& iters = c_.g.iters;
  ExprPtr own = within(ivar(iters[static_cast<size_t>(c_.sd)]), ivar(n_.chunkLo), ivar(n_.chunkHi));
  for (int d : inPlane(c_)) {
    size_t x = static_cast<size_t>(d);
    own = binary(
        Op::And, own,
        within(ivar(iters[x]), ivar(n_.t0[x]), indexAddConst(ivar(n_.t0[x]), c_.v.tile[x] - 1)));
  }
  ExprPtr gi = x_.rowMajor(array, iterVars(c_));
  return ifThen(own, {store(c_.g.shadows.at(static_cast<size_t>(array)), gi, var(val, lt))});
}

std::vector<StmtPtr> StreamedKernel::stage(size_t s) {
  const TileStage& ts = c_.a.stages[s];
  if (ts.region.empty) return {};
  x_.setStep(ts.step);
  stage_ = static_cast<int>(s);
  const tessel::Stmt& st = callAt(c_, ts.step).stmts.at(static_cast<size_t>(ts.stmt));
  // The statement with the arrays of this step's call (not the stencil's formals).
  std::vector<StmtPtr> out = {comment(
      fmt::format("Stage {} (step {}, statement {}), {} plane{} ahead{}: {}", s + 1, ts.step + 1,
                  ts.stmt + 1, ts.lead, ts.lead == 1 ? "" : "s",
                  copies() == 1 ? "" : fmt::format(", at each of the thread's {} points", copies()),
                  statementText(c_.prog, callAt(c_, ts.step), st)))};
  std::vector<StmtPtr> points;
  for (int copy = 0; copy < copies(); ++copy) {
    rings_.setCopy(copy);
    points.push_back(stageAt(s, copy));
  }
  rings_.setCopy(0);
  // Unrolled, the copies write their own points of the stage's ring and read other stages'
  // rings: one phase, no barrier between them (lir::phaseBlock; Oclgrind checks the claim).
  if (points.size() == 1)
    out.push_back(points.front());
  else
    out.push_back(phaseBlock(std::move(points)));
  x_.setStep(-1);
  stage_ = -1;
  return out;
}

int StreamedKernel::copies() const {
  int n = 1;
  for (int d : inPlane(c_)) n *= unrollAlong(c_, d);
  return n;
}

std::string StreamedKernel::pointOf(int d, int copy) const {
  // Mixed radix over the in-plane dimensions, the last (unit-stride) fastest.
  std::vector<int> dims = inPlane(c_);
  for (size_t n = dims.size(); n-- > 0;) {
    const int u = unrollAlong(c_, dims[n]);
    if (dims[n] == d) return n_.point[static_cast<size_t>(d)][static_cast<size_t>(copy % u)];
    copy /= u;
  }
  internal("a point along the streamed dimension");
}

StmtPtr StreamedKernel::stageAt(size_t s, int copy) {
  const TileStage& ts = c_.a.stages[s];
  const tessel::Stmt& st = callAt(c_, ts.step).stmts.at(static_cast<size_t>(ts.stmt));
  const auto& bnd = c_.bounds.at({ts.call, ts.stmt});
  const std::vector<std::string>& iters = c_.g.iters;
  const bool global = !st.lhsIsScalar() && !st.lhs->array.local;
  TileValue lv = st.lhsIsScalar() ? TileValue{TileValue::Kind::LocalScalar, ts.step, st.lhs->index}
                                  : valueOf(st.lhs->array, ts.step);
  ScalarType lt = st.lhs->type;
  size_t k = static_cast<size_t>(c_.sd);
  // The thread's point of the stage's in-plane region, on the stage's plane.
  std::vector<StmtPtr> body;
  ExprPtr active;
  for (int d : inPlane(c_)) {
    size_t x = static_cast<size_t>(d);
    const std::string& point = pointOf(d, copy);
    body.push_back(localDecl(CType::Int64, iters[x], ivar(point)));
    active = allOf(active, within(ivar(point), indexAddConst(ivar(n_.t0[x]), ts.region.lo[x]),
                                  indexAddConst(ivar(n_.t0[x]), ts.region.hi[x])));
  }
  body.push_back(localDecl(CType::Int64, iters[k], indexAddConst(ivar(n_.q), ts.lead)));
  // A retimed stage accumulates on every step of its in-plane region from its first part on;
  // the guards below then apply to the completed output only (within that region).
  ExprPtr inPlaneRegion = active;
  if (ts.retimed) active = nullptr;
  // In the prologue, not before a later step reads the result (StreamedPlan::stageFrom): no
  // stage computes from ring slots not yet loaded.
  if (plan_.stageFrom[s] > -plan_.prologue)
    active = allOf(active,
                   binary(Op::Ge, ivar(n_.q), indexAddConst(ivar(n_.chunkLo), plan_.stageFrom[s])));
  if (global)
    for (int d = 0; d < c_.dims; ++d)
      active = allOf(
          active,
          binary(Op::And, binary(Op::Ge, ivar(iters[static_cast<size_t>(d)]), intLit(0)),
                 binary(Op::Lt, ivar(iters[static_cast<size_t>(d)]), x_.extent(lv.index, d))));
  ExprPtr inStmt, inPlaneStmt;
  for (int d = 0; d < c_.dims; ++d) {
    size_t x = static_cast<size_t>(d);
    ExprPtr in = within(ivar(iters[x]), ivar(bnd[x].first), ivar(bnd[x].second));
    inStmt = allOf(inStmt, in);
    if (d != c_.sd) inPlaneStmt = allOf(inPlaneStmt, in);
  }
  std::vector<StmtPtr> parts;
  if (ts.retimed) parts = accumulate(s, copy, inPlaneStmt, ivar(bnd[k].first), ivar(bnd[k].second));
  ExprPtr value = ts.retimed ? var(retimed_.at(s).acc.at(static_cast<size_t>(copy)).front(),
                                   retimed_.at(s).type)
                             : x_.kernel(ts.rhs);
  if (st.op != AssignOp::Set) value = binary(compoundOp(st.op), previous(lv, lt, global), value);
  if (value->type != lt) value = cast(lt, value);
  if (usesStatusHelper(value)) u_.kernel.status = true;
  std::string val = c_.names.take("v");
  // Outside the statement's region a global array's point keeps its previous value.
  std::vector<StmtPtr> compute = {localDecl(ctypeOf(lt), val, zeroOf(lt), false)};
  if (global)
    compute.push_back(
        ifThen(inStmt, {assign(val, value)}, {assign(val, previous(lv, lt, global))}));
  else
    compute.push_back(ifThen(inStmt, {assign(val, value)}));
  for (auto& x : rings_.keep(s, val, lt)) compute.push_back(x);
  if (int fin = plan_.finalWriteOf[s]; fin >= 0) compute.push_back(finalWrite(fin, val, lt));
  if (ts.retimed) {
    // Parts first, then the completed output where stage() would compute it, then the
    // accumulators move on by a plane.
    const Accumulators& r = retimed_.at(s);
    const std::vector<std::string>& acc = r.acc.at(static_cast<size_t>(copy));
    if (active)
      parts.push_back(ifThen(active, compute));
    else
      parts.push_back(block(compute));
    parts.push_back(comment("Rotate the accumulators: the next output starts from zero."));
    for (size_t m = 0; m + 1 < acc.size(); ++m)
      parts.push_back(assign(acc[m], var(acc[m + 1], r.type)));
    parts.push_back(assign(acc.back(), zeroOf(r.type)));
    ExprPtr from;
    if (int64_t f = plan_.stageFrom[s] - plan_.accumulateAhead[s]; f > -plan_.prologue)
      from = binary(Op::Ge, ivar(n_.q), indexAddConst(ivar(n_.chunkLo), f));
    ExprPtr run = allOf(inPlaneRegion, from);
    body.push_back(run ? ifThen(run, parts) : block(parts));
  } else {
    body.push_back(ifThen(active ? active : boolLit(true), compute));
  }
  return block(body);
}

std::vector<StmtPtr> StreamedKernel::declareAccumulators() {
  std::vector<StmtPtr> out;
  for (size_t s = 0; s < c_.a.stages.size(); ++s) {
    const TileStage& ts = c_.a.stages[s];
    if (!ts.retimed || ts.region.empty) continue;
    Accumulators r;
    r.parts = ts.retimed->retiming;  // the tile analysis's (schedule/resolve.cpp)
    r.type = planeReads(r.parts)->type;
    for (int u = 0; u < copies(); ++u) {
      r.acc.emplace_back();
      for (int64_t m = 0; m < r.parts.accumulators; ++m) {
        r.acc.back().push_back(c_.names.take(copies() == 1
                                                 ? fmt::format("acc_s{}_{}", s + 1, m)
                                                 : fmt::format("acc_s{}_{}_u{}", s + 1, m, u)));
        out.push_back(localDecl(valueType(r.type), r.acc.back().back(), zeroOf(r.type), false));
      }
    }
    retimed_[s] = std::move(r);
  }
  if (!out.empty())
    out.insert(out.begin(), comment("The accumulators of the retimed stages (acc_sS_m: the "
                                    "output m planes after the stage's plane)."));
  return out;
}

std::vector<StmtPtr> StreamedKernel::accumulate(size_t s, int copy, const ExprPtr& inPlaneStmt,
                                                const ExprPtr& planeLo, const ExprPtr& planeHi) {
  const Accumulators& r = retimed_.at(s);
  const std::vector<std::string>& accs = r.acc.at(static_cast<size_t>(copy));
  const int64_t hi = r.parts.parts.back().offset, lo = r.parts.parts.front().offset;
  const std::string& k = c_.g.iters[static_cast<size_t>(c_.sd)];
  std::vector<StmtPtr> out = {comment(
      fmt::format("Retimed: plane {} + {} adds its parts to the outputs on planes {}..{} + {}.", k,
                  hi, k, k, hi - lo))};
  // Plane k + hi is read where some part adds to an output of the statement (its reads are
  // then in bounds and computed): all parts together, so that each point of the plane is read
  // once. An output outside the statement's planes gets parts too, but is never used: its
  // accumulator starts from zero when it enters and is discarded when complete (stage()).
  std::vector<StmtPtr> add;
  for (const RetimedPart& p : r.parts.parts) {
    ExprPtr v = x_.kernel(retimedAt(p, c_.sd, hi));
    if (usesStatusHelper(v)) u_.kernel.status = true;
    const std::string& acc = accs.at(static_cast<size_t>(hi - p.offset));
    add.push_back(assign(acc, binary(Op::Add, var(acc, r.type), v)));
  }
  ExprPtr guard = allOf(inPlaneStmt, within(indexAddConst(ivar(k), hi), indexAddConst(planeLo, lo),
                                            indexAddConst(planeHi, hi)));
  out.push_back(ifThen(guard, add));
  return out;
}

std::string StreamedKernel::describe(int64_t shared) const {
  auto iters = c_.prog.iteratorNames();
  std::vector<std::string> tile;
  for (int d : inPlane(c_)) tile.push_back(std::to_string(c_.v.tile[static_cast<size_t>(d)]));
  size_t calls = c_.v.seq.calls.size(), stages = c_.a.stages.size();
  return fmt::format(
             "Stream + time tile: {} fused call{} (calls {}), tile {} streaming {} ({}), {} "
             "threads, "
             "{} stage{}, {} bytes of shared memory, {:.1f}% of the computed points redundant.",
             calls, calls == 1 ? "" : "s", fmt::join(callNames(c_), ", "), fmt::join(tile, "x"),
             iters[static_cast<size_t>(c_.sd)],
             c_.chunk > 0 ? fmt::format("chunks of {} planes", c_.chunk) : "every plane",
             c_.block[0] * c_.block[1] * c_.block[2], stages, stages == 1 ? "" : "s", shared,
             c_.a.totals.redundancyPercent) +
         (c_.a.spec.folds.empty()
              ? ""
              : fmt::format(" Folded (paper 000 III-B4): {} staged as one array each, computed as "
                            "it is loaded; the stages read the first array where they read the "
                            "combination.",
                            foldTexts(c_.a.spec.folds)));
}

Function StreamedKernel::build(GpuProgram& out) {
  u_.inKernel = true;
  x_.setReads(this);
  if (!plan_.supported) internal("a streamed fused kernel that the plan refuses: " + plan_.whyNot);
  Function f;
  std::vector<StmtPtr> kb = blockStart();
  for (auto& x : declareAccumulators()) kb.push_back(x);
  int64_t shared = rings_.declare(f);
  n_.q = c_.names.take("q");
  for (auto& x : rings_.startPrefetch()) kb.push_back(x);
  std::vector<StmtPtr> step = rings_.declareRegisters();
  for (auto& x : rings_.loadInputs()) step.push_back(x);
  for (size_t s = 0; s < c_.a.stages.size(); ++s)
    for (auto& x : stage(s)) step.push_back(x);
  kb.push_back(comment(fmt::format("Sweep: {} prologue step{}, then one step per plane.",
                                   plan_.prologue, plan_.prologue == 1 ? "" : "s")));
  kb.push_back(forStep(n_.q, indexAddConst(ivar(n_.chunkLo), -plan_.prologue), ivar(n_.chunkHi),
                       intLit(1), step));
  u_.inKernel = false;
  x_.setReads(nullptr);
  Function k =
      finishKernel(c_, u_.kernel, std::move(f), std::move(kb), shared, describe(shared), out);
  for (auto& [stage, r] : retimed_)
    out.kernels.back().retimed += static_cast<int>(r.parts.accumulators) * copies();
  out.kernels.back().folded = foldTexts(c_.a.spec.folds);
  // The global inputs TileSpec::globalInputs takes out of shared memory (those it read).
  std::vector<std::string> inMemory;
  for (const TileInput& in : c_.a.inputs)
    if (std::find(c_.a.spec.globalInputs.begin(), c_.a.spec.globalInputs.end(), in.array) !=
        c_.a.spec.globalInputs.end())
      inMemory.push_back(c_.prog.arrays.at(static_cast<size_t>(in.array)).name);
  out.kernels.back().inGlobalMemory = fmt::format("{}", fmt::join(inMemory, ", "));
  return k;
}

}  // namespace

Function streamedKernel(FusedContext& c, FusedUses& u, FusedExprs& x, GpuProgram& out) {
  return StreamedKernel(c, u, x).build(out);
}

}  // namespace tessel::gpu::fused
