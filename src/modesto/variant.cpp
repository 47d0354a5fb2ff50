// Implementation variants: bracket expressions, orders and groupings (variant.h).
#include "modesto/variant.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <stdexcept>

namespace tessel::modesto {

std::vector<int> Group::stencils() const {
  if (leaf()) return {stencil};
  std::vector<int> out;
  for (const Group& c : children) {
    std::vector<int> s = c.stencils();
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

namespace {

/// `g` wrapped so that its stencils sit `depth` levels below it (a leaf at depth 0 stays).
Group wrapTo(Group g, int depth) {
  if (g.leaf()) {
    for (int d = 0; d < depth; ++d) g = Group{-1, {g}};
    return g;
  }
  for (Group& c : g.children) c = wrapTo(std::move(c), depth - 1);
  return g;
}

class VariantParser {
 public:
  VariantParser(const std::string& text, const StencilProgram& p) : text_(text), p_(p) {}

  Group parse(int levels) {
    skip();
    if (peek() != '[') fail("a variant starts with '['");
    Group root = group(1, levels);
    skip();
    if (pos_ != text_.size()) fail("text after the closing ']'");
    if (seen_.size() != p_.stencils.size()) {
      for (size_t s = 0; s < p_.stencils.size(); ++s)
        if (!seen_.count(static_cast<int>(s)))
          fail(fmt::format("stencil '{}' is in no group", p_.stencils[s].name));
    }
    return root;
  }

 private:
  Group group(int level, int levels) {
    if (level > levels)
      fail(fmt::format("brackets nest deeper than the hierarchy's {} levels", levels));
    ++pos_;  // '['
    Group g;
    for (;;) {
      skip();
      if (peek() == '[') {
        g.children.push_back(group(level + 1, levels));
      } else {
        g.children.push_back(wrapTo(Group{stencil(), {}}, levels - level));
      }
      skip();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return g;
      }
      fail("expected ',' or ']'");
    }
  }

  int stencil() {
    const size_t start = pos_;
    // Names as in the language, and `#` of a field's later versions (`m0#2`, from_program.h).
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '_' || text_[pos_] == '#'))
      ++pos_;
    const std::string name = text_.substr(start, pos_ - start);
    if (name.empty()) fail("expected a stencil name");
    const int s = p_.producer(name);
    if (s < 0) fail(fmt::format("no stencil is named '{}'", name));
    if (!seen_.insert(s).second) fail(fmt::format("stencil '{}' appears twice", name));
    for (const Access& a : p_.stencils[static_cast<size_t>(s)].in) {
      const int prod = p_.producer(a.field);
      if (prod >= 0 && !seen_.count(prod))
        fail(fmt::format("stencil '{}' comes before '{}', which it reads", name, a.field));
    }
    return s;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument(
        fmt::format("variant '{}', at character {}: {}", text_, pos_ + 1, why));
  }

  const std::string& text_;
  const StencilProgram& p_;
  size_t pos_ = 0;
  std::set<int> seen_;
};

}  // namespace

Group parseVariant(const std::string& text, const StencilProgram& p, int levels) {
  return VariantParser(text, p).parse(levels);
}

std::string variantText(const Group& g, const StencilProgram& p) {
  if (g.leaf()) return p.stencils.at(static_cast<size_t>(g.stencil)).name;
  if (g.children.size() == 1 && g.children[0].stencils().size() == 1)
    return "[" + p.stencils.at(static_cast<size_t>(g.children[0].stencils()[0])).name + "]";
  std::string out = "[";
  for (size_t c = 0; c < g.children.size(); ++c) {
    if (c) out += ",";
    out += variantText(g.children[c], p);
  }
  return out + "]";
}

std::vector<std::vector<int>> topologicalOrders(const StencilProgram& p, size_t limit) {
  const size_t n = p.stencils.size();
  std::vector<std::vector<int>> preds(n);
  for (size_t s = 0; s < n; ++s)
    for (const Access& a : p.stencils[s].in)
      if (int prod = p.producer(a.field); prod >= 0) preds[s].push_back(prod);
  std::vector<std::vector<int>> out;
  std::vector<int> order;
  std::vector<bool> placed(n, false);
  std::function<void()> extend = [&] {
    if (out.size() >= limit) return;
    if (order.size() == n) {
      out.push_back(order);
      return;
    }
    for (size_t s = 0; s < n; ++s) {
      if (placed[s]) continue;
      if (!std::all_of(preds[s].begin(), preds[s].end(),
                       [&](int q) { return placed[static_cast<size_t>(q)]; }))
        continue;
      placed[s] = true;
      order.push_back(static_cast<int>(s));
      extend();
      order.pop_back();
      placed[s] = false;
    }
  };
  extend();
  return out;
}

namespace {

/// The group at `level` (1-based) of `levels` over order[lo, hi), cut where cut[i] (between
/// order[i] and order[i + 1]) is at most `level + 1`.
Group build(const std::vector<int>& order, const std::vector<int>& cut, size_t lo, size_t hi,
            int level, int levels) {
  Group g;
  if (level == levels) {  // the innermost level holds the stencils themselves
    for (size_t i = lo; i < hi; ++i) g.children.push_back(Group{order[i], {}});
    return g;
  }
  size_t start = lo;
  for (size_t i = lo; i < hi; ++i)
    if (i + 1 == hi || cut[i] <= level + 1) {
      g.children.push_back(build(order, cut, start, i + 1, level + 1, levels));
      start = i + 1;
    }
  return g;
}

}  // namespace

std::vector<Group> groupings(const std::vector<int>& order, int levels) {
  std::vector<Group> out;
  if (order.empty()) return out;
  const size_t gaps = order.size() - 1;
  // cut[i] in 2..levels cuts the groups of that level and deeper; levels + 1 cuts none.
  std::vector<int> cut(gaps, 2);
  if (levels < 2) {
    std::fill(cut.begin(), cut.end(), levels + 1);
    out.push_back(build(order, cut, 0, order.size(), 1, levels));
    return out;
  }
  for (;;) {
    out.push_back(build(order, cut, 0, order.size(), 1, levels));
    size_t i = 0;
    while (i < gaps && cut[i] == levels + 1) cut[i++] = 2;
    if (i == gaps) break;
    ++cut[i];
  }
  return out;
}

}  // namespace tessel::modesto
