#include "analysis/fusion_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace tessel {

const FusedVariant* FusionGroup::variant(int phase) const {
  for (auto& v : variants)
    if (v.phase == phase) return &v;
  return nullptr;
}

namespace {

class Planner {
 public:
  Planner(const Program& p, const std::vector<FusionConfig>& c) : prog_(p), configs_(c) {}

  void walk(const std::vector<ExecNode>& nodes) {
    size_t k = 0;
    while (k < nodes.size()) {
      const ExecNode& n = nodes[k];
      if (n.kind == ExecNode::Kind::Iterate) {
        if (loopBody(n.body))
          add(&n, nullptr, 0, 0, calls(n.body, 0, n.body.size()));
        else
          walk(n.body);
        ++k;
        continue;
      }
      if (!overlapped(n.call)) {
        ++k;
        continue;
      }
      size_t e = k;
      while (e < nodes.size() && nodes[e].kind == ExecNode::Kind::Call && overlapped(nodes[e].call))
        ++e;
      add(nullptr, &nodes, k, e - k, calls(nodes, k, e));
      k = e;
    }
  }

  std::vector<FusionGroup> groups;

 private:
  const Program& prog_;
  const std::vector<FusionConfig>& configs_;

  bool overlapped(int call) const {
    size_t s = static_cast<size_t>(prog_.calls.at(static_cast<size_t>(call)).stencil);
    return s < configs_.size() && configs_[s].overlapped;
  }
  /// A loop body fused as a whole: only calls, all of overlapped stencils.
  bool loopBody(const std::vector<ExecNode>& nodes) const {
    if (nodes.empty()) return false;
    for (auto& n : nodes)
      if (n.kind != ExecNode::Kind::Call || !overlapped(n.call)) return false;
    return true;
  }
  static std::vector<int> calls(const std::vector<ExecNode>& nodes, size_t b, size_t e) {
    std::vector<int> out;
    for (size_t k = b; k < e; ++k) out.push_back(nodes[k].call);
    return out;
  }

  void add(const ExecNode* loop, const std::vector<ExecNode>* parent, size_t first, size_t count,
           std::vector<int> body) {
    FusionGroup g;
    g.iterate = loop;
    g.parent = parent;
    g.first = first;
    g.count = count;
    g.body = std::move(body);
    g.stencil = prog_.calls.at(static_cast<size_t>(g.body[0])).stencil;
    const FusionConfig& cfg = configs_.at(static_cast<size_t>(g.stencil));
    g.timeTile = std::max(1, cfg.timeTile);
    int n = static_cast<int>(g.body.size()), t = g.timeTile;
    std::vector<int> phases;
    if (loop) {
      int step = std::gcd(n, t);
      for (int p = 0; p < n; p += step) phases.push_back(p);
    } else {
      for (int p = 0; p + t <= n; p += t) phases.push_back(p);
    }
    g.fused = true;
    for (int p : phases) {
      FusedVariant v;
      v.phase = p;
      for (int k = 0; k < t; ++k) v.seq.calls.push_back(g.body[static_cast<size_t>((p + k) % n)]);
      auto tile = tileForBlock(prog_, v.seq, cfg.coverage);
      if (!tile) {
        auto halo = accumulatedHalo(prog_, v.seq);
        g.fused = false;
        g.note = fmt::format(
            "a block covering {} points leaves no tile after the halo ({}) of {} fused steps",
            fmt::join(cfg.coverage, "x"), fmt::join(halo, "x"), t);
        break;
      }
      v.tile = *tile;
      v.analysis = analyzeTile(prog_, v.seq, {v.tile, -1, std::nullopt});
      if (!v.analysis.supported) {
        g.fused = false;
        g.note = "not fused: " + v.analysis.whyNot;
        break;
      }
      if (v.analysis.results.empty()) {
        g.fused = false;
        g.note = "not fused: the calls write no global array";
        break;
      }
      g.variants.push_back(std::move(v));
    }
    if (!g.fused) g.variants.clear();
    groups.push_back(std::move(g));
  }
};

}  // namespace

std::vector<FusionGroup> planFusion(const Program& prog, const std::vector<FusionConfig>& configs) {
  Planner p(prog, configs);
  p.walk(prog.body);
  return p.groups;
}

}  // namespace tessel
