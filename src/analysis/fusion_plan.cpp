#include "analysis/fusion_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "analysis/stream_fusion.h"

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
    g.streamDim = cfg.streamDim;
    int n = static_cast<int>(g.body.size());
    if (!loop && n < g.timeTile && g.streamDim < 0) {
      g.remark = fmt::format("time_tile {}: the run has {} call{}: fused as {} step{}", g.timeTile,
                             n, n == 1 ? "" : "s", n, n == 1 ? "" : "s");
      g.timeTile = n;
    } else if (!loop && n < g.timeTile) {
      g.remark = fmt::format(
          "time_tile {}: the run has {} call{}, fewer than the time tile: {} "
          "per statement",
          g.timeTile, n, n == 1 ? "" : "s", n == 1 ? "it runs" : "they run");
    } else if (!loop && n % g.timeTile != 0) {
      g.remark = fmt::format("time_tile {}: the last {} of the run's {} call{} run per statement",
                             g.timeTile, n % g.timeTile, n, n == 1 ? "" : "s");
    }
    int t = g.timeTile;
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
      auto tile = tileForBlock(prog_, v.seq, cfg.coverage, cfg.streamDim);
      if (!tile) {
        auto halo = accumulatedHalo(prog_, v.seq, cfg.streamDim);
        g.fused = false;
        g.note = fmt::format(
            "a block covering {} points leaves no tile after the halo ({}) of {} fused steps",
            fmt::join(cfg.coverage, "x"), fmt::join(halo, "x"), t);
        break;
      }
      v.tile = *tile;
      if (cfg.streamDim >= 0) v.tile[static_cast<size_t>(cfg.streamDim)] = 1;
      v.analysis = analyzeTile(prog_, v.seq, {v.tile, cfg.streamDim, std::nullopt});
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
      if (cfg.streamDim >= 0) {
        StreamedPlan sp = streamedPlan(prog_, v.analysis);
        if (!sp.supported) {
          g.fused = false;
          g.note = "not streamed with time tiling: " + sp.whyNot;
          break;
        }
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
