// The runs' costs counted incrementally (run_costs.h). The figures are evaluate.h's (Counter) for
// the case it applies to, read off its definitions: see the comments at each count.
#include "modesto/run_costs.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "modesto/packed_keys.h"

namespace tessel::modesto::detail {

bool runCostsApply(const Hierarchy& h) {
  if (h.levels.size() != 2) return false;
  for (const Level& l : h.levels)
    if (l.halo != Halo::OnTheFly) return false;
  return std::all_of(h.levels[0].tile.begin(), h.levels[0].tile.end(),
                     [](int64_t t) { return t == 0; });
}

namespace {

class RunCounter {
 public:
  RunCounter(const StencilProgram& p, const Hierarchy& h, const RootTiling& base,
             const std::vector<int>& order, size_t b)
      : p_(p),
        h_(h),
        base_(base),
        order_(order),
        b_(b),
        n_(p.dims),
        inputs_(p.inputFields()),
        fields_(p.stencils.size() + inputs_.size()),
        packing_(packing()),
        pos_(p.stencils.size(), -1),
        tiles2_(p.stencils.size()),
        packed2_(p.stencils.size()),
        packed1_(p.stencils.size()),
        readFromB_(p.stencils.size(), false),
        readAnywhere_(p.stencils.size(), false),
        loads1_(fields_),
        internal_(fields_, false) {
    for (size_t i = 0; i < order.size(); ++i)
      pos_[static_cast<size_t>(order[i])] = static_cast<int>(i);
    for (size_t i = 0; i < order.size(); ++i)
      for (const Access& a : p.stencils[static_cast<size_t>(order[i])].in)
        if (const int s = p.producer(a.field); s >= 0) {
          readAnywhere_[static_cast<size_t>(s)] = true;
          readFromB_[static_cast<size_t>(s)] = readFromB_[static_cast<size_t>(s)] || i >= b;
        }
  }

  std::vector<std::pair<double, bool>> run() {
    std::vector<std::pair<double, bool>> out(b_);
    for (size_t a = b_; a-- > 0;) {
      add(order_[a]);
      const Level& l1 = h_.levels[0];
      const Level& l2 = h_.levels[1];
      const double vertical =
          l1.vertical > 0 ? (loads1_total_ + static_cast<double>(stores1_.size())) / l1.vertical
                          : 0;
      out[a] = {std::max(groupSeconds_, vertical), l2.capacity <= 0 || fullest_ <= l2.capacity};
    }
    return out;
  }

 private:
  int fieldIndex(const std::string& f) const { return p_.fieldIndex(f, inputs_); }

  /// Points over every stencil's domain, level-2 tile ids over those points, level-1 ids 0
  /// (untiled), and what packingFor adds.
  KeyPacking packing() const {
    Key lo{}, hi{};
    bool first = true;
    for (const KeySet& d : base_.domains)
      for (const Key& k : d) {
        for (size_t i = kPoint; i < static_cast<size_t>(kPoint + n_); ++i) {
          lo[i] = first ? k[i] : std::min(lo[i], k[i]);
          hi[i] = first ? k[i] : std::max(hi[i], k[i]);
        }
        first = false;
      }
    const Level& l2 = h_.levels[1];
    for (size_t d = 0; d < static_cast<size_t>(n_); ++d) {
      lo[kId + n_ + d] = tileIdOf(lo[kPoint + d], l2.tile[d], 0);
      hi[kId + n_ + d] = tileIdOf(hi[kPoint + d], l2.tile[d], 0);
    }
    return packingFor(p_, lo, hi, fields_);
  }

  bool evaluated(int s, Key k) const {
    std::fill(k.begin() + kId, k.end(), 0);
    k[0] = s;
    const KeySet& d = base_.domains[static_cast<size_t>(s)];
    return std::binary_search(d.begin(), d.end(), k);
  }

  bool inRun(int s, size_t a) const {
    const int i = pos_[static_cast<size_t>(s)];
    return i >= static_cast<int>(a) && i < static_cast<int>(b_);
  }

  /// Whether stencil s (in the run) is an output of the run's group: read from b on, or a
  /// result of the program (evaluate.cpp's outputsOf; consumers follow their producers).
  bool leavesRun(int s) const { return p_.isOutput(s) || readFromB_[static_cast<size_t>(s)]; }

  /// Tiler::tile's on-the-fly level-2 tiles of `s`, added at position `a` in front of the run:
  /// its own rectangular tiles where it leaves the run, and every point its consumers in the
  /// run read of it, in their tiles, where it is evaluated.
  KeySet level2Tiles(int s, size_t a) const {
    KeySet t;
    if (leavesRun(s)) {
      const Level& l2 = h_.levels[1];
      t = *base_.maps.tiles[static_cast<size_t>(s)];
      for (Key& k : t)
        for (size_t d = 0; d < static_cast<size_t>(n_); ++d)
          k[kId + n_ + d] =
              tileIdOf(k[kPoint + d], l2.tile[d], base_.shift[static_cast<size_t>(s)][d]);
    }
    const std::string& name = p_.stencils[static_cast<size_t>(s)].name;
    for (size_t c = 0; c < p_.stencils.size(); ++c) {
      if (!inRun(static_cast<int>(c), a + 1)) continue;
      for (const Access& acc : p_.stencils[c].in) {
        if (acc.field != name) continue;
        for (Key k : tiles2_[c]) {
          k[0] = s;
          for (int dim = 0; dim < n_; ++dim)
            k[static_cast<size_t>(kPoint + dim)] +=
                static_cast<int32_t>(acc.offset[static_cast<size_t>(dim)]);
          if (evaluated(s, k)) t.push_back(k);
        }
      }
    }
    normalize(t);
    return t;
  }

