// MODESTO's implementation variants (paper 002, section 2.4): the stencils in an evaluation
// order, grouped by a nested bracket expression, one bracket level per tiling level:
// `[[lap,fli],[flj,out]]` on two levels is the root group (level 1) with two level-2 groups.
// Every stencil sits at the innermost level: a stencil written in a shallower bracket is wrapped
// in groups of one down to it, as the paper assumes ("executed by nested stencil groups that
// represent the full tiling hierarchy").
#pragma once

#include <string>
#include <vector>

#include "modesto/program.h"

namespace tessel::modesto {

/// A node of the tiling tree: a group of children, or (stencil >= 0) one stencil.
struct Group {
  int stencil = -1;
  std::vector<Group> children;

  bool leaf() const { return stencil >= 0; }
  /// The stencils of the subtree, in evaluation order.
  std::vector<int> stencils() const;
};

/// Parses `text` (stencil names, commas and brackets; blanks ignored) into a tree of
/// `levels` levels over `p`. Throws std::invalid_argument naming the problem: an unknown or
/// repeated stencil, one missing, brackets deeper than the levels or unbalanced, or an order in
/// which a stencil comes before one it reads.
Group parseVariant(const std::string& text, const StencilProgram& p, int levels);

/// The bracket expression of `g` (wrappers of one stencil written as the stencil alone).
std::string variantText(const Group& g, const StencilProgram& p);

/// Every topological order of `p`'s stencils (producers before consumers), at most `limit`.
std::vector<std::vector<int>> topologicalOrders(const StencilProgram& p, size_t limit = 1000);

/// Every grouping of the stencils `order` on `levels` levels: between neighbours, the outermost
/// level whose groups they no longer share (2..levels) or none, levels^(n-1) variants.
std::vector<Group> groupings(const std::vector<int>& order, int levels);

}  // namespace tessel::modesto
