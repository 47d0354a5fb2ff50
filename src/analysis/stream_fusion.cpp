// The streamed plan of a fused sequence: rings, sources and prologue (see stream_fusion.h).
#include "analysis/stream_fusion.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessel {

namespace {

/// One read of a stage: a value through a reference (default: the centre). `previous`: the
/// stage's own left-hand side, for the points it does not compute.
struct StreamRead {
  int stage = -1;
  TileValue value;
  Reference ref;
  bool previous = false;
  int64_t along(int d) const { return ref.along(d).value_or(0); }
};

std::vector<StreamRead> readsOf(const TileAnalysis& a) {
  std::vector<StreamRead> out;
  for (size_t s = 0; s < a.stages.size(); ++s) {
    const TileStage& ts = a.stages[s];
    if (ts.region.empty) continue;
    for (const Reference& r : ts.accesses.reads)
      if (!r.fixedPlane())  // a fixed plane is read from global memory (analyzeTile)
        out.push_back({static_cast<int>(s), valueOf(r, ts.step), r, false});
    if (ts.writes.kind == TileValue::Kind::Global)
      out.push_back({static_cast<int>(s), ts.writes, Reference{}, true});
  }
  return out;
}

/// `a` lies in `b` along every dimension but the streamed one, `k`.
bool inPlane(const Box& a, const Box& b, size_t k) {
  for (size_t d = 0; d < a.lo.size(); ++d)
    if (d != k && (a.lo[d] < b.lo[d] || a.hi[d] > b.hi[d])) return false;
  return true;
}

}  // namespace

StreamSource streamSource(const TileAnalysis& a, int stage, const TileValue& v) {
  StreamSource src;
  for (int w = stage; w-- > 0;) {
    const TileStage& ts = a.stages[static_cast<size_t>(w)];
    if (ts.writes != v || ts.region.empty) continue;
    src.producer = w;
    src.kind = StreamSource::Kind::Missing;
    for (size_t b = 0; b < a.buffers.size(); ++b)
      if (a.buffers[b].producer == w) {
        src.kind = a.buffers[b].shared ? StreamSource::Kind::Ring : StreamSource::Kind::Register;
        src.buffer = static_cast<int>(b);
      }
    return src;
  }
  for (size_t b = 0; b < a.buffers.size(); ++b)
    if (a.buffers[b].producer < 0 && a.buffers[b].value == v && a.buffers[b].shared) {
      src.kind = StreamSource::Kind::Ring;
      src.buffer = static_cast<int>(b);
    }
  return src;
}

namespace {

/// StreamedPlan::stageFrom, loadFrom and prologue: a stage is needed from the step at which it
/// computes the first plane of its region; a producer (or an input ring's load) from the first
/// step at which a needed reader reads its plane (readers come later in the sequence: stages are
/// walked backwards); the prologue reaches back to the earliest of these.
void firstSteps(const TileAnalysis& a, const std::vector<StreamRead>& reads, StreamedPlan& p) {
  const int sd = a.spec.streamDim;
  const size_t k = static_cast<size_t>(sd);
  p.stageFrom.assign(a.stages.size(), INT64_MAX);
  p.loadFrom.assign(a.buffers.size(), INT64_MAX);
  for (size_t s = 0; s < a.stages.size(); ++s)
    if (!a.stages[s].region.empty) p.stageFrom[s] = a.stages[s].region.lo[k] - a.stages[s].lead;
  for (size_t s = a.stages.size(); s-- > 0;) {
    if (p.stageFrom[s] == INT64_MAX) continue;
    // A retimed stage reads from the first step that adds a part to its first output.
    const int64_t from = p.stageFrom[s] - p.accumulateAhead[s], lead = a.stages[s].lead;
    p.prologue = std::max(p.prologue, -from);
    for (const StreamRead& r : reads) {
      if (r.stage != static_cast<int>(s)) continue;
      StreamSource src = streamSource(a, r.stage, r.value);
      if (src.kind == StreamSource::Kind::Global) continue;
      if (r.previous && p.previousFromMemory[s]) continue;
      // The step at which the read plane was produced or loaded.
      int64_t plane = lead + r.along(sd);
      if (src.producer >= 0) {
        size_t w = static_cast<size_t>(src.producer);
        int64_t at = from + plane - a.stages[w].lead;
        p.stageFrom[w] = std::min(p.stageFrom[w], at);
      } else if (src.buffer >= 0) {
        size_t b = static_cast<size_t>(src.buffer);
        p.loadFrom[b] = std::min(p.loadFrom[b], from + plane - p.bufferLead[b]);
      }
    }
  }
  for (int64_t f : p.stageFrom)
    if (f != INT64_MAX) p.prologue = std::max(p.prologue, -f);
  for (int64_t f : p.loadFrom)
    if (f != INT64_MAX) p.prologue = std::max(p.prologue, -f);
}

}  // namespace

