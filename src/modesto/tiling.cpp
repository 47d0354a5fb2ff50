// The tiling maps of a variant (tiling.h): rectangular tiles per level, on-the-fly tiles pulled
// back through the group's dependences, sequential tiles shifted so that every dependence points
// backwards.
#include "modesto/tiling.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace tessel::modesto::detail {

int32_t tileIdOf(int64_t point, int64_t size, int64_t shift) {
  if (size == 0) return 0;
  const int64_t a = point - shift;
  return static_cast<int32_t>(a >= 0 ? a / size : -((-a + size - 1) / size));
}

namespace {

/// Sorts `s` by packing each key into `Packed` (two 64-bit words, most significant first): each
/// coordinate biased by its minimum over the set, in as many bits as its range needs, in key
/// order, which keeps the keys' lexicographic order. Faster than comparing 16 ints; false when
/// the ranges need more than 128 bits.
bool packedSort(KeySet& s) {
  Key lo = s[0], hi = s[0];
  for (const Key& k : s)
    for (size_t i = 0; i < k.size(); ++i)
      lo[i] = std::min(lo[i], k[i]), hi[i] = std::max(hi[i], k[i]);
  std::array<int, std::tuple_size_v<Key>> bits{};
  int total = 0;
  for (size_t i = 0; i < lo.size(); ++i) {
    const uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(hi[i]) - lo[i]);
    bits[i] = range == 0 ? 0 : 64 - __builtin_clzll(range);
    total += bits[i];
  }
  if (total > 128) return false;
  using Packed = std::pair<uint64_t, uint64_t>;
  std::vector<Packed> packed(s.size());
  for (size_t n = 0; n < s.size(); ++n) {
    Packed v{0, 0};
    for (size_t i = 0; i < lo.size(); ++i) {
      if (!bits[i]) continue;
      const uint64_t x = static_cast<uint64_t>(static_cast<int64_t>(s[n][i]) - lo[i]);
      v.first = (v.first << bits[i]) | (v.second >> (64 - bits[i]));
      v.second = (v.second << bits[i]) | x;
    }
    packed[n] = v;
  }
  std::sort(packed.begin(), packed.end());
  packed.erase(std::unique(packed.begin(), packed.end()), packed.end());
  s.resize(packed.size());
  for (size_t n = 0; n < packed.size(); ++n) {
    Packed v = packed[n];
    for (size_t i = lo.size(); i-- > 0;) {
      if (!bits[i]) {
        s[n][i] = lo[i];
        continue;
      }
      const uint64_t mask = (uint64_t{1} << bits[i]) - 1;
      s[n][i] = static_cast<int32_t>(static_cast<int64_t>(v.second & mask) + lo[i]);
      v.second = (v.second >> bits[i]) | (bits[i] == 64 ? 0 : v.first << (64 - bits[i]));
      v.first >>= bits[i];
    }
  }
  return true;
}

}  // namespace

void normalize(KeySet& s) {
  if (s.size() < 2 || packedSort(s)) return;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
}

namespace {

class Tiler {
 public:
  Tiler(const StencilProgram& p, const Hierarchy& h)
      : p_(p), h_(h), n_(p.dims), shift_(p.stencils.size(), std::vector<int64_t>(p.dims, 0)) {}

  TilingMaps run(const Group& root) {
    derivedDomains();
    shareDomains();
    tile(root, 0, true);
    return maps();
  }

  RootTiling rootLevel(const Group& root) {
    derivedDomains();
    shareDomains();
    tile(root, 0, false);
    RootTiling out{std::move(ownDomains_), shift_, maps(), {}, {}};
    bool first = true;
    for (const auto& tiles : out.maps.tiles)
      for (const Key& k : *tiles) {
        for (size_t i = 0; i < k.size(); ++i) {
          out.lo[i] = first ? k[i] : std::min(out.lo[i], k[i]);
          out.hi[i] = first ? k[i] : std::max(out.hi[i], k[i]);
        }
        first = false;
      }
    return out;
  }

  TilingMaps rootChild(const RootTiling& base, const Group& root, size_t child) {
    domain_ = &base.domains;
    shift_ = base.shift;
    tiles_ = base.maps.tiles;  // shared: only the child's are replaced
    const Group& c = root.children.at(child);
    if (!c.leaf()) tile(c, 1, true);
    return maps();
  }

 private:
  /// Where each stencil is evaluated: an output's domain, and every point a later stencil reads,
  /// bounded by the stencil's own domain.
  void derivedDomains() {
    const size_t ns = p_.stencils.size();
    ownDomains_.assign(ns, {});
    for (size_t s = ns; s-- > 0;) {
      const Stencil& st = p_.stencils[s];
      KeySet d;
      if (p_.isOutput(static_cast<int>(s))) boxPoints(static_cast<int>(s), *st.domain, d);
      for (size_t c = s + 1; c < ns; ++c)
        for (const Access& a : p_.stencils[c].in)
          if (a.field == st.name)
            for (Key k : ownDomains_[c]) {
              k[0] = static_cast<int32_t>(s);
              for (int d2 = 0; d2 < n_; ++d2) k[kPoint + d2] += static_cast<int32_t>(a.offset[d2]);
              d.push_back(k);
            }
      if (st.domain)
        std::erase_if(d, [&](const Key& k) {
          for (int d2 = 0; d2 < n_; ++d2)
            if (k[kPoint + d2] < st.domain->lo[d2] || k[kPoint + d2] > st.domain->hi[d2])
              return true;
          return false;
        });
      normalize(d);
      ownDomains_[s] = std::move(d);
    }
  }

