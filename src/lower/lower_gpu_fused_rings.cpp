// The streamed fused kernel's rings of shared planes and registers (lower_gpu_fused_rings.h).
#include "lower/lower_gpu_fused_rings.h"

namespace tessel::gpu::fused {

std::string StreamRings::inputName(const TileBuffer& b) const {
  std::string name = valueName(c_.prog, c_.v.seq, b.value);
  if (b.value.kind != TileValue::Kind::Global) return name;
  const Fold* f = foldOf(c_, b.value.index);
  return f ? fmt::format("{} (folded: it holds {}, computed as it is loaded)", name, f->text)
           : name;
}

int64_t StreamRings::declare(Function& f) {
  int64_t shared = 0, lowest = 0;
  for (size_t b = 0; b < c_.a.buffers.size(); ++b) {
    const TileBuffer& buf = c_.a.buffers[b];
    std::string base = valueStem(c_, buf.value);
    CType ct = ctypeOf(elementType(c_, buf.value));
    std::string suffix = buf.producer >= 0 ? fmt::format("_s{}", buf.producer + 1) : "_in";
    if (!buf.shared) {
      if (buf.producer >= 0) regs_[buf.producer] = registers("r_" + base + suffix);
      continue;
    }
    Ring r;
    r.name = c_.names.take("sh_" + base + suffix);
    r.planes = buf.planes;
    r.planeElems = buf.elements / buf.planes;
    rings_[static_cast<int>(b)] = r;
    f.shared.push_back(sharedArray(ct, r.name, std::max<int64_t>(1, buf.elements)));
    shared += buf.elements * byteSize(ct);
    lowest = std::min(lowest, plan_.bufferLead[b] - buf.planes);
  }
  // Ring slots are (plane + bias * planes) mod planes, with the bias keeping every plane a block
  // touches (from plane_lo - prologue + lowest) non-negative.
  bias_ = plan_.prologue - lowest + 1;
  for (size_t s = 0; s < c_.a.stages.size(); ++s)
    if (plan_.previousRegister[s] && !regs_.count(static_cast<int>(s)))
      regs_[static_cast<int>(s)] =
          registers(fmt::format("r_{}_s{}", valueStem(c_, c_.a.stages[s].writes), s + 1));
  return shared;
}

std::vector<std::string> StreamRings::registers(const std::string& stem) {
  int copies = 1;
  for (int d : inPlane(c_)) copies *= unrollAlong(c_, d);
  std::vector<std::string> out;
  for (int u = 0; u < copies; ++u)
    out.push_back(c_.names.take(copies == 1 ? stem : fmt::format("{}_u{}", stem, u)));
  return out;
}

std::vector<StmtPtr> StreamRings::declareRegisters() const {
  std::vector<StmtPtr> out;
  for (auto& [producer, regs] : regs_) {
    ScalarType t = elementType(c_, c_.a.stages[static_cast<size_t>(producer)].writes);
    for (const std::string& reg : regs) out.push_back(localDecl(ctypeOf(t), reg, zeroOf(t), false));
  }
  return out;
}

std::vector<StmtPtr> StreamRings::loadInputs() {
  std::vector<StmtPtr> out;
  for (auto& [b, r] : rings_)
    if (c_.a.buffers[static_cast<size_t>(b)].producer < 0)
      for (auto& x : loadRing(b)) out.push_back(x);
  return out;
}

ExprPtr StreamRings::ringIndex(int buffer, const ExprPtr& plane,
                               const std::vector<ExprPtr>& at) const {
  const TileBuffer& b = c_.a.buffers.at(static_cast<size_t>(buffer));
  const Ring& r = rings_.at(buffer);
  // A ring of one plane (a retimed reader's) has one slot.
  ExprPtr acc =
      r.planes == 1
          ? nullptr
          : indexMul(binary(Op::Mod, indexAddConst(plane, bias_ * r.planes), intLit(r.planes)),
                     intLit(r.planeElems));
  ExprPtr rel;
  for (int d : inPlane(c_)) {
    size_t k = static_cast<size_t>(d);
    ExprPtr x = indexSub(at[k], indexAddConst(ivar(n_.t0[k]), b.box.lo[k]));
    rel = rel ? indexAdd(indexMul(rel, intLit(b.box.hi[k] - b.box.lo[k] + 1)), x) : x;
  }
  return acc ? indexAdd(acc, rel) : rel;
}

ExprPtr StreamRings::read(const TileValue& v, int stage, const std::vector<int64_t>& off,
                          ScalarType t) const {
  StreamSource src = streamSource(c_.a, stage, v);
  if (src.kind == StreamSource::Kind::Register || src.kind == StreamSource::Kind::Missing)
    return var(regs_.at(src.producer).at(static_cast<size_t>(copy_)), t);
  if (src.kind != StreamSource::Kind::Ring) internal("a streamed read without a buffer");
  std::vector<ExprPtr> at = iterVars(c_);
  for (int d = 0; d < c_.dims; ++d)
    at[static_cast<size_t>(d)] =
        indexAddConst(at[static_cast<size_t>(d)], off[static_cast<size_t>(d)]);
  return load(rings_.at(src.buffer).name, ringIndex(src.buffer, at[static_cast<size_t>(c_.sd)], at),
              t);
}

std::vector<StmtPtr> StreamRings::keep(size_t s, const std::string& val, ScalarType t) const {
  std::vector<StmtPtr> out;
  int rb = plan_.resultBuffer[s];
  if (rb >= 0 && rings_.count(rb))
    out.push_back(store(rings_.at(rb).name,
                        ringIndex(rb, ivar(c_.g.iters[static_cast<size_t>(c_.sd)]), iterVars(c_)),
                        var(val, t)));
  if (regs_.count(static_cast<int>(s)))
    out.push_back(
        assign(regs_.at(static_cast<int>(s)).at(static_cast<size_t>(copy_)), var(val, t)));
  return out;
}

StreamRings::Element StreamRings::element(int buffer, const ExprPtr& plane, const ExprPtr& step,
                                          const std::vector<std::string>& ys, Namer& scope) const {
  const TileBuffer& b = c_.a.buffers.at(static_cast<size_t>(buffer));
  const int src = b.value.index;
  Element e;
  std::vector<ExprPtr> at(static_cast<size_t>(c_.dims));
  at[static_cast<size_t>(c_.sd)] = plane;
  e.inside = binary(Op::And, binary(Op::Ge, plane, intLit(0)),
                    binary(Op::Lt, plane, x_.extent(src, c_.sd)));
  // In the prologue, not before a stage reads the plane (StreamedPlan::loadFrom).
  if (int64_t from = plan_.loadFrom.at(static_cast<size_t>(buffer)); from > -plan_.prologue)
    e.inside =
        binary(Op::And, binary(Op::Ge, step, indexAddConst(ivar(n_.chunkLo), from)), e.inside);
  std::vector<int> dims = inPlane(c_);
  for (size_t n = 0; n < dims.size(); ++n) {
    size_t k = static_cast<size_t>(dims[n]);
    std::string x = scope.take("x_" + c_.g.iters[k]);
    e.decls.push_back(localDecl(CType::Int64, x,
                                indexAdd(indexAddConst(ivar(n_.t0[k]), b.box.lo[k]), ivar(ys[n]))));
    at[k] = ivar(x);
    e.inside = binary(Op::And, e.inside,
                      binary(Op::And, binary(Op::Ge, ivar(x), intLit(0)),
                             binary(Op::Lt, ivar(x), x_.extent(src, dims[n]))));
  }
  e.global = x_.rowMajor(src, at);
  e.ring = ringIndex(buffer, plane, at);
  return e;
}

// Cooperative, without a division: per in-plane dimension a loop from the thread's own index
// in steps of the block's threads, so that every thread loads its own point and the threads at
// the block's edge the halo beyond it.
std::vector<StmtPtr> StreamRings::loadRing(int buffer) {
  const TileBuffer& b = c_.a.buffers.at(static_cast<size_t>(buffer));
  const Ring& r = rings_.at(buffer);
  const int64_t lead = plan_.bufferLead[static_cast<size_t>(buffer)];
  const int src = b.value.index;
  u_.array(src);
  Namer scope = c_.names;
  std::vector<int> dims = inPlane(c_);
  std::vector<std::string> loopVar;
  for (int d : dims) loopVar.push_back(scope.take("y_" + c_.g.iters[static_cast<size_t>(d)]));
  const std::string what = inputName(b);
  std::vector<StmtPtr> loop;
  const std::string z = scope.take("z");
  loop.push_back(localDecl(CType::Int64, z, indexAddConst(ivar(n_.q), lead)));
  Element e = element(buffer, ivar(z), ivar(n_.q), loopVar, scope);
  std::vector<StmtPtr> body = e.decls;
  body.push_back(ifThen(e.inside, {store(r.name, e.ring, x_.element(src, e.global))}));
  for (size_t n = dims.size(); n-- > 0;) {
    size_t k = static_cast<size_t>(dims[n]);
    body = {cooperativeLoop(loopVar[n], ivar(n_.lid[k]), intLit(b.box.hi[k] - b.box.lo[k]),
                            intLit(threads(c_, dims[n])), body)};
  }
  loop.insert(loop.end(), body.begin(), body.end());
  // With a spare plane (the ring holds a plane more than its readers span: tile_regions.cpp),
  // the slot the newest plane goes to is one no thread reads any more: no barrier before the
  // load (lir::freshBlock).
  const bool spare = b.planes > b.window;
  StmtPtr load = spare ? freshBlock(loop) : block(loop);
  // With prefetch, pass prefetch-planes loads it a step ahead (into registers, while the step
  // before computes), where the block's sweep has a next step.
  if (auto pf = prefetch_.find(buffer); pf != prefetch_.end())
    load =
        planeLoad(load, {"'" + what + "'", pf->second, n_.q,
                         binary(Op::Le, indexAddConst(ivar(n_.q), 1), ivar(n_.chunkHi)), nullptr});
  return {comment(spare ? fmt::format("The newest plane of {} ({} elements) into its ring, in "
                                      "the spare slot (no thread reads it any more).",
                                      what, r.planeElems)
                        : fmt::format("The newest plane of {} ({} elements) into its ring.", what,
                                      r.planeElems)),
          load};
}

std::vector<StmtPtr> StreamRings::startPrefetch() {
  std::vector<StmtPtr> out;
  if (!c_.prefetch) return out;
  // Prefetching (pass prefetch-planes): each input ring's registers start here, with the
  // first step's plane.
  ExprPtr first = indexAddConst(ivar(n_.chunkLo), -plan_.prologue);
  for (auto& [buffer, r] : rings_) {
    const TileBuffer& b = c_.a.buffers[static_cast<size_t>(buffer)];
    if (b.producer >= 0) continue;
    const std::string& stem = prefetch_[buffer] = c_.names.take("pf_" + valueStem(c_, b.value));
    out.push_back(planeStart({"'" + inputName(b) + "'", stem, "", nullptr, first}));
  }
  return out;
}

}  // namespace tessel::gpu::fused
