// Which calls the overlapped family fuses into one kernel (paper 001, Algorithms 1 and 5).
//
// Groups are taken from the call sequence (Program::body):
//   - an `iterate` loop whose body is only calls of overlapped stencils: its S = n * iterations
//     steps (n calls per iteration) run as floor(S/T) fused kernels of T consecutive steps, and
//     the S mod T remaining steps as ordinary per-statement kernels. A fused kernel starts at
//     body position p = (g*T) mod n; one variant is made per position that occurs;
//   - a maximal run of consecutive calls of overlapped stencils elsewhere (top level, or beside
//     other nodes in a loop body): its k calls run as floor(k/T) fused kernels, then the rest
//     per statement; a run of fewer than T calls (k < T, e.g. a program with one call) is fused
//     as one kernel of its k steps (overlapped; with a streamed dimension it runs per statement).
// The configuration of a group's first call's stencil (time tile, block) applies to the group.
// A group is not fused, with a note saying why, when its analysis does not apply (a fixed
// plane of a value the group writes is read), when it writes no global array, or when the
// block leaves no tile after the accumulated halo. With a streamed dimension (stream +
// time_tile) the tiles are one plane along it and a group is also not fused when its rings
// cannot hold what the stages read (analysis/stream_fusion.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/tile_regions.h"
#include "ir/program.h"

namespace tessel {

struct FusionConfig {
  bool overlapped = false;
  int timeTile = 1;
  /// Points one thread block covers per iterator dimension (iterator order): its threads times
  /// the elements per thread. The tile is this minus the accumulated halo.
  std::vector<int64_t> coverage;
  /// stream + time_tile: the iterator dimension the fused kernels sweep (their tiles are one
  /// plane along it, analysis/stream_fusion.h); -1: every dimension is tiled.
  int streamDim = -1;
};

struct FusedVariant {
  int phase = 0;  // the body position of its first call
  FusedSequence seq;
  std::vector<int64_t> tile;
  TileAnalysis analysis;
};

struct FusionGroup {
  const ExecNode* iterate = nullptr;  // the loop whose body this is; null for a straight run
  const std::vector<ExecNode>* parent = nullptr;  // straight run: nodes [first, first + count)
  size_t first = 0, count = 0;
  std::vector<int> body;  // the calls, in order
  int stencil = -1;       // whose configuration applies
  int timeTile = 1;
  int streamDim = -1;  // the fused kernels stream this dimension; -1: they tile every one
  bool fused = false;
  std::string note;  // why it is not fused
  /// A decision about a fused group the user should hear about: fewer calls than the time tile
  /// (fused as they are) or calls left over after the fused kernels (run per statement).
  std::string remark;
  std::vector<FusedVariant> variants;

  /// The variant starting at body position `phase`, or null.
  const FusedVariant* variant(int phase) const;
};

/// The groups of `prog` for one configuration per stencil (Program::stencils order).
std::vector<FusionGroup> planFusion(const Program& prog, const std::vector<FusionConfig>& configs);

}  // namespace tessel
