// Packed keys and their set (packed_keys.h).
#include "modesto/packed_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace tessel::modesto::detail {

KeyPacking::KeyPacking(const Key& lo, const Key& hi, int dims) : lo_(lo) {
  std::array<int, std::tuple_size_v<Key>> bits{};
  int total = 0;
  for (size_t i = lo.size(); i-- > 0;) {
    const uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(hi[i]) - lo[i]);
    bits[i] = range == 0 ? 0 : 64 - __builtin_clzll(range);
    bits_[i] = bits[i];
    shift_[i] = total;
    total += bits[i];
  }
  if (total > 127)
    throw std::invalid_argument(fmt::format(
        "modesto: the counting domain's keys need {} bits, more than the 127 the counting "
        "engine packs them in (a smaller domain or fewer tiling levels)",
        total));
  auto field = [&](size_t i) { return ((Packed{1} << bits[i]) - 1) << shift_[i]; };
  const size_t n = static_cast<size_t>(dims);
  for (size_t keep = 0; keep <= kMaxLevels; ++keep) {
    Packed all = (Packed{1} << total) - 1, outer = 0, zero = 0;
    for (size_t i = kId + keep * n; i < lo.size(); ++i) all &= ~field(i);
    for (size_t i = kId; i < kId + keep * n && i < lo.size(); ++i) {
      outer |= field(i);
      // The packed value of a tile coordinate 0 (inside the range: the origin tile is counted).
      zero |= static_cast<Packed>(static_cast<uint64_t>(-static_cast<int64_t>(lo[i]))) << shift_[i];
    }
    keepMask_[keep] = all;
    outerMask_[keep] = outer;
    outerZero_[keep] = zero & outer;
  }
}

Packed KeyPacking::pack(const Key& k) const {
  Packed p = 0;
  for (size_t i = 0; i < k.size(); ++i)
    p |= static_cast<Packed>(static_cast<uint64_t>(static_cast<int64_t>(k[i]) - lo_[i]))
         << shift_[i];
  return p;
}

Packed KeyPacking::delta(int i, int64_t by) const {
  __extension__ typedef __int128 Signed;
  return static_cast<Packed>(static_cast<Signed>(by) << shift_[static_cast<size_t>(i)]);
}

Packed KeyPacking::coordinateMask(int i) const {
  const auto c = static_cast<size_t>(i);
  return ((Packed{1} << bits_[c]) - 1) << shift_[c];
}

Packed KeyPacking::coordinate(int i, int64_t value) const {
  const auto c = static_cast<size_t>(i);
  return static_cast<Packed>(static_cast<uint64_t>(value - lo_[c])) << shift_[c];
}

PackedRead packedRead(const KeyPacking& packing, int dims, int s, int field, const Access& access) {
  PackedRead r;
  r.delta = packing.delta(0, field - s);
  for (int d = 0; d < dims; ++d) {
    const int64_t by = access.offset[static_cast<size_t>(d)];
    if (access.absoluteAt(static_cast<size_t>(d))) {
      r.keep &= ~packing.coordinateMask(kPoint + d);
      r.set |= packing.coordinate(kPoint + d, by);
    } else {
      r.delta += packing.delta(kPoint + d, by);
    }
  }
  return r;
}

KeyPacking packingFor(const StencilProgram& p, Key lo, Key hi, size_t fields) {
  for (size_t i = kId; i < lo.size(); ++i) lo[i] = std::min(lo[i], 0), hi[i] = std::max(hi[i], 0);
  lo[0] = 0;
  hi[0] = static_cast<int32_t>(fields);
  std::array<int64_t, kMaxDims> lowest{}, highest{};
  Key absLo = lo, absHi = hi;  // the absolute coordinates read, with the points
  for (const Stencil& st : p.stencils)
    for (const Access& a : st.in)
      for (size_t d = 0; d < static_cast<size_t>(p.dims); ++d) {
        if (a.absoluteAt(d)) {
          absLo[kPoint + d] = std::min<int64_t>(absLo[kPoint + d], a.offset[d]);
          absHi[kPoint + d] = std::max<int64_t>(absHi[kPoint + d], a.offset[d]);
          continue;
        }
        lowest[d] = std::min(lowest[d], a.offset[d]);
        highest[d] = std::max(highest[d], a.offset[d]);
      }
  for (size_t d = 0; d < static_cast<size_t>(p.dims); ++d) {
    lo[kPoint + d] = std::min(absLo[kPoint + d], static_cast<int32_t>(lo[kPoint + d] + lowest[d]));
    hi[kPoint + d] = std::max(absHi[kPoint + d], static_cast<int32_t>(hi[kPoint + d] + highest[d]));
  }
  return KeyPacking(lo, hi, p.dims);
}

namespace {

size_t mix(Packed k) {
  uint64_t h = static_cast<uint64_t>(k) ^ (static_cast<uint64_t>(k >> 64) * 0x9e3779b97f4a7c15ULL);
  h = (h ^ (h >> 32)) * 0xd6e8feb86659fd93ULL;
  return static_cast<size_t>(h ^ (h >> 32));
}

}  // namespace

size_t PackedSet::find(Packed k) const {
  const size_t mask = slots_.size() - 1;
  for (size_t slot = mix(k) & mask;; slot = (slot + 1) & mask)
    if (slots_[slot] == kEmpty || slots_[slot] == k) return slot;
}

void PackedSet::reserve(size_t n) {
  size_t slots = 1024;
  while (slots < 2 * n) slots *= 2;
  if (slots > slots_.size()) rehash(slots);
}

bool PackedSet::insert(Packed k) {
  if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 1024 : 2 * slots_.size());
  const size_t slot = find(k);
  if (slots_[slot] == k) return false;
  slots_[slot] = k;
  ++size_;
  return true;
}

bool PackedSet::contains(Packed k) const { return size_ > 0 && slots_[find(k)] == k; }

void PackedSet::rehash(size_t slots) {
  std::vector<Packed> old = std::move(slots_);
  slots_.assign(slots, kEmpty);
  for (Packed k : old)
    if (k != kEmpty) slots_[find(k)] = k;
}

}  // namespace tessel::modesto::detail
