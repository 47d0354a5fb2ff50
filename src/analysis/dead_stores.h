// Dead stores of fused kernels (issue 11): which global arrays a fused launch must write back.
//
// A fused kernel (overlapped, stream + time_tile) computes T steps on chip and writes every
// global array a stage writes back to its second buffer, also when the value is never read
// again: a ping-pong pair's intermediate array (j3d7pt's `out` at T = 2) is overwritten by the
// next launch's first step before anything reads it. Writing it costs one element per output
// point (3.46 instead of 2.46 elements moved per output point for j3d7pt at T = 2).
//
// The rule is conservative: array `a`, written by the sequence `seq` of a fused group, is dead
// after a launch of it when
//   1. the program has a copyout list and `a` is not on it (without one, every array the program
//      writes is a result);
//   2. the group is at the top level of the call sequence (not inside another loop, whose next
//      iteration could read `a`), and no node after the group touches `a`;
//   3. what runs next in the group (its later launches, or its remaining steps run per
//      statement: the body's calls from the next position on, around an iterate body once)
//      touches `a` first by writing it with the statement that wrote it last in `seq` (the same
//      statement of the same call: the same region), or not at all. That write covers every
//      point the launch would have written, so no point of it is read.
// Everything else is live and written back, as before.
#pragma once

#include <vector>

#include "ir/program.h"

namespace tessel {

/// Where a fused group sits and what runs after each of its launches.
struct FusedGroupPlace {
  /// The calls of the group's body in order (an iterate loop's body, or a straight run).
  std::vector<int> body;
  bool iterate = false;  // an iterate loop (launches wrap around the body) or a straight run
  /// The group is a node (loop) or a run of nodes of the program's top level.
  bool topLevel = false;
  /// The top-level nodes after the group (for the rule's second condition).
  std::vector<const ExecNode*> after;
  int timeTile = 1;
};

/// The global arrays the launch of the sequence starting at body position `phase` must write
/// back: every array a stage writes except the dead ones (above), in increasing index order.
std::vector<int> liveResults(const Program& prog, const FusedGroupPlace& place, int phase);

}  // namespace tessel
