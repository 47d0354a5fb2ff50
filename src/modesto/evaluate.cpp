// Counting, time and feasibility of one variant (evaluate.h).
#include "modesto/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "modesto/packed_keys.h"
#include "modesto/tiling.h"

namespace tessel::modesto {

double ChildCounts::time() const { return std::max({seconds, verticalSeconds, lateralSeconds}); }

namespace {

using detail::Key;
using detail::KeySet;
using detail::kId;
using detail::kPoint;
using detail::Packed;

/// Every leaf of `g` sits `depth` levels below it.
bool leavesAt(const Group& g, int depth) {
  if (g.leaf()) return depth == 0;
  if (g.children.empty() || depth <= 0) return false;
  return std::all_of(g.children.begin(), g.children.end(),
                     [&](const Group& c) { return leavesAt(c, depth - 1); });
}

class Counter {
 public:
  /// `onlyRootChild` >= 0: count that child of the root alone (evaluateRootChild), whose
  /// `maps` share level 1's tiles of `base` for the other stencils.
  Counter(const StencilProgram& p, const Hierarchy& h, detail::TilingMaps maps,
          int onlyRootChild = -1, const detail::RootTiling* base = nullptr)
      : p_(p),
        h_(h),
        n_(p.dims),
        maps_(std::move(maps)),
        inputs_(p.inputFields()),
        onlyRootChild_(onlyRootChild),
        packing_(packingFor(p, maps_, p.stencils.size() + inputs_.size(), base)),
        selectedTiles_(p.stencils.size()) {}

  Evaluation run(const Group& root) {
    Evaluation e;
    e.variant = variantText(root, p_);
    // Counting one child of the root alone, only its stencils' evaluations are counted.
    std::vector<int> counted = root.stencils();
    if (onlyRootChild_ >= 0)
      counted = root.children.at(static_cast<size_t>(onlyRootChild_)).stencils();
    const std::set<int> count(counted.begin(), counted.end());
    for (size_t s = 0; s < p_.stencils.size(); ++s) {
      StencilCounts c;
      c.name = p_.stencils[s].name;
      const KeySet& tiles = *maps_.tiles[s];
      if (count.count(static_cast<int>(s)))
        c.evaluations = static_cast<double>(
            std::count_if(tiles.begin(), tiles.end(), [&](const Key& k) { return selected(k); }));
      c.flops = c.evaluations * p_.stencils[s].ops;
      c.seconds = h_.compute > 0 ? c.flops / h_.compute : 0;
      e.stencils.push_back(c);
    }
    e.seconds = group(root, 1, e);
    e.feasible =
        std::all_of(e.groups.begin(), e.groups.end(), [](const GroupCounts& g) { return g.fits; });
    return e;
  }

 private:
  /// The selection set S: the origin tile of level 1.
  bool selected(const Key& k) const {
    for (int d = 0; d < n_; ++d)
      if (k[kId + d] != 0) return false;
    return true;
  }

  int fieldIndex(const std::string& f) const { return p_.fieldIndex(f, inputs_); }

  /// Calls `visit` with each element of I_s restricted to `fields`, over S, packed: (field,
  /// point read, tile id of the evaluation), duplicates included.
  /// With `originTilesOf` > 1: only the evaluations in the origin tile of every level before
  /// that one (what a group of that level stores).
  template <typename Visit>
  void forEachInput(int s, const std::set<int>& fields, Visit&& visit,
                    int originTilesOf = 1) const {
    std::vector<Packed> origin;
    const std::vector<Packed>* tiles = &selectedTiles(s);
    if (originTilesOf > 1) {
      // The offsets change points only: the tiles are filtered once for every access.
      std::copy_if(tiles->begin(), tiles->end(), std::back_inserter(origin),
                   [&](Packed k) { return packing_.outerTilesZero(k, originTilesOf); });
      tiles = &origin;
    }
    for (const Access& a : p_.stencils[static_cast<size_t>(s)].in) {
      const int f = fieldIndex(a.field);
      if (!fields.count(f)) continue;
      const detail::PackedRead read = detail::packedRead(packing_, n_, s, f, a);
      for (Packed k : *tiles) visit(read(k));
    }
  }

  /// The keys of `sten`'s tiles over S: what a set of their reads or writes holds, about.
  size_t tileCount(const std::vector<int>& sten) const {
    size_t n = 0;
    for (int s : sten) n += selectedTiles(s).size();
    return n;
  }

  /// Stencil `s`'s tiles over S, packed (once, when first asked for).
  const std::vector<Packed>& selectedTiles(int s) const {
    auto& packed = selectedTiles_[static_cast<size_t>(s)];
    if (!packed) {
      packed.emplace();
      for (const Key& k : *maps_.tiles[static_cast<size_t>(s)])
        if (selected(k)) packed->push_back(packing_.pack(k));
    }
    return *packed;
  }

