// The counting engine's sets (internal to modesto/): MODESTO's affine sets and maps (paper 002,
// section 2.6), enumerated exactly over the analysed domain instead of counted with isl and
// barvinok (model-notes.md 1.4). A key is one element of a named map: a name (a stencil or field
// index), a point, and a tile identifier of n coordinates per tiling level; a set is a sorted
// vector of unique keys.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
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

/// The tile of a level with tiles of `size` (0: untiled) that holds coordinate `point` of a
/// stencil shifted by `shift` (a sequential halo's shift; 0 otherwise): the rectangular tiling.
int32_t tileIdOf(int64_t point, int64_t size, int64_t shift);

/// The tiling maps T_s of every stencil (section 2.6.3, nested as in 2.6.5): keys (s, point,
/// tile id over all levels), for the evaluation points MODESTO derives backwards from the
/// outputs' domains (each bounded by the stencil's own domain where it has one).
struct TilingMaps {
  int dims = 0, levels = 0;
  /// Per stencil; shared, never changed: a variant's maps share the tiles a tiling left as they
  /// were (tileRootChild: every stencil but the child's keeps level 1's).
  std::vector<std::shared_ptr<const KeySet>> tiles;
};

TilingMaps tileVariant(const StencilProgram& p, const Hierarchy& h, const Group& root);

/// Level 1's tiling of every stencil, with the shifts of a sequential halo there. The root group
/// of every variant holds all the stencils, so this is the same for every variant of `p` on
/// `h`: the dynamic programme (grouping.h) computes it once for all the runs it counts.
struct RootTiling {
  std::vector<KeySet> domains;              // where each stencil is evaluated
  std::vector<std::vector<int64_t>> shift;  // per stencil and dimension
  TilingMaps maps;                          // level 1's tiles
  Key lo{}, hi{};                           // the least and greatest of each coordinate there
};

/// `root` is any variant of `p` on `h` (all give the same).
RootTiling tileRoot(const StencilProgram& p, const Hierarchy& h, const Group& root);

/// The tiling maps of `root` with only its child `child` tiled below level 1 (the other
/// stencils keep `base`'s level-1 tiles): what counting that child alone reads
/// (evaluateRootChild).
TilingMaps tileRootChild(const StencilProgram& p, const Hierarchy& h, const RootTiling& base,
                         const Group& root, size_t child);

}  // namespace tessel::modesto::detail
