// Tile regions: the backward pass of paper 001's Algorithm 2 over a fused sequence of stages.
#include "analysis/tile_regions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>

#include "support/saturating.h"

namespace tessel {

FusedSequence fuseCalls(const Program& prog, const std::vector<int>& body, int steps) {
  if (body.empty()) throw std::invalid_argument("fuseCalls: an empty body");
  if (steps < 1) throw std::invalid_argument("fuseCalls: steps must be at least 1");
  for (int c : body)
    if (c < 0 || c >= static_cast<int>(prog.calls.size()))
      throw std::invalid_argument(fmt::format("fuseCalls: no call {}", c));
  FusedSequence s;
  for (int k = 0; k < steps; ++k) s.calls.push_back(body[static_cast<size_t>(k) % body.size()]);
  return s;
}

FusedSequence fuseCallRange(const Program& prog, int first, int count) {
  if (count < 1 || first < 0 || first + count > static_cast<int>(prog.calls.size()))
    throw std::invalid_argument(
        fmt::format("fuseCallRange: calls {}..{} do not exist", first, first + count - 1));
  FusedSequence s;
  for (int c = first; c < first + count; ++c) s.calls.push_back(c);
  return s;
}

TileValue valueOf(const Reference& r, int step) {
  if (r.scalar) return {TileValue::Kind::LocalScalar, step, r.index};
  if (!r.array.local) return {TileValue::Kind::Global, -1, r.array.index};
  return {TileValue::Kind::LocalArray, step, r.array.index};
}

namespace {

Box emptyBox(int dims) {
  Box b;
  b.lo.assign(static_cast<size_t>(dims), 0);
  b.hi.assign(static_cast<size_t>(dims), -1);
  b.empty = true;
  return b;
}

void hullInto(Box& acc, const Box& b) {
  if (b.empty) return;
  if (acc.empty) {
    acc = b;
    return;
  }
  for (size_t d = 0; d < acc.lo.size(); ++d) {
    acc.lo[d] = std::min(acc.lo[d], b.lo[d]);
    acc.hi[d] = std::max(acc.hi[d], b.hi[d]);
  }
}

/// `b` moved by the reference's offsets; dimensions it does not depend on become [0, 0].
Box shifted(const Box& b, const Reference& a, int sign) {
  Box r = b;
  for (size_t d = 0; d < r.lo.size(); ++d) {
    if (auto o = a.along(static_cast<int>(d))) {
      r.lo[d] += sign * *o;
      r.hi[d] += sign * *o;
    } else {
      r.lo[d] = 0;
      r.hi[d] = 0;
    }
  }
  return r;
}

/// Points of b, counting one plane along the streamed dimension.
int64_t planePoints(const Box& b, int streamDim) {
  if (b.empty) return 0;
  int64_t n = 1;
  for (size_t d = 0; d < b.lo.size(); ++d)
    if (static_cast<int>(d) != streamDim) n = satMul(n, b.hi[d] - b.lo[d] + 1);
  return n;
}

Box intersect(const Box& a, const Box& b) {
  if (a.empty || b.empty) return emptyBox(static_cast<int>(a.lo.size()));
  Box r = a;
  for (size_t d = 0; d < r.lo.size(); ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::min(a.hi[d], b.hi[d]);
    if (r.hi[d] < r.lo[d]) r.empty = true;
  }
  return r;
}

/// The call at position `step` of the sequence.
const CallInst& stepCall(const Program& prog, const FusedSequence& seq, int step) {
  return prog.calls.at(static_cast<size_t>(seq.calls.at(static_cast<size_t>(step))));
}

ScalarType typeOf(const Program& prog, const FusedSequence& seq, const TileValue& v) {
  switch (v.kind) {
    case TileValue::Kind::Global:
      return prog.arrays.at(static_cast<size_t>(v.index)).type;
    case TileValue::Kind::LocalArray:
      return stepCall(prog, seq, v.step).localArrays.at(static_cast<size_t>(v.index)).type;
    case TileValue::Kind::LocalScalar:
      return stepCall(prog, seq, v.step).localScalars.at(static_cast<size_t>(v.index)).type;
  }
  return ScalarType::Double;
}

/// The global array an unproduced read of `v` takes its values from (-1: none).
int sourceArray(const Program& prog, const FusedSequence& seq, const TileValue& v) {
  if (v.kind == TileValue::Kind::Global) return v.index;
  if (v.kind == TileValue::Kind::LocalArray)
    return stepCall(prog, seq, v.step).localArrays.at(static_cast<size_t>(v.index)).scratchOf;
  return -1;
}

/// What one read needs, remembered for the buffer accounting.
struct ReadNeed {
  int reader = -1;    // stage
  int producer = -1;  // latest earlier stage writing the value; -1: read from global memory
  TileValue value;
  const Reference* ref = nullptr;  // in TileStage::accesses
  Box box;
};

}  // namespace

namespace {

/// Read or written at the evaluation point itself (a per-point scalar always is).
bool atCentre(const Reference& r) { return !r.fixedPlane() && !r.offCentre(); }

/// TileStage::computedIn and TileHull::inRegisters for the all-dimensions-tiled kernel. A value
/// is taken with all its writers (a chain: `m0 = ...; m0 += ...;`, each reading the one before
/// at its centre), when its last writer is reached, from the last stage back, so that its
/// reader's own placement is known: a value whose reader is itself computed in a later stage's
/// loop is computed there too.
void placeInRegisters(const Program& prog, const FusedSequence& seq, TileAnalysis& a) {
  std::vector<TileStage>& st = a.stages;
  const int n = static_cast<int>(st.size());
  for (int last = n; last-- > 0;) {
    const TileValue v = st[static_cast<size_t>(last)].writes;
    if (v.kind == TileValue::Kind::Global || sourceArray(prog, seq, v) >= 0)
      continue;  // a result, or a scratch copy loaded from global memory
    std::vector<int> writers;
    for (int s = 0; s < n; ++s)
      if (st[static_cast<size_t>(s)].writes == v) writers.push_back(s);
    if (writers.back() != last) continue;  // taken at its last writer
    bool ok = true;
    for (size_t k = 0; k < writers.size() && ok; ++k) {
      const TileStage& w = st[static_cast<size_t>(writers[k])];
      const Stmt& stmt =
          prog.calls.at(static_cast<size_t>(w.call)).stmts.at(static_cast<size_t>(w.stmt));
      // Every writer live and at its own point; the first a plain assignment.
      ok = !w.region.empty && atCentre(w.accesses.write) && (k > 0 || stmt.op == AssignOp::Set);
    }
    // Every read at the centre: by a later writer (the chain's previous value), or by the one
    // reader, after the last writer.
    int reader = -1;
    for (int s = 0; s < n && ok; ++s) {
      const TileStage& r = st[static_cast<size_t>(s)];
      if (r.region.empty) continue;  // a dead stage reads nothing
      const bool writer = std::find(writers.begin(), writers.end(), s) != writers.end();
      for (const Reference& ref : r.accesses.reads) {
        if (valueOf(ref, r.step) != v) continue;
        if (!atCentre(ref) || (writer && s == writers.front()) ||
            (!writer && (s < last || (reader >= 0 && reader != s))))
          ok = false;
        else if (!writer)
          reader = s;
      }
    }
    if (!ok || reader < 0) continue;
    const int at = st[static_cast<size_t>(reader)].computedIn >= 0
                       ? st[static_cast<size_t>(reader)].computedIn
                       : reader;
    // Computed later, at `at`'s point, each writer must read what it read in its own turn: no
    // stage up to `at` but the chain's own writes what it reads.
    for (int wi : writers)
      for (int s = wi + 1; s <= at && ok; ++s) {
        if (st[static_cast<size_t>(s)].writes == v) continue;
        for (const Reference& ref : st[static_cast<size_t>(wi)].accesses.reads)
          ok = ok &&
               st[static_cast<size_t>(s)].writes != valueOf(ref, st[static_cast<size_t>(wi)].step);
      }
    if (ok)
      for (int wi : writers) st[static_cast<size_t>(wi)].computedIn = at;
  }
}

}  // namespace

TileAnalysis analyzeTile(const Program& prog, const FusedSequence& seq, const TileSpec& spec) {
  const int dims = prog.dims();
  if (static_cast<int>(spec.tile.size()) != dims)
    throw std::invalid_argument(
        fmt::format("analyzeTile: a tile of {} extents for {} dimensions", spec.tile.size(), dims));
  if (spec.streamDim >= dims)
    throw std::invalid_argument("analyzeTile: the streamed dimension does not exist");
  TileAnalysis a;
  a.spec = spec;
  a.seq = seq;
  Box tile;
  for (int d = 0; d < dims; ++d) {
    int64_t e = d == spec.streamDim ? 1 : spec.tile[static_cast<size_t>(d)];
    if (e < 1) throw std::invalid_argument("analyzeTile: a tile extent below 1");
    tile.lo.push_back(0);
    tile.hi.push_back(e - 1);
  }

  // The stages and their accesses, in execution order.
  for (size_t step = 0; step < seq.calls.size(); ++step) {
    const CallInst& c = prog.calls.at(static_cast<size_t>(seq.calls[step]));
    for (size_t k = 0; k < c.stmts.size(); ++k) {
      TileStage& s = a.stages.emplace_back();
      s.step = static_cast<int>(step);
      s.call = seq.calls[step];
      s.stmt = static_cast<int>(k);
      // Folded, the stage reads A where it read `A op B` (analysis/folding.h).
      Stmt folded = c.stmts[k];
      folded.rhs = applyFolds(prog, c, folded.rhs, spec.folds);
      s.rhs = folded.rhs;
      s.accesses = stmtAccesses(folded);
      s.writes = valueOf(s.accesses.write, s.step);
      for (const RetimedStmt& r : spec.retimed)
        if (spec.streamDim >= 0 && r.call == s.call && r.stmt == s.stmt) {
          // A retimed statement reads every plane when it is the newest: `hi` beyond its output.
          s.retimed = r;
          for (Reference& ref : s.accesses.reads)
            for (Subscript& sub : ref.subs)
              if (!sub.fixed() && sub.iter == spec.streamDim) sub.offset = r.hi();
        }
    }
  }
  const std::vector<TileStage>& st = a.stages;
  // Results: the requested global arrays, or every one a stage writes.
  std::vector<bool> written(prog.arrays.size(), false);
  for (auto& s : st)
    if (s.writes.kind == TileValue::Kind::Global)
      written[static_cast<size_t>(s.writes.index)] = true;
  if (spec.results) {
    a.results = *spec.results;
  } else {
    for (size_t k = 0; k < written.size(); ++k)
      if (written[k]) a.results.push_back(static_cast<int>(k));
  }

  // Reads of values produced in the sequence must be relative to the tile.
  for (size_t s = 0; s < st.size(); ++s)
    for (auto& r : st[s].accesses.reads) {
      if (!r.fixedPlane()) continue;
      for (size_t w = 0; w < st.size(); ++w)
        if (st[w].writes == valueOf(r, st[s].step) && a.supported) {
          a.supported = false;
          a.whyNot = fmt::format("a fixed plane of '{}', which the sequence writes, is read",
                                 valueName(prog, seq, valueOf(r, st[s].step)));
        }
    }

  // The backward pass: need[v] is the hull of the points of v that must be right.
  std::map<TileValue, Box> need;
  for (int r : a.results) need[{TileValue::Kind::Global, -1, r}] = tile;
  std::vector<ReadNeed> reads;
  for (size_t s = st.size(); s-- > 0;) {
    TileStage& out = a.stages[s];
    auto it = need.find(out.writes);
    out.region = it == need.end() ? emptyBox(dims) : shifted(it->second, out.accesses.write, -1);
    if (out.region.empty) continue;  // nothing later needs it: a dead stage
    for (auto& r : out.accesses.reads) {
      ReadNeed rn;
      rn.reader = static_cast<int>(s);
      rn.value = valueOf(r, out.step);
      rn.ref = &r;
      rn.box = shifted(out.region, r, +1);
      for (size_t w = s; w-- > 0;)
        if (st[w].writes == rn.value) {
          rn.producer = static_cast<int>(w);
          break;
        }
      if (!r.fixedPlane() || rn.producer < 0)
        hullInto(need.try_emplace(rn.value, emptyBox(dims)).first->second, rn.box);
      reads.push_back(rn);
    }
  }

  // With retimed stages, the previous values a ping-pong's repeated statement keeps at the
  // points it does not compute are those before the kernel (TileStage::previousFromMemory).
  if (spec.streamDim >= 0 && !spec.retimed.empty())
    for (size_t s = 0; s < st.size(); ++s) {
      TileStage& out = a.stages[s];
      if (out.writes.kind != TileValue::Kind::Global || out.region.empty) continue;
      // A compound assignment reads the current version where it computes: not from memory.
      out.previousFromMemory = std::none_of(out.accesses.reads.begin(), out.accesses.reads.end(),
                                            [](const Reference& r) { return r.lhs; });
      for (size_t w = 0; w < s; ++w)
        if (st[w].writes == out.writes && !st[w].region.empty &&
            (st[w].call != out.call || st[w].stmt != out.stmt))
          out.previousFromMemory = false;
    }

  // Per stage counts.
  a.totals.tilePoints = planePoints(tile, spec.streamDim);
  for (auto& s : a.stages) {
    s.points = planePoints(s.region, spec.streamDim);
    // Streamed, the planes are not compared: a stage ahead of the output plane is not redundant.
    Box own = tile;
    if (spec.streamDim >= 0 && !s.region.empty) {
      own.lo[static_cast<size_t>(spec.streamDim)] =
          s.region.lo[static_cast<size_t>(spec.streamDim)];
      own.hi[static_cast<size_t>(spec.streamDim)] =
          s.region.hi[static_cast<size_t>(spec.streamDim)];
    }
    s.redundant = s.points - planePoints(intersect(s.region, own), spec.streamDim);
    if (spec.streamDim >= 0 && !s.region.empty)
      s.lead = s.region.hi[static_cast<size_t>(spec.streamDim)];
    a.totals.computed = satAdd(a.totals.computed, s.points);
    a.totals.redundant = satAdd(a.totals.redundant, s.redundant);
  }
  for (auto& r : reads)
    if (r.producer >= 0) a.stages[static_cast<size_t>(r.reader)].readsProduced = true;

  // Inputs: reads with no earlier writer come from global memory.
  std::map<int, Box> footprint;
  std::map<TileValue, std::vector<const ReadNeed*>> globalReads;
  std::map<int, std::vector<const ReadNeed*>> producedReads;
  for (auto& r : reads) {
    if (r.producer >= 0) {
      producedReads[r.producer].push_back(&r);
      continue;
    }
    int src = sourceArray(prog, seq, r.value);
    if (src < 0) continue;  // sema rejects reads of locals before their assignment
    auto [fp, fresh] = footprint.try_emplace(src, emptyBox(dims));
    hullInto(fp->second, r.box);
    // Streamed, a fixed plane (of an array the sequence does not write: checked above) is read
    // from global memory at each use: a ring holds the planes around the sweep's, not this one.
    if (spec.streamDim >= 0 && r.ref->fixedPlane()) continue;
    globalReads[r.value].push_back(&r);
  }
  // A folded array's partner is loaded with it, over its footprint.
  std::map<int, int> foldedInto;
  for (const Fold& f : spec.folds)
    if (auto it = footprint.find(f.array.index); it != footprint.end() && !f.array.local) {
      footprint[f.partner.index] = it->second;
      foldedInto[f.partner.index] = f.array.index;
    }
  for (auto& [arr, box] : footprint) {
    TileInput in;
    in.array = arr;
    if (auto it = foldedInto.find(arr); it != foldedInto.end()) in.foldedInto = it->second;
    in.footprint = box;
    in.points = planePoints(box, spec.streamDim);
    a.inputs.push_back(in);
    a.totals.loadsPerPoint += static_cast<double>(in.points);
  }
  if (a.totals.tilePoints > 0) a.totals.loadsPerPoint /= static_cast<double>(a.totals.tilePoints);
  int storedResults = 0;
  for (int r : a.results) storedResults += written[static_cast<size_t>(r)] ? 1 : 0;
  a.totals.storesPerPoint = storedResults;

  // Buffers: what is read at an offset lives in shared memory, centre-only reads in registers.
  auto makeBuffer = [&](const TileValue& v, int producer, const Box& box,
                        const std::vector<const ReadNeed*>& rs) {
    TileBuffer b;
    b.value = v;
    b.producer = producer;
    b.box = box;
    b.shared = false;
    int64_t lo = INT64_MAX, hi = INT64_MIN;  // the window along the streamed dimension
    // With retimed stages, whose reads run ahead of their outputs, the planes read (the
    // reader's lead added) and the previous values of later writers of a produced global array.
    // A register holds one plane: the reads of other planes need a ring.
    const bool absolute = spec.streamDim >= 0 && !spec.retimed.empty();
    int64_t readLo = INT64_MAX, readHi = INT64_MIN;  // the planes read, the readers' leads added
    for (const ReadNeed* r : rs) {
      b.shared = b.shared || r->ref->offCentre(absolute ? spec.streamDim : -1);
      int64_t o = r->ref->along(spec.streamDim).value_or(0);
      const int64_t plane = o + a.stages[static_cast<size_t>(r->reader)].lead;
      readLo = std::min(readLo, plane), readHi = std::max(readHi, plane);
      if (absolute) o = plane;
      lo = std::min(lo, o), hi = std::max(hi, o);
    }
    // An input read by stages of different leads spans the planes they read, which can be more
    // than its offsets span (denoise: diffusivity's stage, a plane ahead, reads u at k + 1, and
    // rician's at k - 1: four planes, not three): at least that many.
    if (!absolute && spec.streamDim >= 0 && producer < 0 && readHi >= readLo)
      hi = std::max(hi, lo + readHi - readLo);
    if (absolute && producer >= 0 && v.kind == TileValue::Kind::Global)
      for (size_t s = static_cast<size_t>(producer) + 1; s < a.stages.size(); ++s) {
        if (a.stages[s].writes != v || a.stages[s].region.empty) continue;
        if (!a.stages[s].previousFromMemory) lo = std::min(lo, a.stages[s].lead);
        break;  // later writers take this one's value
      }
    b.planes = b.window = spec.streamDim >= 0 ? hi - lo + 1 : 1;
    if (absolute && b.planes > 1) b.shared = true;
    // A streamed input ring keeps one plane more than its readers span: the newest plane loads
    // into the slot that no thread reads any more, so that no barrier stands before the load
    // (lower_gpu_fused_rings.cpp; issue 11: one barrier per plane and step).
    if (spec.streamDim >= 0 && spec.sparePlane && producer < 0 && b.shared) ++b.planes;
    b.elements = satMul(planePoints(box, spec.streamDim), b.planes);
    if (spec.streamDim < 0) b.elements = box.points();
    b.bytes = b.shared ? satMul(b.elements, typeBytes(typeOf(prog, seq, v))) : 0;
    a.totals.sharedBytes = satAdd(a.totals.sharedBytes, b.bytes);
    a.buffers.push_back(b);
  };
  for (auto& [v, rs] : globalReads) {
    const bool inMemory = spec.streamDim >= 0 && v.kind == TileValue::Kind::Global &&
                          std::find(spec.globalInputs.begin(), spec.globalInputs.end(), v.index) !=
                              spec.globalInputs.end() &&
                          !written[static_cast<size_t>(v.index)];
    if (inMemory) continue;  // read from global memory at each use: no buffer
    Box box = emptyBox(dims);
    for (const ReadNeed* r : rs) hullInto(box, r->box);
    makeBuffer(v, -1, box, rs);
  }
  for (auto& [p, rs] : producedReads) {
    const TileStage& s = a.stages[static_cast<size_t>(p)];
    makeBuffer(s.writes, p, shifted(s.region, s.accesses.write, +1), rs);
  }

  // Values the all-dimensions-tiled kernel keeps in registers (TileHull::inRegisters).
  if (spec.streamDim < 0) {
    placeInRegisters(prog, seq, a);
    for (TileStage& s : a.stages) {
      if (s.computedIn >= 0 && std::find(a.registerCandidates.begin(), a.registerCandidates.end(),
                                         s.writes) == a.registerCandidates.end())
        a.registerCandidates.push_back(s.writes);
      if (!spec.registerValues) s.computedIn = -1;  // only said (the hint of analyze)
    }
  }

  // Hulls: one on-chip copy per value the sequence writes.
  std::map<TileValue, bool> seen;
  for (auto& s : st) {
    if (seen[s.writes]) continue;
    seen[s.writes] = true;
    TileHull h;
    h.value = s.writes;
    h.inRegisters = s.computedIn >= 0;
    auto it = need.find(h.value);
    h.box = it == need.end() ? emptyBox(dims) : it->second;
    h.elements = h.box.points();
    h.bytes = satMul(h.elements, typeBytes(typeOf(prog, seq, h.value)));
    for (size_t k = 0; k < st.size() && h.firstWriter < 0; ++k) {
      if (a.stages[k].region.empty) continue;  // a dead stage accesses nothing
      bool readsIt = false;
      for (auto& r : st[k].accesses.reads) readsIt = readsIt || valueOf(r, st[k].step) == h.value;
      if (readsIt) break;
      if (st[k].writes == h.value) h.firstWriter = static_cast<int>(k);
    }
    if (sourceArray(prog, seq, h.value) >= 0) {
      h.loads = h.elements;
      if (h.firstWriter >= 0)
        h.loads -=
            intersect(h.box, shifted(st[static_cast<size_t>(h.firstWriter)].region,
                                     st[static_cast<size_t>(h.firstWriter)].accesses.write, +1))
                .points();
    }
    if (!h.inRegisters) a.totals.sharedBytesHulls = satAdd(a.totals.sharedBytesHulls, h.bytes);
    a.hulls.push_back(h);
  }
  if (a.totals.computed > 0)
    a.totals.redundancyPercent =
        100.0 * static_cast<double>(a.totals.redundant) / static_cast<double>(a.totals.computed);
  return a;
}

std::vector<int64_t> accumulatedHalo(const Program& prog, const FusedSequence& seq, int streamDim) {
  TileSpec spec;
  spec.tile.assign(static_cast<size_t>(prog.dims()), 1);
  spec.streamDim = streamDim;
  TileAnalysis a = analyzeTile(prog, seq, spec);
  std::vector<int64_t> halo(static_cast<size_t>(prog.dims()), 0);
  // Tiled, a block's threads loop over each stage's region on its own: the widest region
  // decides. Streamed, a thread keeps one point of the plane through every stage (its registers
  // carry the values from stage to stage): the block spans the union of the regions, which is
  // wider where the reads lean to one side (t0[k-2]: stage regions k -2..-2 and 0..0, span 2).
  std::vector<int64_t> lo(halo.size(), INT64_MAX), hi(halo.size(), INT64_MIN);
  for (auto& s : a.stages)
    if (!s.region.empty)
      for (size_t d = 0; d < halo.size(); ++d) {
        if (static_cast<int>(d) == streamDim) continue;
        halo[d] = std::max(halo[d], s.region.hi[d] - s.region.lo[d]);
        lo[d] = std::min(lo[d], s.region.lo[d]);
        hi[d] = std::max(hi[d], s.region.hi[d]);
      }
  if (streamDim >= 0)
    for (size_t d = 0; d < halo.size(); ++d)
      if (static_cast<int>(d) != streamDim && lo[d] <= hi[d]) halo[d] = hi[d] - lo[d];
  return halo;
}

std::optional<std::vector<int64_t>> tileForBlock(const Program& prog, const FusedSequence& seq,
                                                 const std::vector<int64_t>& block, int streamDim) {
  if (static_cast<int>(block.size()) != prog.dims())
    throw std::invalid_argument("tileForBlock: one block extent per dimension is needed");
  std::vector<int64_t> halo = accumulatedHalo(prog, seq, streamDim);
  std::vector<int64_t> tile(block.size(), 1);
  for (size_t d = 0; d < block.size(); ++d) {
    if (static_cast<int>(d) == streamDim) continue;
    tile[d] = block[d] - halo[d];
    if (tile[d] < 1) return std::nullopt;
  }
  return tile;
}

std::string valueName(const Program& prog, const FusedSequence& seq, const TileValue& v) {
  switch (v.kind) {
    case TileValue::Kind::Global:
      return prog.arrays.at(static_cast<size_t>(v.index)).name;
    case TileValue::Kind::LocalArray:
      return fmt::format(
          "{} (step {})",
          stepCall(prog, seq, v.step).localArrays.at(static_cast<size_t>(v.index)).name,
          v.step + 1);
    case TileValue::Kind::LocalScalar:
      return fmt::format(
          "{} (local scalar, step {})",
          stepCall(prog, seq, v.step).localScalars.at(static_cast<size_t>(v.index)).name,
          v.step + 1);
  }
  return "?";
}

}  // namespace tessel
