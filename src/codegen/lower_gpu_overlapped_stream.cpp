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
// when they are first read; planes outside the arrays are skipped. The host swaps the second
// buffers after the launch, as for the overlapped family.
#include "codegen/lower_gpu_fused.h"

namespace tessel::gpu::fused {

namespace {

ExprPtr within(const ExprPtr& x, const ExprPtr& lo, const ExprPtr& hi) {
  return binary(Op::And, binary(Op::Ge, x, lo), binary(Op::Le, x, hi));
}

}  // namespace

std::vector<int> FusedGpu::inPlane() const {
  std::vector<int> d;
  for (int k = 0; k < dims_; ++k)
    if (k != sd_) d.push_back(k);
  return d;
}

ExprPtr FusedGpu::streamExtent() {
  ExprPtr ext;
  std::set<std::string> seen;  // arrays of the same extent count once
  auto iters = prog_.iteratorNames();
  for (int a : written_)
    if (seen
            .insert(toString(
                prog_.arrays.at(static_cast<size_t>(a)).extents.at(static_cast<size_t>(sd_)),
                iters))
            .second)
      ext = ext ? indexMax(ext, extent(a, sd_)) : extent(a, sd_);
  return ext;
}

// Slot (plane mod planes) times the plane's elements plus the row-major in-plane offset from
// the buffer's first point.
ExprPtr FusedGpu::ringIndex(int buffer, const ExprPtr& plane, const std::vector<ExprPtr>& at) {
  const TileBuffer& b = a_.buffers.at(static_cast<size_t>(buffer));
  const Ring& r = rings_.at(buffer);
  ExprPtr slot = binary(Op::Mod, indexAddConst(plane, ringBias_ * r.planes), intLit(r.planes));
  ExprPtr acc = indexMul(slot, intLit(r.planeElems));
  ExprPtr rel;
  for (int d : inPlane()) {
    size_t k = static_cast<size_t>(d);
    ExprPtr x = indexSub(at[k], indexAddConst(ivar(t0_[k]), b.box.lo[k]));
    rel = rel ? indexAdd(indexMul(rel, intLit(b.box.hi[k] - b.box.lo[k] + 1)), x) : x;
  }
  return indexAdd(acc, rel);
}

ExprPtr FusedGpu::streamRead(const TileValue& v, const std::vector<int64_t>& off, ScalarType t) {
  StreamSource src = streamSource(a_, stage_, v);
  if (src.kind == StreamSource::Kind::Register || src.kind == StreamSource::Kind::Missing)
    return var(regs_.at(src.producer), t);
  if (src.kind != StreamSource::Kind::Ring) internal("a streamed read without a buffer");
  std::vector<ExprPtr> at = iterVars();
  for (int d = 0; d < dims_; ++d)
    at[static_cast<size_t>(d)] =
        indexAddConst(at[static_cast<size_t>(d)], off[static_cast<size_t>(d)]);
  return load(rings_.at(src.buffer).name, ringIndex(src.buffer, at[static_cast<size_t>(sd_)], at),
              t);
}

// Cooperative: thread t of n loads elements t, t+n, ... of the ring's newest plane.
std::vector<StmtPtr> FusedGpu::loadRing(int buffer) {
  const TileBuffer& b = a_.buffers.at(static_cast<size_t>(buffer));
  const Ring& r = rings_.at(buffer);
  int src = b.value.index;
  arraysUsed_.insert(src);
  kArrays_.insert(src);
  Namer scope = names_;
  std::string e = scope.take("e");
  std::vector<int> dims = inPlane();
  std::vector<ExprPtr> at(static_cast<size_t>(dims_));
  std::string z = scope.take("z");
  std::vector<StmtPtr> body;
  at[static_cast<size_t>(sd_)] = ivar(z);
  ExprPtr inside = binary(Op::And, binary(Op::Ge, ivar(z), intLit(0)),
                          binary(Op::Lt, ivar(z), extent(src, sd_)));
  ExprPtr rest = ivar(e);
  for (size_t n = dims.size(); n-- > 0;) {
    size_t k = static_cast<size_t>(dims[n]);
    int64_t ext = b.box.hi[k] - b.box.lo[k] + 1;
    ExprPtr off = n == 0 ? rest : binary(Op::Mod, rest, intLit(ext));
    if (n > 0) rest = binary(Op::Div, rest, intLit(ext));
    std::string x = scope.take("x_" + g_.iters[k]);
    body.push_back(
        localDecl(CType::Int64, x, indexAdd(indexAddConst(ivar(t0_[k]), b.box.lo[k]), off)));
    at[k] = ivar(x);
    inside = binary(Op::And, inside,
                    binary(Op::And, binary(Op::Ge, ivar(x), intLit(0)),
                           binary(Op::Lt, ivar(x), extent(src, dims[n]))));
  }
  ExprPtr gi;
  for (int d = 0; d < dims_; ++d)
    gi = d == 0 ? at[0] : indexAdd(indexMul(gi, extent(src, d)), at[static_cast<size_t>(d)]);
  ScalarType t = prog_.arrays.at(static_cast<size_t>(src)).type;
  body.push_back(ifThen(inside, {store(r.name, ringIndex(buffer, ivar(z), at),
                                       load(g_.arrays.at(static_cast<size_t>(src)), gi, t))}));
  ExprPtr linear;
  for (int d : dims)
    linear =
        linear ? indexAdd(indexMul(linear, intLit(threads(d))), ivar(lid_[static_cast<size_t>(d)]))
               : ivar(lid_[static_cast<size_t>(d)]);
  std::vector<StmtPtr> loop = {
      localDecl(CType::Int64, z,
                indexAddConst(ivar(q_), plan_.bufferLead[static_cast<size_t>(buffer)])),
      forStep(e, linear, intLit(r.planeElems - 1), intLit(block_[0] * block_[1] * block_[2]),
              body)};
  return {comment(fmt::format("The newest plane of {} ({} elements) into its ring.",
                              valueName(prog_, v_.seq, b.value), r.planeElems)),
          block(loop)};
}

std::vector<StmtPtr> FusedGpu::streamStage(size_t s) {
  const TileStage& ts = a_.stages[s];
  if (ts.region.empty) return {};
  step_ = ts.step;
  stage_ = static_cast<int>(s);
  const tessel::Stmt& st = callAt(ts.step).stmts.at(static_cast<size_t>(ts.stmt));
  const auto& bnd = bounds_.at({ts.call, ts.stmt});
  const bool global = !st.lhsIsScalar() && !st.lhs->array.local;
  TileValue lv = st.lhsIsScalar() ? TileValue{TileValue::Kind::LocalScalar, ts.step, st.lhs->index}
                                  : valueOf(st.lhs->array);
  ScalarType lt = st.lhs->type;
  CType ct = ctypeOf(lt);
  size_t k = static_cast<size_t>(sd_);
  // The thread's point of the stage's in-plane region, on the stage's plane.
  std::vector<StmtPtr> body;
  ExprPtr active;
  for (int d : inPlane()) {
    size_t x = static_cast<size_t>(d);
    body.push_back(localDecl(CType::Int64, g_.iters[x], ivar(point_[x])));
    active = allOf(active, within(ivar(point_[x]), indexAddConst(ivar(t0_[x]), ts.region.lo[x]),
                                  indexAddConst(ivar(t0_[x]), ts.region.hi[x])));
  }
  body.push_back(localDecl(CType::Int64, g_.iters[k], indexAddConst(ivar(q_), ts.lead)));
  if (global)
    for (int d = 0; d < dims_; ++d)
      active = allOf(
          active,
          binary(Op::And, binary(Op::Ge, ivar(g_.iters[static_cast<size_t>(d)]), intLit(0)),
                 binary(Op::Lt, ivar(g_.iters[static_cast<size_t>(d)]), extent(lv.index, d))));
  ExprPtr inStmt;
  for (int d = 0; d < dims_; ++d) {
    size_t x = static_cast<size_t>(d);
    inStmt = allOf(inStmt, within(ivar(g_.iters[x]), ivar(bnd[x].first), ivar(bnd[x].second)));
  }
  // The value's current version at the point: from its last writer, an input ring, or memory.
  auto previous = [&]() {
    if (streamSource(a_, stage_, lv).kind != StreamSource::Kind::Global)
      return streamRead(lv, std::vector<int64_t>(static_cast<size_t>(dims_), 0), lt);
    if (!global) internal("a local value without a previous version");
    arraysUsed_.insert(lv.index);
    kArrays_.insert(lv.index);
    ExprPtr gi;
    for (int d = 0; d < dims_; ++d)
      gi = d == 0 ? ivar(g_.iters[0])
                  : indexAdd(indexMul(gi, extent(lv.index, d)),
                             ivar(g_.iters[static_cast<size_t>(d)]));
    return load(g_.arrays.at(static_cast<size_t>(lv.index)), gi, lt);
  };
  ExprPtr value = lowerKernel(st.rhs);
  if (st.op != AssignOp::Set) value = binary(compoundOp(st.op), previous(), value);
  if (value->type != lt) value = cast(lt, value);
  if (usesStatusHelper(value)) usesStatus_ = true;
  std::string val = names_.take("v");
  std::vector<StmtPtr> compute;
  if (global) {
    // Outside the statement's region the point keeps its previous value.
    compute.push_back(localDecl(ct, val, zeroOf(lt), false));
    compute.push_back(ifThen(inStmt, {assign(val, value)}, {assign(val, previous())}));
  } else {
    compute.push_back(localDecl(ct, val, zeroOf(lt), false));
    compute.push_back(ifThen(inStmt, {assign(val, value)}));
  }
  int rb = plan_.resultBuffer[s];
  if (rb >= 0 && rings_.count(rb))
    compute.push_back(
        store(rings_.at(rb).name, ringIndex(rb, ivar(g_.iters[k]), iterVars()), var(val, lt)));
  if (regs_.count(static_cast<int>(s)))
    compute.push_back(assign(regs_.at(static_cast<int>(s)), var(val, lt)));
  int fin = plan_.finalWriteOf[s];
  if (fin >= 0) {
    ExprPtr own = within(ivar(g_.iters[k]), ivar(chunkLo_), ivar(chunkHi_));
    for (int d : inPlane()) {
      size_t x = static_cast<size_t>(d);
      own = binary(
          Op::And, own,
          within(ivar(g_.iters[x]), ivar(t0_[x]), indexAddConst(ivar(t0_[x]), v_.tile[x] - 1)));
    }
    ExprPtr gi;
    for (int d = 0; d < dims_; ++d)
      gi = d == 0 ? ivar(g_.iters[0])
                  : indexAdd(indexMul(gi, extent(fin, d)), ivar(g_.iters[static_cast<size_t>(d)]));
    compute.push_back(
        ifThen(own, {store(g_.shadows.at(static_cast<size_t>(fin)), gi, var(val, lt))}));
  }
  body.push_back(ifThen(active ? active : boolLit(true), compute));
  auto iters = prog_.iteratorNames();
  std::string text =
      fmt::format("Stage {} (step {}, statement {}), {} plane{} ahead: {} {} {}", s + 1,
                  ts.step + 1, ts.stmt + 1, ts.lead, ts.lead == 1 ? "" : "s",
                  toString(st.lhs, iters), assignOpSpelling(st.op), toString(st.rhs, iters));
  step_ = -1;
  stage_ = -1;
  return {comment(text), block(body), barrier()};
}

Function FusedGpu::streamKernel() {
  inKernel_ = true;
  plan_ = streamedPlan(prog_, a_);
  if (!plan_.supported) internal("a streamed fused kernel that the plan refuses: " + plan_.whyNot);
  Function f;
  std::vector<StmtPtr> kb;
  t0_.assign(static_cast<size_t>(dims_), "");
  lid_.assign(static_cast<size_t>(dims_), "");
  point_.assign(static_cast<size_t>(dims_), "");
  for (int d : inPlane()) {
    size_t k = static_cast<size_t>(d);
    t0_[k] = names_.take("t0_" + g_.iters[k]);
    lid_[k] = names_.take("tid_" + g_.iters[k]);
    point_[k] = names_.take("p_" + g_.iters[k]);
    int64_t lo = 0;
    bool first = true;
    for (auto& s : a_.stages)
      if (!s.region.empty) {
        lo = first ? s.region.lo[k] : std::min(lo, s.region.lo[k]);
        first = false;
      }
    kb.push_back(localDecl(CType::Int64, lid_[k], intrinsic(Intrinsic::LocalId, gridDim(d))));
    kb.push_back(
        localDecl(CType::Int64, t0_[k],
                  indexMul(intrinsic(Intrinsic::GroupId, gridDim(d)), intLit(v_.tile[k]))));
    kb.push_back(localDecl(CType::Int64, point_[k],
                           indexAdd(indexAddConst(ivar(t0_[k]), lo), ivar(lid_[k]))));
  }
  // The block's planes: a chunk, or all of them.
  chunkLo_ = names_.take("plane_lo");
  chunkHi_ = names_.take("plane_hi");
  int chunkDim = dims_ - 1;
  if (chunk_ > 0) {
    kb.push_back(localDecl(CType::Int64, chunkLo_,
                           indexMul(intrinsic(Intrinsic::GroupId, chunkDim), intLit(chunk_))));
    kb.push_back(localDecl(
        CType::Int64, chunkHi_,
        indexAddConst(indexMin(indexAddConst(ivar(chunkLo_), chunk_), streamExtent()), -1)));
  } else {
    kb.push_back(localDecl(CType::Int64, chunkLo_, intLit(0)));
    kb.push_back(localDecl(CType::Int64, chunkHi_, indexAddConst(streamExtent(), -1)));
  }
  // Rings (shared) and registers.
  int64_t shared = 0, lowest = 0;
  for (size_t b = 0; b < a_.buffers.size(); ++b) {
    const TileBuffer& buf = a_.buffers[b];
    std::string base = valueName(prog_, v_.seq, buf.value);
    base = base.substr(0, base.find(' '));
    CType ct = buf.value.kind == TileValue::Kind::Global
                   ? ctypeOf(prog_.arrays.at(static_cast<size_t>(buf.value.index)).type)
                   : ctypeOf(callAt(buf.value.step)
                                 .localScalars.at(static_cast<size_t>(buf.value.index))
                                 .type);
    std::string suffix = buf.producer >= 0 ? fmt::format("_s{}", buf.producer + 1) : "_in";
    if (!buf.shared) {
      if (buf.producer >= 0) regs_[buf.producer] = names_.take("r_" + base + suffix);
      continue;
    }
    Ring r;
    r.name = names_.take("sh_" + base + suffix);
    r.planes = buf.planes;
    r.planeElems = buf.elements / buf.planes;
    rings_[static_cast<int>(b)] = r;
    f.shared.push_back(sharedArray(ct, r.name, std::max<int64_t>(1, buf.elements)));
    shared += buf.elements * byteSize(ct);
    lowest = std::min(lowest, plan_.bufferLead[b] - buf.planes);
  }
  // Ring slots are (plane + bias * planes) mod planes, with the bias keeping every plane a block
  // touches (from plane_lo - prologue + lowest) non-negative.
  ringBias_ = plan_.prologue - lowest + 1;
  for (size_t s = 0; s < a_.stages.size(); ++s)
    if (plan_.previousRegister[s] && !regs_.count(static_cast<int>(s))) {
      std::string base = valueName(prog_, v_.seq, a_.stages[s].writes);
      base = base.substr(0, base.find(' '));
      regs_[static_cast<int>(s)] = names_.take(fmt::format("r_{}_s{}", base, s + 1));
    }
  q_ = names_.take("q");
  std::vector<StmtPtr> step;
  for (auto& [producer, reg] : regs_) {
    const TileValue& v = a_.stages[static_cast<size_t>(producer)].writes;
    ScalarType t = v.kind == TileValue::Kind::Global
                       ? prog_.arrays.at(static_cast<size_t>(v.index)).type
                       : callAt(v.step).localScalars.at(static_cast<size_t>(v.index)).type;
    step.push_back(localDecl(ctypeOf(t), reg, zeroOf(t), false));
  }
  for (auto& [b, r] : rings_)
    if (a_.buffers[static_cast<size_t>(b)].producer < 0)
      for (auto& x : loadRing(b)) step.push_back(x);
  step.push_back(barrier());
  for (size_t s = 0; s < a_.stages.size(); ++s)
    for (auto& x : streamStage(s)) step.push_back(x);
  kb.push_back(comment(fmt::format("Sweep: {} prologue step{}, then one step per plane.",
                                   plan_.prologue, plan_.prologue == 1 ? "" : "s")));
  kb.push_back(
      forStep(q_, indexAddConst(ivar(chunkLo_), -plan_.prologue), ivar(chunkHi_), intLit(1), step));
  inKernel_ = false;
  auto iters = prog_.iteratorNames();
  std::vector<std::string> callNames;
  for (int c : v_.seq.calls) callNames.push_back(fmt::format("{} {}", c, prog_.calls[c].name));
  std::vector<std::string> tile;
  for (int d : inPlane()) tile.push_back(std::to_string(v_.tile[static_cast<size_t>(d)]));
  std::string text = fmt::format(
      "Stream + time tile: {} fused call{} (calls {}), tile {} streaming {} ({}), {} threads, "
      "{} stage{}, {} bytes of shared memory, {:.1f}% of the computed points redundant.",
      v_.seq.calls.size(), v_.seq.calls.size() == 1 ? "" : "s", fmt::join(callNames, ", "),
      fmt::join(tile, "x"), iters[static_cast<size_t>(sd_)],
      chunk_ > 0 ? fmt::format("chunks of {} planes", chunk_) : "every plane",
      block_[0] * block_[1] * block_[2], a_.stages.size(), a_.stages.size() == 1 ? "" : "s", shared,
      a_.totals.redundancyPercent);
  return finishKernel(std::move(f), std::move(kb), shared, text);
}

// Host side: tiles over the written arrays' extents in the plane, chunks along the stream.
std::vector<ExprPtr> FusedGpu::streamGrid(std::vector<StmtPtr>& body) {
  std::vector<ExprPtr> grid;
  std::vector<int> dims = inPlane();
  for (size_t n = dims.size(); n-- > 0;) {
    int d = dims[n];
    ExprPtr ext;
    for (int a : written_) ext = ext ? indexMax(ext, extent(a, d)) : extent(a, d);
    std::string name = names_.take(std::string("blocks_") + "xyz"[grid.size()]);
    int64_t t = v_.tile[static_cast<size_t>(d)];
    body.push_back(
        localDecl(CType::Int64, name, binary(Op::Div, indexAddConst(ext, t - 1), intLit(t))));
    grid.push_back(ivar(name));
  }
  std::string name = names_.take(std::string("blocks_") + "xyz"[grid.size()]);
  ExprPtr chunks = chunk_ > 0
                       ? binary(Op::Div, indexAddConst(streamExtent(), chunk_ - 1), intLit(chunk_))
                       : intLit(1);
  body.push_back(localDecl(CType::Int64, name, chunks));
  grid.push_back(ivar(name));
  return grid;
}

}  // namespace tessel::gpu::fused
