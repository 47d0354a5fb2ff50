// Where fusion groups come from (issue 13): STENCILGEN's greedy plan (analysis/greedy_fusion.h),
// MODESTO's dynamic programme (modesto/grouping.h), or the user (`--groups`). Each gives one
// grouping per call, which analysis/regroup.h turns into a program that `tessel split` writes
// out and every family runs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/greedy_fusion.h"
#include "analysis/regroup.h"
#include "model/machine.h"
#include "modesto/hierarchy.h"
#include "support/diagnostics.h"
#include "support/pass_log.h"

namespace tessel {

struct Groupings {
  std::vector<CallGroups> groups;  // per call; empty: whole
  std::vector<std::string> notes;  // per call, what decided it
};

/// The greedy plan's kernels of every call.
Groupings greedyGroupings(const Program& prog, const GreedyFusionOptions& opt);

/// The recomputation halo of `group` (statement indices of `call`, in program order) fused into
/// one kernel: how far beyond a point the statements that feed it must be computed, the largest
/// over statements and iterators of the offsets summed along chains of values the group itself
/// produces (a statement reading only what the group does not write has halo 0; reading a value
/// at offset o from a statement of halo h adds h + |o|). A chain of six radius-1 statements has
/// halo 5.
int recomputationHalo(const CallInst& call, const std::vector<int>& group);

/// The highest offset any statement of `group` reads at (its stencil order r).
int statementOrder(const CallInst& call, const std::vector<int>& group);

/// ARTEMIS's recompute-fission (paper 000 VI-B: "the array outputs in a stencil function are
/// split so that the recomputation halo for each kernel is <= max(4, r), where r is the maximum
/// among stencil order of individual statements in the kernel"): each call's statements in
/// program order, a kernel grown while its halo stays within the bound, a new one started where
/// it would not. Values that cross go through global memory (regroup.h).
Groupings recomputeFissionGroupings(const Program& prog);

struct ModestoGroupingOptions {
  /// The level-2 tile (a thread block's), per iterator in program order; missing entries: 32
  /// along the innermost iterator, 8 along the next, 1 along the others.
  std::vector<int64_t> tile;
  /// The level-2 memory's capacity in values; 0: the machine's (48 KiB per block).
  double capacity = 0;
  size_t orderLimit = 24;  // topological orders searched per call
  /// Above 0: a call whose counting would visit more keys than this (modesto::countingWork) stays
  /// whole, with a note, instead of being counted.
  double workLimit = 0;
  /// Told before each call's search (the counting engine enumerates points: diffterm's nine
  /// and four statements take 6 s on two cores, rhs4center's 30 take 37 s).
  std::function<void(const std::string&)> progress;
};

/// The two-level hierarchy MODESTO groups for, given the level-2 tile and the bytes per value:
/// a GPU's (modesto::gpuTwoLevel: DRAM and a block's shared memory) or the host CPU's
/// (modesto::cpuTwoLevel: DRAM and one core's L2, measured).
using HierarchyFor = std::function<modesto::Hierarchy(std::vector<int64_t> tile, int valueBytes)>;

/// MODESTO's cheapest feasible grouping of every call on the two-level hierarchy `hierarchy`
/// makes, evaluated on a domain of a few tiles (each extent at most 2 tiles plus 8 points: the
/// counting engine enumerates points; plus 4 r more where the call's statements have no point on
/// that). A call that is not a MODESTO program, that no grouping fits or whose statements have
/// no point on the domain stays whole, with a note.
Groupings modestoGroupings(const Program& prog, const HierarchyFor& hierarchy,
                           const ModestoGroupingOptions& opt);
/// The same on `machine`'s GPU hierarchy.
Groupings modestoGroupings(const Program& prog, const MachineDesc& machine,
                           const ModestoGroupingOptions& opt);

/// `--groups` values: `[CALL:]G|G|...`, each G statement numbers (`s` optional) and ranges
/// (`0-2`) separated by commas; CALL defaults to 0. nullopt and `error` set on a malformed value
/// or a call that does not exist.
std::optional<Groupings> parseGroupings(const Program& prog, const std::vector<std::string>& specs,
                                        std::string& error);

/// The groupings `tessel split --mode MODE` (greedy, modesto, recompute-fission, groups) regroups
/// `prog` by, the machine `machineName` loaded for greedy (its shared memory per block) and
/// modesto; nullopt after an error reported to `diags` (a bad --groups value, --groups missing or
/// given to another mode, an unknown machine, a bad rule order).
std::optional<Groupings> splitGroupings(const Program& prog, const std::string& mode,
                                        const std::vector<std::string>& specs,
                                        const std::string& machineName, GreedyFusionOptions greedy,
                                        const ModestoGroupingOptions& modesto,
                                        DiagnosticEngine& diags);

/// The groupings of the `--fusion-groups` value of run, emit, analyze, info and check: greedy,
/// modesto (each with its defaults on `machineName`; MODESTO's calls above `modestoWorkLimit`
/// keys stay whole when it is above 0), recompute-fission or `--groups` values separated by ';'.
std::optional<Groupings> optionGroupings(const Program& prog, const std::string& value,
                                         const std::string& machineName, DiagnosticEngine& diags,
                                         double modestoWorkLimit = 0);

/// The most keys MODESTO's counting may visit per call and order (modesto::countingWork) among
/// the fusion choices that the model costs (`--fusion-groups auto`, `analyze --fusion-choices`,
/// `tune`): a few seconds on this project's 2-core machine (diffterm's calls, 1.3e7 and 1.6e7
/// keys, take 4 s together); a call beyond it stays whole there, and `--fusion-groups modesto`
/// or `tessel split --mode modesto` counts it.
inline constexpr double kChoicesModestoWork = 5e7;

/// The fusion choices `--fusion-groups` names by a word: the program as written (`none`),
/// ARTEMIS's fission modes, the greedy plan and MODESTO's grouping, in the order the model's
/// choice prefers them on a tie (MODESTO's last: its counting takes the longest, 6 s on diffterm).
inline const std::vector<std::string>& fusionChoiceNames() {
  static const std::vector<std::string> names = {
      "none", "trivial-fission", "maxfuse", "recompute-fission", "greedy", "modesto"};
  return names;
}

/// `prog` as the `--fusion-groups` value makes it: `none` as it is, `trivial-fission` and
/// `maxfuse` split or fused (analysis/fission.h), the others regrouped (optionGroupings,
/// analysis/regroup.h); nullopt after an error reported to `diags`. `notes` gets what decided
/// each call's grouping and what was regrouped.
std::optional<Program> fusionVariant(const Program& prog, const std::string& value,
                                     const std::string& machineName, DiagnosticEngine& diags,
                                     std::vector<std::string>& notes, double modestoWorkLimit = 0);

/// Pass `fusion-groups` (run through `log`, which prints the program it makes in the language
/// when asked): fusionVariant.
std::optional<Program> fusionGroupsPass(const Program& prog, const std::string& value,
                                        const std::string& machineName, DiagnosticEngine& diags,
                                        PassLog& log, std::vector<std::string>& notes);

}  // namespace tessel