  void boxPoints(int s, const IndexBox& b, KeySet& out) const {
    Key k{};
    k[0] = s;
    std::vector<int64_t> u = b.lo;
    for (int d = 0; d < n_; ++d)
      if (b.hi[d] < b.lo[d]) return;
    for (;;) {
      for (int d = 0; d < n_; ++d) k[kPoint + d] = static_cast<int32_t>(u[d]);
      out.push_back(k);
      int d = n_ - 1;
      while (d >= 0 && u[d] == b.hi[d]) u[d] = b.lo[d], --d;
      if (d < 0) return;
      ++u[d];
    }
  }

  bool evaluated(int s, Key k) const {
    std::fill(k.begin() + kId, k.end(), 0);
    k[0] = s;
    const KeySet& d = (*domain_)[static_cast<size_t>(s)];
    return std::binary_search(d.begin(), d.end(), k);
  }

  /// `from` with this level's coordinates of the tile id set: the rectangular tiling T2_s.
  KeySet rect(int s, const KeySet& from, int level) const {
    const Level& l = h_.levels[static_cast<size_t>(level)];
    KeySet out = from;
    for (Key& k : out)
      for (int d = 0; d < n_; ++d)
        k[kId + level * n_ + d] = tileIdOf(k[kPoint + d], l.tile[static_cast<size_t>(d)],
                                           shift_[static_cast<size_t>(s)][d]);
    return out;
  }

  TilingMaps maps() {
    return TilingMaps{n_, static_cast<int>(h_.levels.size()), std::move(tiles_)};
  }

  /// Every stencil's tiles start as its domain.
  void shareDomains() {
    tiles_.clear();
    for (const KeySet& d : ownDomains_) tiles_.push_back(std::make_shared<const KeySet>(d));
  }

  void setTiles(int s, KeySet t) {
    tiles_[static_cast<size_t>(s)] = std::make_shared<const KeySet>(std::move(t));
  }

  /// Tiles `g` on `level` (0-based) and, with `deeper`, its groups on the levels below.
  void tile(const Group& g, int level, bool deeper) {
    const Level& l = h_.levels.at(static_cast<size_t>(level));
    const std::vector<int> sten = g.stencils();
    const std::set<int> inside(sten.begin(), sten.end());
    // The group's outputs: read by a stencil outside it, or results of the program.
    auto isOut = [&](int s) {
      if (p_.isOutput(s)) return true;
      for (size_t c = 0; c < p_.stencils.size(); ++c)
        if (!inside.count(static_cast<int>(c)))
          for (const Access& a : p_.stencils[c].in)
            if (a.field == p_.stencils[static_cast<size_t>(s)].name) return true;
      return false;
    };
    // Every (consumer in the group, offset) reading stencil s.
    auto consumers = [&](int s) {
      std::vector<std::pair<int, const Access*>> out;
      for (int c : sten)
        for (const Access& a : p_.stencils[static_cast<size_t>(c)].in)
          if (a.field == p_.stencils[static_cast<size_t>(s)].name) out.push_back({c, &a});
      return out;
    };
    if (l.halo == Halo::ExchangeSequential)
      for (auto it = sten.rbegin(); it != sten.rend(); ++it) {
        if (isOut(*it)) continue;
        std::vector<int64_t> sh(n_, INT64_MIN);
        for (auto [c, a] : consumers(*it))
          for (int d = 0; d < n_; ++d)
            sh[d] = std::max(sh[d], shift_[static_cast<size_t>(c)][d] + a->offset[d]);
        for (int d = 0; d < n_; ++d)
          if (sh[d] != INT64_MIN) shift_[static_cast<size_t>(*it)][d] = sh[d];
      }
    if (l.halo == Halo::OnTheFly) {
      for (auto it = sten.rbegin(); it != sten.rend(); ++it) {
        const int s = *it;
        KeySet t;
        if (isOut(s)) t = rect(s, *tiles_[static_cast<size_t>(s)], level);
        for (auto [c, a] : consumers(s))
          for (Key k : *tiles_[static_cast<size_t>(c)]) {
            k[0] = s;
            for (int d = 0; d < n_; ++d) k[kPoint + d] += static_cast<int32_t>(a->offset[d]);
            if (evaluated(s, k)) t.push_back(k);
          }
        normalize(t);
        setTiles(s, std::move(t));
      }
    } else {
      for (int s : sten) setTiles(s, rect(s, *tiles_[static_cast<size_t>(s)], level));
    }
    if (deeper)
      for (const Group& c : g.children)
        if (!c.leaf()) tile(c, level + 1, true);
  }

  const StencilProgram& p_;
  const Hierarchy& h_;
  int n_;
  std::vector<std::vector<int64_t>> shift_;
  std::vector<KeySet> ownDomains_;                    // derivedDomains()
  const std::vector<KeySet>* domain_ = &ownDomains_;  // ownDomains_ or a RootTiling's
  std::vector<std::shared_ptr<const KeySet>> tiles_;
};

}  // namespace

TilingMaps tileVariant(const StencilProgram& p, const Hierarchy& h, const Group& root) {
  return Tiler(p, h).run(root);
}

RootTiling tileRoot(const StencilProgram& p, const Hierarchy& h, const Group& root) {
  return Tiler(p, h).rootLevel(root);
}

TilingMaps tileRootChild(const StencilProgram& p, const Hierarchy& h, const RootTiling& base,
                         const Group& root, size_t child) {
  return Tiler(p, h).rootChild(base, root, child);
}

}  // namespace tessel::modesto::detail
