// Counting, time and feasibility of one variant (evaluate.h).
#include "modesto/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "modesto/tiling.h"

namespace tessel::modesto {

double ChildCounts::time() const { return std::max({seconds, verticalSeconds, lateralSeconds}); }

namespace {

using detail::Key;
using detail::KeySet;
using detail::kId;
using detail::kPoint;

/// Every leaf of `g` sits `depth` levels below it.
bool leavesAt(const Group& g, int depth) {
  if (g.leaf()) return depth == 0;
  if (g.children.empty() || depth <= 0) return false;
  return std::all_of(g.children.begin(), g.children.end(),
                     [&](const Group& c) { return leavesAt(c, depth - 1); });
}

class Counter {
 public:
  /// `onlyRootChild` >= 0: count that child of the root alone (evaluateRootChild).
  Counter(const StencilProgram& p, const Hierarchy& h, detail::TilingMaps maps,
          int onlyRootChild = -1)
      : p_(p),
        h_(h),
        n_(p.dims),
        maps_(std::move(maps)),
        inputs_(p.inputFields()),
        onlyRootChild_(onlyRootChild) {}

  Evaluation run(const Group& root) {
    Evaluation e;
    e.variant = variantText(root, p_);
    for (size_t s = 0; s < p_.stencils.size(); ++s) {
      StencilCounts c;
      c.name = p_.stencils[s].name;
      c.evaluations = static_cast<double>(std::count_if(
          maps_.tiles[s].begin(), maps_.tiles[s].end(), [&](const Key& k) { return selected(k); }));
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

  int fieldIndex(const std::string& f) const {
    const int s = p_.producer(f);
    if (s >= 0) return s;
    return static_cast<int>(p_.stencils.size() +
                            (std::find(inputs_.begin(), inputs_.end(), f) - inputs_.begin()));
  }

  /// I_s restricted to `fields`, over S: (field, point read, tile id of the evaluation).
  void inputMap(int s, const std::set<int>& fields, KeySet& out) const {
    for (const Access& a : p_.stencils[static_cast<size_t>(s)].in) {
      const int f = fieldIndex(a.field);
      if (!fields.count(f)) continue;
      for (Key k : maps_.tiles[static_cast<size_t>(s)]) {
        if (!selected(k)) continue;
        k[0] = f;
        for (int d = 0; d < n_; ++d) k[kPoint + d] += static_cast<int32_t>(a.offset[d]);
        out.push_back(k);
      }
    }
  }

  /// `keys` with the tile coordinates of levels `keep` and deeper projected out, deduplicated.
  KeySet project(KeySet keys, int keep) const {
    for (Key& k : keys) std::fill(k.begin() + kId + keep * n_, k.end(), 0);
    detail::normalize(keys);
    return keys;
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
      KeySet in;
      for (int s : cs) inputMap(s, cin, in);
      cc.loads = static_cast<double>(project(std::move(in), level).size());
      // I_{p,c}: what the later children read of this child's outputs.
      KeySet later;
      for (size_t cj = ci + 1; cj < g.children.size(); ++cj)
        for (int s : g.children[cj].stencils()) inputMap(s, cout, later);
      // O_c: halo exchange, the child's own tiles of its outputs; on the fly, what the later
      // children read of them and, for the group's outputs, their tiles.
      KeySet written;
      for (int s : cout) {
        if (lv.halo == Halo::OnTheFly && !groupOut.count(s)) continue;
        for (const Key& k : maps_.tiles[static_cast<size_t>(s)])
          if (selected(k)) written.push_back(k);
      }
      if (lv.halo == Halo::OnTheFly) written.insert(written.end(), later.begin(), later.end());
      const KeySet writtenP = project(written, level);
      cc.stores = static_cast<double>(writtenP.size());
      // Lateral: consumed but not produced in the same tile, level by level (on the fly the
      // child writes all that later children read: nothing).
      cc.lateral.assign(static_cast<size_t>(level), 0);
      double before = 0;
      for (int k = 1; k <= level && lv.halo != Halo::OnTheFly; ++k) {
        const KeySet need = project(later, k), have = project(written, k);
        KeySet missing;
        std::set_difference(need.begin(), need.end(), have.begin(), have.end(),
                            std::back_inserter(missing));
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
    // Storage: the inputs and temporaries the children read, over the origin tile of every level
    // down to this one (S*), per element.
    KeySet stored;
    if (!alone)
      for (int s : sten) inputMap(s, storedFields, stored);
    std::erase_if(stored, [&](const Key& k) {
      for (int i = 0; i < level * n_; ++i)
        if (k[kId + i] != 0) return true;
      return false;
    });
    GroupCounts& out = e.groups[me];
    out.storage = static_cast<double>(project(std::move(stored), level).size());
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
  checkArguments(p, h, variant);
  if (child >= variant.children.size())
    throw std::invalid_argument(
        fmt::format("variant '{}' has no child {}", variantText(variant, p), child));
  return Counter(p, h, detail::tileVariant(p, h, variant), static_cast<int>(child)).run(variant);
}

}  // namespace tessel::modesto