  /// Stencil `s`'s access `a` on packed keys: its field for `s` and its offset.
  PackedRead delta(int s, const Access& a) const {
    return packedRead(packing_, n_, s, fieldIndex(a.field), a);
  }

  const std::vector<Packed>& level1Packed(int t) {
    auto& packed = packed1_[static_cast<size_t>(t)];
    if (!packed) {
      packed.emplace();
      for (const Key& k : *base_.maps.tiles[static_cast<size_t>(t)])
        packed->push_back(packing_.pack(k));
    }
    return *packed;
  }

  void add(int s) {
    const size_t a = static_cast<size_t>(pos_[static_cast<size_t>(s)]);
    const auto si = static_cast<size_t>(s);
    const Stencil& st = p_.stencils[si];
    tiles2_[si] = level2Tiles(s, a);
    for (const Key& k : tiles2_[si]) packed2_[si].push_back(packing_.pack(k));
    const Level& l2 = h_.levels[1];

    // Level 2, the leaf s as a child of the run's group. Its compute time; its loads: every
    // read (a leaf reads no field it computes), per element and level-2 tile.
    const double evaluations = static_cast<double>(packed2_[si].size());
    const double compute = h_.compute > 0 ? evaluations * st.ops / h_.compute : 0;
    PackedSet loads;
    for (const Access& acc : st.in) {
      const PackedRead d = delta(s, acc);
      for (Packed k : packed2_[si]) loads.insert(packing_.projected(d(k), 2));
    }
    // Its stores, on the fly: its own tiles where it leaves the group, and what the later
    // leaves of the run read of it, in their tiles (nothing where nobody reads it and it is
    // no result).
    PackedSet stores;
    if (p_.isOutput(s) || readAnywhere_[si]) {
      if (leavesRun(s))
        for (Packed k : packed2_[si]) stores.insert(packing_.projected(k, 2));
      for (size_t c = 0; c < p_.stencils.size(); ++c) {
        if (!inRun(static_cast<int>(c), a + 1)) continue;
        for (const Access& acc : p_.stencils[c].in) {
          if (acc.field != st.name) continue;
          const PackedRead d = delta(static_cast<int>(c), acc);
          for (Packed k : packed2_[c]) stores.insert(packing_.projected(d(k), 2));
        }
      }
    }
    const double vertical2 =
        l2.vertical > 0
            ? (static_cast<double>(loads.size()) + static_cast<double>(stores.size())) / l2.vertical
            : 0;
    groupSeconds_ += std::max(compute, vertical2);

    // The group's storage: every read of its leaves, per element, in the fullest level-2 tile.
    for (const Access& acc : st.in) {
      const PackedRead d = delta(s, acc);
      for (Packed k : packed2_[si]) {
        const Packed key = packing_.projected(d(k), 2);
        if (stored_.insert(key)) fullest_ = std::max(fullest_, ++perTile_[packing_.tileOf(key, 1)]);
      }
    }

    // Level 1, the run as a child of the root. Loads: the reads of fields the run does not
    // compute, per element; s computes its own field from now on.
    for (const Access& acc : st.in) {
      const int f = fieldIndex(acc.field);
      const PackedRead d = delta(s, acc);
      for (Packed k : packed2_[si])
        if (loads1_[static_cast<size_t>(f)].insert(packing_.projected(d(k), 1)) &&
            !internal_[static_cast<size_t>(f)])
          ++loads1_total_;
    }
    internal_[si] = true;
    loads1_total_ -= static_cast<double>(loads1_[si].size());
    // Stores, on the fly at the root (whose outputs are the program's): s's tiles where it is a
    // result, and what the stencils from b on read of it.
    if (p_.isOutput(s))
      for (Packed k : packed2_[si]) stores1_.insert(packing_.projected(k, 1));
    for (size_t i = b_; i < order_.size(); ++i) {
      const int t = order_[i];
      for (const Access& acc : p_.stencils[static_cast<size_t>(t)].in) {
        if (acc.field != st.name) continue;
        const PackedRead d = delta(t, acc);
        for (Packed k : level1Packed(t)) stores1_.insert(packing_.projected(d(k), 1));
      }
    }
  }

  const StencilProgram& p_;
  const Hierarchy& h_;
  const RootTiling& base_;
  const std::vector<int>& order_;
  size_t b_;
  int n_;
  std::vector<std::string> inputs_;
  size_t fields_;
  KeyPacking packing_;
  std::vector<int> pos_;                                     // per stencil, its place in the order
  std::vector<KeySet> tiles2_;                               // per stencil of the run
  std::vector<std::vector<Packed>> packed2_;                 // tiles2_, packed
  std::vector<std::optional<std::vector<Packed>>> packed1_;  // level 1's tiles, packed
  std::vector<bool> readFromB_;     // per stencil: its field is read from position b on
  std::vector<bool> readAnywhere_;  // per stencil: its field is read at all
  // Level 2: the run's group.
  double groupSeconds_ = 0;
  PackedSet stored_;
  std::map<Packed, double> perTile_;
  double fullest_ = 0;
  // Level 1: the run as the root's child.
  std::vector<PackedSet> loads1_;  // per field
  std::vector<bool> internal_;     // per field: computed by the run
  double loads1_total_ = 0;
  PackedSet stores1_;
};

}  // namespace

std::vector<std::pair<double, bool>> runsEndingAt(const StencilProgram& p, const Hierarchy& h,
                                                  const RootTiling& base,
                                                  const std::vector<int>& order, size_t b) {
  if (!runCostsApply(h))
    throw std::invalid_argument("modesto: incremental run costs need two on-the-fly levels");
  if (b == 0 || b > order.size()) throw std::invalid_argument("modesto: no runs end there");
  return RunCounter(p, h, base, order, b).run();
}

}  // namespace tessel::modesto::detail
