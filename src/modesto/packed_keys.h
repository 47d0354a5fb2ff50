// The counting engine's keys packed into 128-bit integers, and a set of them that removes
// duplicates as they are inserted (internal to modesto/). Counting a projected map needs only
// |{keys}|: packing turns a key (16 coordinates, 64 bytes) into one integer, a shift by an
// access offset into one addition and a projection into one mask, and the set counts without
// storing every key with its duplicates and sorting them (a 27-point stencil's input map has 27
// keys per point, most of them a point a neighbour reads as well).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "modesto/tiling.h"

namespace tessel::modesto::detail {

__extension__ typedef unsigned __int128 Packed;

/// A packing of the keys whose coordinates lie in [lo, hi] each: coordinate i biased by lo[i]
/// in the bits its range needs, so that adding to a coordinate within its range adds to the
/// packed value.
class KeyPacking {
 public:
  /// Throws std::invalid_argument when the ranges need more than 127 bits.
  KeyPacking(const Key& lo, const Key& hi, int dims);

  Packed pack(const Key& k) const;
  /// What adding `by` to coordinate `i` adds to a packed key (modulo 2^128).
  Packed delta(int i, int64_t by) const;
  /// Coordinate `i`'s bits in a packed key, and their value for coordinate `value` (in range).
  Packed coordinateMask(int i) const;
  Packed coordinate(int i, int64_t value) const;
  /// The packed key with its tile coordinates of levels `keep` (0-based) and deeper cleared.
  Packed projected(Packed p, int keep) const { return p & keepMask_[static_cast<size_t>(keep)]; }
  /// The tile coordinates of level `level` (0-based) alone.
  Packed tileOf(Packed p, int level) const {
    const auto l = static_cast<size_t>(level);
    return p & (outerMask_[l + 1] & ~outerMask_[l]);
  }
  /// Whether the tile coordinates of the levels before `levels` are all 0.
  bool outerTilesZero(Packed p, int levels) const {
    const auto l = static_cast<size_t>(levels);
    return (p & outerMask_[l]) == outerZero_[l];
  }

 private:
  Key lo_{};
  std::array<int, std::tuple_size_v<Key>> shift_{}, bits_{};
  std::array<Packed, kMaxLevels + 1> keepMask_{}, outerMask_{}, outerZero_{};
};

/// How a read moves a packed key of the evaluation (s, point, tile id) to the key of the element
/// it reads (field, point read, tile id): the absolute coordinates set, the field and the
/// relative offsets added.
struct PackedRead {
  Packed keep = ~Packed{0}, set = 0, delta = 0;
  Packed operator()(Packed k) const { return ((k & keep) | set) + delta; }
};
/// `access` of stencil `s`, reading the field of counting index `field`.
PackedRead packedRead(const KeyPacking& packing, int dims, int s, int field, const Access& access);

/// The packing of the keys a count of `p` forms from evaluations whose coordinates lie in
/// [lo, hi] (points and tile ids; the field coordinate is ignored): the points widened by the
/// reads' offsets and absolute coordinates, tile coordinates including 0 (outerTilesZero packs
/// one), fields 0..fields.
KeyPacking packingFor(const StencilProgram& p, Key lo, Key hi, size_t fields);

/// A set of packed keys: open addressing, linear probing, at most half full.
class PackedSet {
 public:
  /// Room for `n` keys without growing.
  void reserve(size_t n);
  /// Whether `k` was new.
  bool insert(Packed k);
  bool contains(Packed k) const;
  size_t size() const { return size_; }
  /// Calls `f` with each key, in no particular order.
  template <typename F>
  void forEach(F&& f) const {
    for (Packed k : slots_)
      if (k != kEmpty) f(k);
  }

 private:
  static constexpr Packed kEmpty = ~Packed{0};  // no key: the packing leaves bit 127 clear
  size_t find(Packed k) const;
  void rehash(size_t slots);

  std::vector<Packed> slots_;
  size_t size_ = 0;
};

}  // namespace tessel::modesto::detail
