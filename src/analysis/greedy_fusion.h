// STENCILGEN's greedy resource-driven fusion (issue 13; paper 004 section VI, steps 1-5): which
// statements of a call a streaming kernel should fuse, decided from what each group would keep on
// chip. Streaming runs along the call's first (outermost) iterator; a plane is one value (array
// or local scalar) at one offset along it.
//
//   Step 1, resource maps (VI-B): per operator, each plane it touches -> a storage. A plane read
//     at one element per point only (the point's own, no offset in the plane) is an explicit
//     register; read at several elements, it is cached in shared memory (rule 1). A plane of a
//     value the operator writes more than once (an accumulation: a compound assignment, or
//     several statements writing it) is an explicit register; written once, it goes to global
//     memory (rule 2). Local scalars are registers. A plane both written and read keeps the
//     storage lower in the hierarchy (shared over register; on chip over global: a value the
//     group produces and reads is not read back from global memory).
//   Step 2, candidates (VI-C): pairs of operators whose union is convex in the stencil DAG (no
//     dependence path leaves it and comes back: the transitive graph's rule).
//   Step 3, post-fusion maps (VI-D): the fused operator's statements in program order, each
//     shifted along the streaming dimension by the dependence distance (a later statement lags
//     until every plane it reads is complete, and until it no longer overwrites a plane an earlier
//     one still reads or writes), the union of their maps with the conflict rule above.
//   Step 4, metrics (VI-E): D_m (2 per value carrying a flow dependence between the two, else 1
//     per value both write or both read), S_reg and S_shm (planes the fusion shares: registers of
//     both minus the fused map's, likewise shared buffers), T_reg and T_shm (the fused map's).
//   Step 5, sort (VI-F): rules a-h in a selectable order ("abcdefgh", the default, minimises data
//     movement); the first candidate fuses if its shared buffers fit the machine's shared memory
//     per block and, for a producer and its consumer, its stencil order (the in-plane halo it
//     recomputes) stays within the limit; repeat until no candidate is profitable (D_m > 0) and
//     fits. Candidates are the operators of one call: the calls of a program run as kernels of
//     their own (time fusion across calls is the overlapped family's and deep-tune's).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/dag.h"
#include "ir/program.h"

namespace tessel {

enum class PlaneStorage { Register, Shared, Global };
const char* storageName(PlaneStorage s);  // "reg", "shm", "global"

struct Plane {
  std::string value;   // array or local scalar name
  int64_t offset = 0;  // along the streaming iterator, in the operator's frame
  auto operator<=>(const Plane&) const = default;
};
using ResourceMap = std::map<Plane, PlaneStorage>;

/// A stencil operator or fused macronode: statements of one call (indices, program order).
struct FusionOperator {
  std::vector<size_t> stmts;
  std::vector<int64_t> shift;  // per statement, its shift along the streaming iterator (<= 0)
  ResourceMap map;
  int order = 0;  // in-plane stencil order, halos of fused producers included
  int registers() const;
  int sharedBuffers() const;
};

struct FusionMetrics {
  int dm = 0, sReg = 0, sShm = 0, tReg = 0, tShm = 0;
  bool producerConsumer = false;  // a flow dependence between the two
  int order = 0;                  // of the fused operator
  int64_t sharedBytes = 0;        // its shared buffers, each a tile plane grown by its order
};

struct GreedyFusionOptions {
  /// The sort's rules, most significant first: a permutation of "abcdefgh" (paper 004 VI-F).
  std::string rules = "abcdefgh";
  /// The highest stencil order a fused operator may have; 0: max(4, the highest order of one
  /// statement), ARTEMIS's bound on recomputation (paper 000 VI-B).
  int maxOrder = 0;
  /// Shared memory per block available (bytes); 0: no limit.
  int64_t sharedLimit = 0;
  /// The block's tile in the plane (elements per in-plane iterator, outer to inner); missing
  /// entries are 32.
  std::vector<int64_t> tile;
};

struct FusionStep {
  size_t a = 0, b = 0;  // the fused operators, indices into the operators before the step
  FusionOperator fused;
  FusionMetrics metrics;
};

struct GreedyFusionPlan {
  int call = -1;
  std::string rules;
  int maxOrder = 0;
  std::vector<FusionOperator> initial;  // step 1's operators
  std::vector<FusionStep> steps;        // in the order taken
  std::vector<FusionOperator> result;   // the macronodes, each one kernel
  /// Why the next candidates were not fused: "s0+s3: order 6 > 4".
  std::vector<std::string> stops;
};

/// The initial operators of a call: maximal runs of consecutive statements writing one value
/// (one stencil operator, associatively reordered into several statements: paper 004 V-C,
/// Listing 4), every other statement alone.
std::vector<std::vector<size_t>> initialOperators(const CallInst& call);

/// The operator made of `stmts` (sorted) of `call`: shifts, resource map and order.
FusionOperator makeOperator(const Program& prog, int call, std::vector<size_t> stmts);

/// The metrics of fusing `a` and `b` into `fused`.
FusionMetrics fusionMetrics(const Program& prog, int call, const FusionOperator& a,
                            const FusionOperator& b, const FusionOperator& fused,
                            const GreedyFusionOptions& opt);

/// The greedy fusion of `call`'s statements. Throws std::invalid_argument on a bad rule order.
GreedyFusionPlan greedyFusion(const Program& prog, const StencilDag& dag, int call,
                              const GreedyFusionOptions& opt);

/// "{A@0: shm, B@1: reg}".
std::string resourceMapText(const ResourceMap& m);
/// The plan as text: the operators and their maps, each step with its metrics, the result.
std::string greedyFusionText(const Program& prog, const GreedyFusionPlan& plan);

}  // namespace tessel