  /// The packing of every key the counts form: the tiles' coordinates (`base`'s bounds for
  /// the tiles `maps` shares with it) and what detail::packingFor adds.
  static detail::KeyPacking packingFor(const StencilProgram& p, const detail::TilingMaps& maps,
                                       size_t fields, const detail::RootTiling* base) {
    Key lo{}, hi{};
    bool first = true;
    auto widen = [&](const Key& k) {
      for (size_t i = kPoint; i < k.size(); ++i) {
        lo[i] = first ? k[i] : std::min(lo[i], k[i]);
        hi[i] = first ? k[i] : std::max(hi[i], k[i]);
      }
      first = false;
    };
    if (base) {
      widen(base->lo);
      widen(base->hi);
    }
    for (size_t s = 0; s < maps.tiles.size(); ++s)
      if (!base || maps.tiles[s] != base->maps.tiles[s])
        for (const Key& k : *maps.tiles[s]) widen(k);
    return detail::packingFor(p, lo, hi, fields);
  }

  /// The stencils of `g` whose fields are read outside it or leave the program.
  std::set<int> outputsOf(const std::vector<int>& sten) const {
    const std::set<int> inside(sten.begin(), sten.end());
    std::set<int> out;
    for (int s : sten) {
      if (p_.isOutput(s)) out.insert(s);
      for (size_t c = 0; c < p_.stencils.size(); ++c)
        if (!inside.count(static_cast<int>(c)))
          for (const Access& a : p_.stencils[c].in)
            if (a.field == p_.stencils[static_cast<size_t>(s)].name) out.insert(s);
    }
    return out;
  }

  /// The fields `sten` reads that it does not compute.
  std::set<int> inputsOf(const std::vector<int>& sten) const {
    const std::set<int> inside(sten.begin(), sten.end());
    std::set<int> in;
    for (int s : sten)
      for (const Access& a : p_.stencils[static_cast<size_t>(s)].in)
        if (!inside.count(p_.producer(a.field))) in.insert(fieldIndex(a.field));
    return in;
  }

  double group(const Group& g, int level, Evaluation& e) {
    const Level& lv = h_.levels[static_cast<size_t>(level - 1)];
    const size_t me = e.groups.size();
    e.groups.push_back({variantText(g, p_), level, 0, lv.capacity, true, {}, 0});
    const std::vector<int> sten = g.stencils();
    const std::set<int> groupOut = outputsOf(sten);
    std::vector<ChildCounts> children;
    std::set<int> storedFields;
    double seconds = 0;
    // Counting one child of the root alone, the others are skipped (their counts and the
    // root's storage are not wanted: the child's do not depend on them).
    const bool alone = level == 1 && onlyRootChild_ >= 0;
    for (size_t ci = 0; ci < g.children.size(); ++ci) {
      if (alone && ci != static_cast<size_t>(onlyRootChild_)) continue;
      const Group& c = g.children[ci];
      const std::vector<int> cs = c.stencils();
      const std::set<int> cin = inputsOf(cs);
      const std::set<int> cout = outputsOf(cs);
      storedFields.insert(cin.begin(), cin.end());
      ChildCounts cc;
      cc.text = variantText(c, p_);
      // Loads: the child's input map over S, per element and parent tile.
      detail::PackedSet in;
      in.reserve(tileCount(cs));
      for (int s : cs)
        forEachInput(s, cin, [&](Packed k) { in.insert(packing_.projected(k, level)); });
      cc.loads = static_cast<double>(in.size());
      // I_{p,c}: what the later children read of this child's outputs (its own tiles of them
      // are `mine`).
      auto forEachLater = [&](auto&& visit) {
        for (size_t cj = ci + 1; cj < g.children.size(); ++cj)
          for (int s : g.children[cj].stencils()) forEachInput(s, cout, visit);
      };
      auto forEachMine = [&](auto&& visit) {
        for (int s : cout) {
          if (lv.halo == Halo::OnTheFly && !groupOut.count(s)) continue;
          for (Packed k : selectedTiles(s)) visit(k);
        }
      };
      // O_c: halo exchange, the child's own tiles of its outputs; on the fly, what the later
      // children read of them and, for the group's outputs, their tiles.
      detail::PackedSet written;
      written.reserve(tileCount(cs));
      forEachMine([&](Packed k) { written.insert(packing_.projected(k, level)); });
      if (lv.halo == Halo::OnTheFly)
        forEachLater([&](Packed k) { written.insert(packing_.projected(k, level)); });
      cc.stores = static_cast<double>(written.size());
      // Lateral: consumed but not produced in the same tile, level by level (on the fly the
      // child writes all that later children read: nothing).
      cc.lateral.assign(static_cast<size_t>(level), 0);
      double before = 0;
      for (int k = 1; k <= level && lv.halo != Halo::OnTheFly; ++k) {
        detail::PackedSet have, missing;
        forEachMine([&](Packed key) { have.insert(packing_.projected(key, k)); });
        forEachLater([&](Packed key) {
          if (const Packed p = packing_.projected(key, k); !have.contains(p)) missing.insert(p);
        });
        const double d = static_cast<double>(missing.size());
        cc.lateral[static_cast<size_t>(k - 1)] = d - before;
        before = d;
      }
      cc.seconds =
          c.leaf() ? e.stencils[static_cast<size_t>(c.stencil)].seconds : group(c, level + 1, e);
      if (lv.vertical > 0) cc.verticalSeconds = (cc.loads + cc.stores) / lv.vertical;
      for (int k = 1; k <= level; ++k) {
        const double rate = h_.levels[static_cast<size_t>(k - 1)].lateral;
        if (rate > 0)
          cc.lateralSeconds =
              std::max(cc.lateralSeconds, cc.lateral[static_cast<size_t>(k - 1)] / rate);
      }
      cc.bound = cc.seconds >= cc.verticalSeconds && cc.seconds >= cc.lateralSeconds ? "compute"
                 : cc.verticalSeconds >= cc.lateralSeconds                           ? "vertical"
                                                                                     : "lateral";
      seconds += cc.time();
      children.push_back(std::move(cc));
    }
    // Storage: the inputs and temporaries the children read, per element, in one tile of this
    // level within the origin tile of every level above (S*): the fullest such tile. The paper
    // takes the origin tile, which on a finite domain may be an edge tile, part empty (a region
    // that starts at k = 1 leaves the origin tile of a 1 x 8 x 32 tiling empty: everything
    // would fit); the feasibility check must hold for every tile.
    detail::PackedSet stored;
    if (!alone)
      for (int s : sten)
        forEachInput(
            s, storedFields, [&](Packed k) { stored.insert(packing_.projected(k, level)); },
            level - 1);
    std::map<Packed, double> perTile;
    double fullest = 0;
    stored.forEach(
        [&](Packed k) { fullest = std::max(fullest, ++perTile[packing_.tileOf(k, level - 1)]); });
    GroupCounts& out = e.groups[me];
    out.storage = fullest;
    out.fits = lv.capacity <= 0 || out.storage <= lv.capacity;
    out.children = std::move(children);
    out.seconds = seconds;
    return seconds;
  }

