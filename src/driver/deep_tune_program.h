// A deep-tuned composition (paper 000 VI-A; driver/deep_tune.h) as a program in the language:
// the run's steps (the calls it executes, at the given parameter values, in order) written out
// in order, each call a stencil of its own (ir/print_program.h) carrying a `#pragma`
// with the time tile of the composition's part it belongs to. The parts run in the
// composition's order, largest first: `4x1 + 3x3` is the first 4 steps as one kernel, then three
// kernels of 3. The resolved schedule ends a run of fused calls where the time tile changes
// (schedule/resolve.h, planFusion), so each part's calls fuse exactly as the composition says,
// and the written program runs through `check`, `info`, `run --verify` like any other.
//
// Each part's steps become a loop over the shortest run of them that repeats as whole kernels
// (j2d5pt's 2 calls per iteration fused 3 at a time: a loop of 6 calls), then the steps left
// over, in a row. The program runs the steps of the parameter values it was written for (its
// parameters default to them) and nothing else; a parameter only the input's loop bounds read is
// left out of it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "driver/split.h"
#include "ir/program.h"
#include "model/fusion_degree.h"

namespace tessel {

inline constexpr int64_t kMaxComposedSteps = 1000000;  // steps of the run
inline constexpr int64_t kMaxWrittenCalls = 4096;      // calls written out

/// The calls `prog` executes at `params`, in order (iterate loops unrolled); stops after `limit`
/// calls (the caller compares the size with the limit).
std::vector<int> executedCalls(const Program& prog, const ParamValues& params, size_t limit);

/// Writes the composition `parts` of `prog`'s run at `params` into `dir` as FILE-deep-tuned.sten.
/// `flags` are deep-tune's schedule flags: --schedule (stream or overlapped) and --stream or
/// --full-stream go into each stencil's `#pragma`; the others into the header's command line for
/// running it. `notes` (sentences) go into the header after what it says of every program. An
/// error (with a hint) when the composition's steps are not the run's.
SplitResult writeComposedProgram(const Program& prog, const std::string& file,
                                 const ParamValues& params, const FusionComposition& composition,
                                 const std::map<std::string, std::string>& flags,
                                 const std::string& dir,
                                 const std::vector<std::string>& notes = {});

}  // namespace tessel