StreamedPlan streamedPlan(const Program& prog, const TileAnalysis& a) {
  StreamedPlan p;
  const int sd = a.spec.streamDim;
  const size_t k = static_cast<size_t>(sd);
  auto refuse = [&](std::string why) {
    if (p.supported) p.whyNot = std::move(why);
    p.supported = false;
  };
  if (sd < 0) {
    refuse("no streamed dimension");
    return p;
  }
  auto name = [&](const TileValue& v) { return valueName(prog, a.seq, v); };
  p.resultBuffer.assign(a.stages.size(), -1);
  p.finalWriteOf.assign(a.stages.size(), -1);
  p.previousRegister.assign(a.stages.size(), false);
  p.previousFromMemory.assign(a.stages.size(), false);
  for (size_t s = 0; s < a.stages.size(); ++s)
    p.previousFromMemory[s] = a.stages[s].previousFromMemory;
  p.accumulateAhead.assign(a.stages.size(), 0);
  for (size_t s = 0; s < a.stages.size(); ++s)
    if (a.stages[s].retimed)
      p.accumulateAhead[s] = a.stages[s].retimed->hi() - a.stages[s].retimed->lo();
  for (size_t b = 0; b < a.buffers.size(); ++b)
    if (a.buffers[b].producer >= 0)
      p.resultBuffer[static_cast<size_t>(a.buffers[b].producer)] = static_cast<int>(b);
  for (int r : a.results)
    for (size_t s = a.stages.size(); s-- > 0;)
      if (!a.stages[s].region.empty && a.stages[s].writes.kind == TileValue::Kind::Global &&
          a.stages[s].writes.index == r) {
        p.finalWriteOf[s] = r;
        break;
      }
  for (const TileStage& s : a.stages) {
    if (s.region.empty) continue;
    const Stmt& st =
        prog.calls.at(static_cast<size_t>(s.call)).stmts.at(static_cast<size_t>(s.stmt));
    if (!st.lhsIsScalar())
      for (const Subscript& sub : st.lhs->subs)
        if (sub.offset != 0) refuse(fmt::format("'{}' is written at an offset", name(s.writes)));
    if (s.lead != s.region.hi[k]) refuse("a stage's lead is not its last plane");
  }
  std::vector<StreamRead> reads = readsOf(a);
  // Input rings: their newest plane is the farthest any reader reads.
  p.bufferLead.assign(a.buffers.size(), 0);
  std::vector<bool> leadSet(a.buffers.size(), false);
  for (size_t b = 0; b < a.buffers.size(); ++b)
    if (a.buffers[b].producer >= 0) {
      p.bufferLead[b] = a.stages[static_cast<size_t>(a.buffers[b].producer)].lead;
      leadSet[b] = true;
    }
  for (const StreamRead& r : reads) {
    StreamSource src = streamSource(a, r.stage, r.value);
    // A local array lives in its rings only: one read before any stage of the kernel writes
    // it would need the array in memory.
    if (r.value.kind == TileValue::Kind::LocalArray && src.producer < 0)
      refuse(
          fmt::format("the local array '{}' is read before the kernel computes it", name(r.value)));
    if (src.kind != StreamSource::Kind::Ring || src.producer >= 0) continue;
    size_t b = static_cast<size_t>(src.buffer);
    int64_t plane = a.stages[static_cast<size_t>(r.stage)].lead + r.along(sd);
    p.bufferLead[b] = leadSet[b] ? std::max(p.bufferLead[b], plane) : plane;
    leadSet[b] = true;
    if (r.value.kind == TileValue::Kind::Global &&
        static_cast<int>(prog.arrays.at(static_cast<size_t>(r.value.index)).extents.size()) !=
            prog.dims())
      refuse(fmt::format("'{}' has fewer dimensions than the program and is read at offsets",
                         name(r.value)));
  }
  // Every read finds its plane in its source.
  for (const StreamRead& r : reads) {
    if (!p.supported) break;
    const TileStage& ts = a.stages[static_cast<size_t>(r.stage)];
    StreamSource src = streamSource(a, r.stage, r.value);
    if (src.kind == StreamSource::Kind::Global) continue;
    if (r.previous && p.previousFromMemory[static_cast<size_t>(r.stage)]) continue;
    if (src.kind == StreamSource::Kind::Missing && r.previous) {
      // The producer's result, read by no later stage, is this stage's previous value: a
      // register carries it when both run on the same plane and this region lies in its.
      const TileStage& w = a.stages[static_cast<size_t>(src.producer)];
      if (inPlane(ts.region, w.region, k) && w.lead == ts.lead) {
        p.previousRegister[static_cast<size_t>(src.producer)] = true;
        continue;
      }
    }
    if (src.kind == StreamSource::Kind::Missing) {
      refuse(fmt::format("stage {} needs the previous value of '{}', which is kept nowhere",
                         r.stage + 1, name(r.value)));
      break;
    }
    const TileBuffer& buf = a.buffers[static_cast<size_t>(src.buffer)];
    if (src.kind == StreamSource::Kind::Register) {
      const TileStage& w = a.stages[static_cast<size_t>(src.producer)];
      if (r.ref.offCentre(sd) || w.lead != ts.lead + r.along(sd) ||
          !inPlane(ts.region, w.region, k))
        refuse(fmt::format("stage {} reads '{}' from a register of another plane or point",
                           r.stage + 1, name(r.value)));
      continue;
    }
    int64_t plane = ts.lead + r.along(sd);
    int64_t lead = p.bufferLead[static_cast<size_t>(src.buffer)];
    if (r.previous && src.producer < 0 && (plane > lead || lead - plane >= buf.window)) {
      // The value before the kernel, where the stage does not compute: from global memory.
      p.previousFromMemory[static_cast<size_t>(r.stage)] = true;
      continue;
    }
    if (plane > lead || lead - plane >= buf.window) {
      refuse(fmt::format("stage {} reads '{}' {} plane{} behind the newest of its ring of {}",
                         r.stage + 1, name(r.value), lead - plane, lead - plane == 1 ? "" : "s",
                         buf.window));
      break;
    }
    for (size_t d = 0; d < ts.region.lo.size(); ++d)
      if (d != k && (ts.region.lo[d] + r.along(static_cast<int>(d)) < buf.box.lo[d] ||
                     ts.region.hi[d] + r.along(static_cast<int>(d)) > buf.box.hi[d]))
        refuse(fmt::format("stage {} reads '{}' outside its buffer", r.stage + 1, name(r.value)));
  }
  // The prologue: every ring and every stage starts before the first plane it must get right.
  firstSteps(a, reads, p);
  return p;
}

}  // namespace tessel