  const StencilProgram& p_;
  const Hierarchy& h_;
  int n_;
  detail::TilingMaps maps_;
  std::vector<std::string> inputs_;
  int onlyRootChild_ = -1;
  detail::KeyPacking packing_;
  mutable std::vector<std::optional<std::vector<Packed>>> selectedTiles_;  // selectedTiles()
};

/// The checks evaluate() makes of its arguments.
void checkArguments(const StencilProgram& p, const Hierarchy& h, const Group& variant) {
  validate(p);
  const int levels = static_cast<int>(h.levels.size());
  if (levels < 1 || levels > kMaxLevels)
    throw std::invalid_argument(
        fmt::format("a tiling hierarchy has 1 to {} levels, not {}", kMaxLevels, levels));
  for (size_t l = 0; l < h.levels.size(); ++l) {
    if (static_cast<int>(h.levels[l].tile.size()) != p.dims)
      throw std::invalid_argument(fmt::format("level {} has a tile of {} sizes for a {}-D program",
                                              l + 1, h.levels[l].tile.size(), p.dims));
    for (int64_t t : h.levels[l].tile)
      if (t < 0)
        throw std::invalid_argument(fmt::format("level {} has a negative tile size", l + 1));
  }
  if (!leavesAt(variant, levels))
    throw std::invalid_argument(fmt::format(
        "variant '{}' does not put every stencil {} levels deep", variantText(variant, p), levels));
}

}  // namespace

Evaluation evaluate(const StencilProgram& p, const Hierarchy& h, const Group& variant) {
  checkArguments(p, h, variant);
  return Counter(p, h, detail::tileVariant(p, h, variant)).run(variant);
}

Evaluation evaluateRootChild(const StencilProgram& p, const Hierarchy& h, const Group& variant,
                             size_t child) {
  checkArguments(p, h, variant);  // before tiling it
  return evaluateRootChild(p, h, variant, child, detail::tileRoot(p, h, variant));
}

Evaluation evaluateRootChild(const StencilProgram& p, const Hierarchy& h, const Group& variant,
                             size_t child, const detail::RootTiling& base) {
  checkArguments(p, h, variant);
  if (child >= variant.children.size())
    throw std::invalid_argument(
        fmt::format("variant '{}' has no child {}", variantText(variant, p), child));
  return Counter(p, h, detail::tileRootChild(p, h, base, variant, child), static_cast<int>(child),
                 &base)
      .run(variant);
}

}  // namespace tessel::modesto
