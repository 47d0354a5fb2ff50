// MODESTO's counting and time model (paper 002, sections 2.5 and 2.6.6) for one implementation
// variant: per stencil its evaluations (redundant ones included), per child of every group its
// vertical loads and stores and its lateral exchange on each level, per group its storage, the
// group time t_g = sum over children of max(t_c, v_c / V_l, lat_c^1 / L_1, ..., lat_c^l / L_l)
// (a stencil's time: its operations over C), and the feasibility check m_l <= M_l.
//
// Counts are over the origin tile of level 1 (the selection set S: level-1 tile id 0; with an
// untiled level 1, the whole analysed domain), exact, by enumeration (tiling.h). A transfer is
// counted once per element and tile of the parent's level: the paper projects out the tiling
// levels below the parent's, so duplicate halo loads of sibling tiles are not counted (docs/
// model.md says where this reading differs from model-notes.md's).
#pragma once

#include <string>
#include <vector>

#include "modesto/hierarchy.h"
#include "modesto/program.h"
#include "modesto/variant.h"

namespace tessel::modesto {

namespace detail {
struct RootTiling;
}

struct StencilCounts {
  std::string name;
  double evaluations = 0;  // |T_s ∩ S|: one per (point, tile) evaluated
  double flops = 0;        // evaluations x ops
  double seconds = 0;      // flops / C
};

/// One child (a stencil or a nested group) as its parent group executes it.
struct ChildCounts {
  std::string text;              // its bracket expression
  double loads = 0, stores = 0;  // vertical, in values, between the parent's storage and it
  std::vector<double> lateral;   // values exchanged between sibling tiles of level 1..l
  double seconds = 0;            // its own time t_c
  double verticalSeconds = 0;    // (loads + stores) / V_l
  double lateralSeconds = 0;     // the largest lat_c^k / L_k
  std::string bound;             // "compute" / "vertical" / "lateral", the largest of the three
  double time() const;           // max of the three
};

struct GroupCounts {
  std::string text;
  int level = 0;        // 1-based
  double storage = 0;   // m_p: values one tile of the group stores (its children's inputs)
  double capacity = 0;  // M_l, 0 = unlimited
  bool fits = true;
  std::vector<ChildCounts> children;
  double seconds = 0;  // t_g
};

struct Evaluation {
  std::string variant;
  double seconds = 0;  // t of the root group
  bool feasible = true;
  std::vector<StencilCounts> stencils;  // in program order
  std::vector<GroupCounts> groups;      // every group, parents before children
};

/// Evaluates `variant` (a tree over `p` with as many levels as `h`) on hierarchy `h`. Throws
/// std::invalid_argument for an invalid program, a hierarchy whose tiles have the wrong rank, or
/// a tree of the wrong depth.
Evaluation evaluate(const StencilProgram& p, const Hierarchy& h, const Group& variant);

/// evaluate() counting the root's child `child` alone (with the groups below it): its
/// ChildCounts and GroupCounts and its stencils' StencilCounts are evaluate()'s, the root's other
/// children are left out (their stencils' evaluations 0), and the root's time, storage and
/// feasibility are not the variant's. What the dynamic programme
/// (grouping.h) needs per run, a child's counts depending only on the stencils it holds.
Evaluation evaluateRootChild(const StencilProgram& p, const Hierarchy& h, const Group& variant,
                             size_t child);
/// The same with level 1's tiling computed once for every variant of `p` on `h`
/// (detail::tileRoot): only the child is tiled below level 1.
Evaluation evaluateRootChild(const StencilProgram& p, const Hierarchy& h, const Group& variant,
                             size_t child, const detail::RootTiling& base);

}  // namespace tessel::modesto
