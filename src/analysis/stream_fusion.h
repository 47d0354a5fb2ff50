// How a fused sequence runs when its kernel streams one dimension (stream + time_tile T, the
// "3.5-D blocking" of paper 004 Figure 7): the tile-region analysis of the sequence with a
// streamed dimension, turned into rings of planes and the order in which a block fills them.
//
// A block sweeps the streamed dimension one step q at a time. At step q stage s computes plane
// q + lead_s over its in-plane region; every shared TileBuffer is a ring of `planes` planes
// whose newest plane at step q is q + lead (a stage's result: the stage's lead; an input: the
// farthest plane any reader reads). A read of value v by stage s comes from the latest earlier
// stage that writes v (its ring, or its register when every read is at the centre of the same
// plane), else from the input ring of v, else from global memory. Points where a stage does not
// compute (outside its statement's region) take v's previous value the same way, so that they
// keep their values as in the per-statement kernels.
//
// streamedPlan() checks that every read finds its plane in its ring (the ring is deep enough and
// filled early enough) and says why not otherwise; the fused group then runs per statement.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/tile_regions.h"
#include "ir/program.h"

namespace tessel {

/// Where a stage reads a value from.
struct StreamSource {
  enum class Kind { Global, Ring, Register, Missing };
  Kind kind = Kind::Global;
  int buffer = -1;    // Ring, Register: the index in TileAnalysis::buffers
  int producer = -1;  // the stage that wrote it; -1: global memory or the input ring
  // Missing: the producer keeps its result in no buffer (a previous-value register may hold it).
};

struct StreamedPlan {
  bool supported = true;
  std::string whyNot;
  /// Per TileAnalysis::buffers: the newest plane at step q, relative to q.
  std::vector<int64_t> bufferLead;
  /// Per stage: its result buffer (TileAnalysis::buffers index) or -1.
  std::vector<int> resultBuffer;
  /// Per stage: its result also goes to a register (beside any buffer) because a later stage of
  /// the same plane needs it as the previous value of the array it writes.
  std::vector<bool> previousRegister;
  /// Per stage: the global array whose final value (on the tile) it writes, or -1.
  std::vector<int> finalWriteOf;
  /// Steps before the first output plane of a chunk: a block starting at plane p0 runs steps
  /// p0 - prologue, ..., p1 (its last plane).
  int64_t prologue = 0;
  /// Per stage: the first step, relative to the chunk's first plane (so -prologue or later), at
  /// which some later step reads its result (INT64_MAX: an empty stage). A kernel leaves the
  /// stage out of the prologue's earlier steps: it would compute from ring slots not yet loaded.
  std::vector<int64_t> stageFrom;
  /// Per TileAnalysis::buffers: for an input ring, the first step whose load some stage reads;
  /// INT64_MAX for the others.
  std::vector<int64_t> loadFrom;
  /// Per stage: a retimed stage (TileStage::retimed) accumulates its first output from this
  /// many steps before stageFrom (its parts' span, hi - lo); 0 for the others.
  std::vector<int64_t> accumulateAhead;
  /// Per stage: the previous value of the array it writes, where it does not compute, comes
  /// from global memory (the array's value before the kernel): TileStage::previousFromMemory,
  /// or the array's input ring no longer holds that plane (a retimed reader keeps the newest).
  std::vector<bool> previousFromMemory;
};

/// The source of value `v` for stage `stage` (reads and previous values).
StreamSource streamSource(const TileAnalysis& a, int stage, const TileValue& v);

/// The plan for `a` (an analysis with a streamed dimension).
StreamedPlan streamedPlan(const Program& prog, const TileAnalysis& a);

}  // namespace tessel
