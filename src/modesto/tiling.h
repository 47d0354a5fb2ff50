// The counting engine's sets (internal to modesto/): MODESTO's affine sets and maps (paper 002,
// section 2.6), enumerated exactly over the analysed domain instead of counted with isl and
// barvinok (model-notes.md 1.4). A key is one element of a named map: a name (a stencil or field
// index), a point, and a tile identifier of n coordinates per tiling level; a set is a sorted
// vector of unique keys.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "modesto/hierarchy.h"
#include "modesto/program.h"
#include "modesto/variant.h"

namespace tessel::modesto::detail {

using Key = std::array<int32_t, 1 + kMaxDims + kMaxDims * kMaxLevels>;
inline constexpr int kPoint = 1;          // first point coordinate
inline constexpr int kId = 1 + kMaxDims;  // first tile-identifier coordinate
using KeySet = std::vector<Key>;

/// Sorts and removes duplicates.
void normalize(KeySet& s);

/// The tiling maps T_s of every stencil (section 2.6.3, nested as in 2.6.5): keys (s, point,
/// tile id over all levels), for the evaluation points MODESTO derives backwards from the
/// outputs' domains (each bounded by the stencil's own domain where it has one).
struct TilingMaps {
  int dims = 0, levels = 0;
  std::vector<KeySet> tiles;  // per stencil
};

TilingMaps tileVariant(const StencilProgram& p, const Hierarchy& h, const Group& root);

}  // namespace tessel::modesto::detail
