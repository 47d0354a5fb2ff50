// resolve(): a program's Schedules into the grids, the fused groups of time steps (planFusion)
// and the stagings every later stage reads; setUpSchedules(), from the command line to it
// (resolve.h).
#include "schedule/resolve.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>

#include "analysis/accesses.h"
#include "analysis/dead_stores.h"
#include "analysis/folding.h"
#include "analysis/retiming.h"
#include "analysis/stream_fusion.h"
#include "support/saturating.h"

namespace tessel {

namespace {

/// v clamped into int (the fitting may try absurd values before validate() refuses them).
int clampInt(int64_t v) {
  return static_cast<int>(
      std::clamp<int64_t>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

/// Throws std::invalid_argument when `g` is one no program can run.
void check(const GridShape& g, const Program& prog, const std::string& who) {
  int n = prog.dims();
  if (g.stream >= n)
    throw std::invalid_argument(
        fmt::format("{}: streaming dimension {} does not exist: the program has {} iterator{}", who,
                    g.stream, n, n == 1 ? "" : "s"));
  if (g.family == ScheduleFamily::Stream && g.stream == n - 1)
    throw std::invalid_argument(
        fmt::format("{}: the stream family cannot stream the unit-stride iterator", who));
  if (g.chunk < 0)
    throw std::invalid_argument(fmt::format("{}: chunk {} is negative", who, g.chunk));
  for (int b : g.block)
    if (b < 0) throw std::invalid_argument(fmt::format("{}: block extent {} is negative", who, b));
  for (int u : g.unroll)
    if (u < 1) throw std::invalid_argument(fmt::format("{}: unroll {} is below 1", who, u));
  if (g.timeTile < 1)
    throw std::invalid_argument(fmt::format("{}: time tile {} is below 1", who, g.timeTile));
}

}  // namespace

const FusedVariant* FusionGroup::variant(int phase) const {
  for (auto& v : variants)
    if (v.phase == phase) return &v;
  return nullptr;
}

namespace {

/// A grid's block as `tessel info` prints a kernel's ("32x4x1": x first).
std::string blockText(const GridShape& g) { return fmt::format("{}", fmt::join(g.block, "x")); }

/// ", unroll 2x1x1" where a thread computes more than one point; "" otherwise.
std::string unrollText(const GridShape& g) {
  if (g.unroll == std::array<int, 3>{1, 1, 1}) return "";
  return fmt::format(", unroll {}", fmt::join(g.unroll, "x"));
}

class Planner {
 public:
  Planner(const Program& p, const std::vector<GridShape>& g) : prog_(p), grids_(g) {}

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
      // A run ends where the time tile changes: a stencil whose grid fuses another number of
      // steps starts a run of its own (a deep-tuned composition, driver/deep_tune_program.h).
      // Statement fusion under stream (one step per kernel) fuses nothing across calls: a run
      // ends where the stencil changes, so that each kernel takes its own stencil's grid.
      size_t e = k;
      while (e < nodes.size() && nodes[e].kind == ExecNode::Kind::Call &&
             overlapped(nodes[e].call) && timeTile(nodes[e].call) == timeTile(n.call) &&
             (!statementsOnly(n.call) || stencilOf(nodes[e].call) == stencilOf(n.call)))
        ++e;
      add(nullptr, &nodes, k, e - k, calls(nodes, k, e));
      k = e;
    }
  }

  std::vector<FusionGroup> groups;

 private:
  const Program& prog_;
  const std::vector<GridShape>& grids_;

  bool overlapped(int call) const {
    size_t s = static_cast<size_t>(prog_.calls.at(static_cast<size_t>(call)).stencil);
    return s < grids_.size() && grids_[s].fusesSteps();
  }
  int timeTile(int call) const {
    return grids_.at(static_cast<size_t>(prog_.calls.at(static_cast<size_t>(call)).stencil))
        .timeTile;
  }
  int stencilOf(int call) const { return prog_.calls.at(static_cast<size_t>(call)).stencil; }
  /// The call's grid is stream's statement fusion: one streamed kernel per call, one step.
  bool statementsOnly(int call) const {
    const GridShape& g = grids_.at(static_cast<size_t>(stencilOf(call)));
    return g.fusedStreamDim() >= 0 && g.timeTile <= 1;
  }
  /// A loop body fused as a whole: only calls, all of overlapped stencils (under stream's
  /// statement fusion, all of one stencil: each kernel takes its stencil's grid).
  bool loopBody(const std::vector<ExecNode>& nodes) const {
    if (nodes.empty()) return false;
    for (auto& n : nodes)
      if (n.kind != ExecNode::Kind::Call || !overlapped(n.call)) return false;
    for (auto& n : nodes)
      if (statementsOnly(n.call) && stencilOf(n.call) != stencilOf(nodes.front().call))
        return false;
    return true;
  }
  /// The statements of `seq` retimed along the streamed dimension `sd` (stream + time_tile
  /// with retime). A call of a stencil whose own schedule the validation checked for fused
  /// kernels retimes; one fused into another stencil's kernel (the group's grid is its first
  /// call's), or met while the schedules are still being fitted, is left unretimed where some
  /// statement cannot be retimed in a fused kernel, with a remark.
  std::vector<RetimedStmt> retimedStmts(const FusedSequence& seq, int sd,
                                        std::vector<std::string>& remarks) const {
    std::vector<RetimedStmt> out;
    if (sd < 0) return out;
    std::set<int> seen;
    for (int c : seq.calls) {
      const CallInst& call = prog_.calls.at(static_cast<size_t>(c));
      if (!seen.insert(c).second || !grids_.at(static_cast<size_t>(call.stencil)).retime) continue;
      std::vector<RetimedStmt> mine;
      std::string why;
      for (size_t k = 0; k < call.stmts.size() && why.empty(); ++k) {
        Retiming r = retime(prog_, call, call.stmts[k], sd);
        SourceLoc at;
        why = r.ok ? whyFusedKernelsCannotRetime(call.stmts[k], r, at) : r.whyNot;
        if (!why.empty())
          why = fmt::format("statement {}: {}", k + 1, why);
        else
          mine.push_back({c, static_cast<int>(k), std::move(r)});
      }
      if (why.empty())
        out.insert(out.end(), mine.begin(), mine.end());
      else
        remark(remarks,
               fmt::format("retime: the fused kernel does not retime call {} (stencil "
                           "'{}'): {}",
                           c, prog_.stencils.at(static_cast<size_t>(call.stencil)).name, why));
    }
    return out;
  }
  /// Adds `r` to `remarks` once (the variants of a group repeat them).
  static void remark(std::vector<std::string>& remarks, const std::string& r) {
    if (std::find(remarks.begin(), remarks.end(), r) == remarks.end()) remarks.push_back(r);
  }
  /// The arrays of `seq` that the grid of stencil `stencil` puts in global memory (`gmem`
  /// placements, occupancy demotion: GridShape::globalFormals, by their formal names in the
  /// stencil's calls) and that no stage writes: read from global memory instead of an input ring
  /// (TileSpec::globalInputs). The others get a remark: their ring stays.
  std::vector<int> globalInputs(const FusedSequence& seq, int stencil, const GridShape& grid,
                                std::vector<std::string>& remarks) const {
    std::set<int> written, out;
    for (int c : seq.calls)
      for (const Stmt& st : prog_.calls.at(static_cast<size_t>(c)).stmts)
        if (!st.lhsIsScalar() && !st.lhs->array.local) written.insert(st.lhs->array.index);
    for (int c : seq.calls) {
      const CallInst& call = prog_.calls.at(static_cast<size_t>(c));
      if (call.stencil != stencil) continue;
      // Under `no_shmem`: every global array the call reads.
      std::set<int> read;
      for (const Stmt& st : call.stmts)
        for (const Reference& r : stmtAccesses(st).reads)
          if (!r.scalar && !r.array.local) read.insert(r.array.index);
      for (size_t a = 0; a < prog_.arrays.size(); ++a) {
        const std::string formal = formalName(prog_, call, {false, static_cast<int>(a)});
        const bool listed = std::find(grid.globalFormals.begin(), grid.globalFormals.end(),
                                      formal) != grid.globalFormals.end();
        if (!listed && !(grid.noShmem && read.count(static_cast<int>(a)))) continue;
        if (!written.count(static_cast<int>(a)))
          out.insert(static_cast<int>(a));
        else
          remark(remarks, fmt::format("'{}' stays in shared memory: the fused kernel writes it "
                                      "(only the arrays it only reads can be read from global "
                                      "memory instead of a ring)",
                                      formal));
      }
    }
    // An array of fewer dimensions than the program (a coefficient along one axis, such as a
    // grid stretching) has no planes to ring: the kernel reads it from global memory, where
    // the caches keep it.
    for (int c : seq.calls)
      for (const Stmt& st : prog_.calls.at(static_cast<size_t>(c)).stmts)
        for (const Reference& r : stmtAccesses(st).reads)
          if (!r.scalar && !r.array.local && !written.count(r.array.index) &&
              static_cast<int>(prog_.arrays.at(static_cast<size_t>(r.array.index)).extents.size()) <
                  prog_.dims())
            out.insert(r.array.index);
    return {out.begin(), out.end()};
  }
  /// Whether fold `f`'s array has an input ring in shared memory in `a`.
  static bool stagedInput(const TileAnalysis& a, const Fold& f) {
    return std::any_of(a.buffers.begin(), a.buffers.end(), [&](const TileBuffer& b) {
      return b.producer < 0 && b.shared && b.value.kind == TileValue::Kind::Global &&
             b.value.index == f.array.index;
    });
  }
  /// "'p - q'": the folds of `a` that have no input ring, quoted, joined by " and ".
  static std::string unstagedFolds(const TileAnalysis& a) {
    std::vector<std::string> out;
    for (const Fold& f : a.spec.folds)
      if (!stagedInput(a, f)) out.push_back("'" + f.text + "'");
    return fmt::format("{}", fmt::join(out, " and "));
  }
  /// The folds of `seq` (stream + time_tile with fold, analysis/folding.h: foldSequence); where
  /// a statement folds on its own but the sequence does not, a remark says why.
  std::vector<Fold> sequenceFolds(const FusedSequence& seq, int sd, const GridShape& grid,
                                  std::vector<std::string>& remarks) const {
    if (sd < 0 || !grid.fold || grid.retime) return {};
    std::vector<FoldItem> items;
    std::set<int> seen;
    for (int c : seq.calls)
      if (seen.insert(c).second)
        for (const Stmt& st : prog_.calls.at(static_cast<size_t>(c)).stmts)
          items.push_back({&prog_.calls.at(static_cast<size_t>(c)), &st});
    std::vector<Fold> folds = foldSequence(prog_, items);
    for (const FoldItem& it : items)
      for (const Fold& f : foldStatement(prog_, *it.call, *it.stmt).folds) {
        std::string why = whyNotSequenceFold(prog_, items, f);
        if (!why.empty())
          remark(remarks, fmt::format("fold: '{}' folds in '{}' alone but not in the fused "
                                      "kernel: {}",
                                      f.text, it.call->name, why));
      }
    return folds;
  }
  static std::vector<int> calls(const std::vector<ExecNode>& nodes, size_t b, size_t e) {
    std::vector<int> out;
    for (size_t k = b; k < e; ++k) out.push_back(nodes[k].call);
    return out;
  }

  /// Where group `g` sits, for the dead-store analysis.
  FusedGroupPlace place(const FusionGroup& g) const {
    FusedGroupPlace p;
    p.body = g.body;
    p.iterate = g.iterate != nullptr;
    p.timeTile = g.timeTile;
    const std::vector<ExecNode>& top = prog_.body;
    auto inTop = [&](const ExecNode* n) { return n >= top.data() && n < top.data() + top.size(); };
    size_t end = 0;
    if (g.iterate && inTop(g.iterate)) {
      p.topLevel = true;
      end = static_cast<size_t>(g.iterate - top.data()) + 1;
    } else if (!g.iterate && g.parent == &top) {
      p.topLevel = true;
      end = g.first + g.count;
    }
    if (p.topLevel)
      for (size_t k = end; k < top.size(); ++k) p.after.push_back(&top[k]);
    return p;
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
    const GridShape& grid = grids_.at(static_cast<size_t>(g.stencil));
    // One kernel runs with one block: the first call's stencil's. Say so where another
    // stencil of the group asks for another one in its `#pragma` (defaults that differ, fitted
    // per stencil, are no request).
    std::set<int> told;
    for (int c : g.body) {
      const int st = prog_.calls.at(static_cast<size_t>(c)).stencil;
      const GridShape& other = grids_.at(static_cast<size_t>(st));
      const auto& clauses = prog_.stencils[static_cast<size_t>(st)].hints.clauses;
      const bool asked = std::any_of(clauses.begin(), clauses.end(), [](const Hints::Clause& h) {
        return h.name == "block" || h.name == "unroll";
      });
      if (st == g.stencil || !asked || !told.insert(st).second ||
          (other.block == grid.block && other.unroll == grid.unroll))
        continue;
      remark(g.remarks,
             fmt::format("stencil '{}' asks for block {}{}; the fused kernel runs with block "
                         "{}{}, the first call's (stencil '{}'): one kernel, one block",
                         prog_.stencils[static_cast<size_t>(st)].name, blockText(other),
                         unrollText(other), blockText(grid), unrollText(grid),
                         prog_.stencils[static_cast<size_t>(g.stencil)].name));
    }
    const std::vector<int64_t> coverage = grid.coverage(prog_.dims());
    g.timeTile = std::max(1, grid.timeTile);
    g.streamDim = grid.fusedStreamDim();
    int n = static_cast<int>(g.body.size());
    // Fewer calls than the time tile: fused as the steps there are (under stream only where
    // statement fusion is asked for; else the stream kernels run each statement).
    if (!loop && n < g.timeTile && (g.streamDim < 0 || grid.fuseStatements)) {
      g.remark = fmt::format("time_tile {}: the run has {} call{}: fused as {} step{}", g.timeTile,
                             n, n == 1 ? "" : "s", n, n == 1 ? "" : "s");
      g.timeTile = n;
    } else if (!loop && n < g.timeTile) {
      g.remark = fmt::format(
          "time_tile {}: the run has {} call{}, fewer than the time tile: {} "
          "per statement{}",
          g.timeTile, n, n == 1 ? "" : "s", n == 1 ? "it runs" : "they run",
          std::any_of(g.body.begin(), g.body.end(),
                      [&](int c) {
                        return severalStatements(prog_,
                                                 prog_.calls.at(static_cast<size_t>(c)).stencil);
                      })
              ? " (--fuse-statements fuses each call's statements into one streamed kernel)"
              : "");
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
      auto tile = tileForBlock(prog_, v.seq, coverage, g.streamDim);
      if (!tile) {
        auto halo = accumulatedHalo(prog_, v.seq, g.streamDim);
        g.fused = false;
        g.note = fmt::format(
            "a block covering {} points leaves no tile after the halo ({}) of {} fused steps",
            fmt::join(coverage, "x"), fmt::join(halo, "x"), t);
        break;
      }
      v.tile = *tile;
      if (g.streamDim >= 0) v.tile[static_cast<size_t>(g.streamDim)] = 1;
      const std::vector<RetimedStmt> retimed = retimedStmts(v.seq, g.streamDim, g.remarks);
      std::vector<Fold> folds = sequenceFolds(v.seq, g.streamDim, grid, g.remarks);
      const std::vector<int> inMemory =
          g.streamDim >= 0 ? globalInputs(v.seq, g.stencil, grid, g.remarks) : std::vector<int>{};
      const auto analyze = [&] {
        TileSpec spec{v.tile, g.streamDim, std::nullopt, grid.sparePlane, retimed, folds, inMemory};
        spec.registerValues = grid.registerValues;
        v.analysis = analyzeTile(prog_, v.seq, spec);
        // Arrays no later kernel reads are not written back (analysis/dead_stores.h).
        if (!grid.keepDeadStores && v.analysis.supported) {
          std::vector<int> live = liveResults(prog_, place(g), p);
          if (live.size() < v.analysis.results.size() && !live.empty()) {
            spec.results = live;
            v.analysis = analyzeTile(prog_, v.seq, spec);
          }
        }
      };
      analyze();
      // A fold stages its combination in the first array's input ring; a pair read only at the
      // centre, or placed in global memory, has none: nothing to fold there.
      if (std::erase_if(folds, [&](const Fold& f) { return !stagedInput(v.analysis, f); }) > 0) {
        remark(g.remarks, "fold: the fused kernel reads " + unstagedFolds(v.analysis) +
                              " from global memory (only at the centre, or placed there): "
                              "nothing to stage");
        analyze();
      }
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
      if (g.streamDim >= 0) {
        StreamedPlan sp = streamedPlan(prog_, v.analysis);
        if (!sp.supported) {
          g.fused = false;
          g.note = (g.timeTile <= 1 ? "not streamed as one kernel: "
                                    : "not streamed with time tiling: ") +
                   sp.whyNot;
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

std::vector<FusionGroup> planFusion(const Program& prog, const std::vector<GridShape>& grids) {
  Planner p(prog, grids);
  p.walk(prog.body);
  return p.groups;
}

GridShape GridShape::perStatement() const {
  if (family != ScheduleFamily::Overlapped) return *this;
  GridShape g = *this;
  g.family = ScheduleFamily::Global;
  g.unroll = {1, 1, 1};
  return g;
}

const GridShape& ResolvedSchedule::gridOfCall(const Program& prog, int call) const {
  return grids.at(static_cast<size_t>(prog.calls.at(static_cast<size_t>(call)).stencil));
}

bool ResolvedSchedule::runsKernels() const {
  return std::any_of(grids.begin(), grids.end(),
                     [](const GridShape& g) { return g.family != ScheduleFamily::Global; });
}

GridShape gridOf(const Schedule& s, const Program& prog, std::vector<std::string>* notes) {
  const int n = prog.dims();
  const std::string who = s.stencil >= 0 && s.stencil < static_cast<int>(prog.stencils.size())
                              ? "stencil '" + prog.stencils[s.stencil].name + "'"
                              : "a stencil";
  GridShape g;
  g.family = s.family.value;
  g.timeTile = clampInt(s.timeTile.value);
  g.keepDeadStores = s.keepDeadStores.value;
  g.sparePlane = s.sparePlane.value;
  g.registerValues = s.registerValues.value;
  g.retime = s.retime.value;
  g.prefetch = s.prefetch.value;
  g.fold = s.fold.value;
  g.fuseStatements = s.fuseStatements.value;
  // Under stream, a stencil of one statement keeps the family's own kernel (fusing nothing).
  if (g.fuseStatements && g.family == ScheduleFamily::Stream)
    g.fuseStatements = severalStatements(prog, s.stencil);
  for (const PlacementSpec& p : s.placements)
    if (p.readFromGlobal()) g.globalFormals.push_back(p.array);
  for (const std::string& d : s.demoted) g.globalFormals.push_back(d);
  g.noShmem = s.noShmem.value;
  g.indexBits = s.indexBits.value;
  g.fma = s.fma.value;
  g.maxRegisters = s.maxRegisters.value;
  if (streams(g.family) && n == 1) {
    // Nothing is left to stream over: stream runs as shared, global-stream as global.
    ScheduleFamily to =
        g.family == ScheduleFamily::Stream ? ScheduleFamily::Shared : ScheduleFamily::Global;
    if (notes)
      notes->push_back(fmt::format(
          "{}: {} does not apply to a 1-D program (there is no dimension left to stream over): "
          "using {}",
          who, familyName(g.family), familyName(to)));
    g.family = to;
  }
  if (streams(g.family)) g.stream = std::max(streamDim(s, prog), 0);  // default: the slowest
  if (g.family == ScheduleFamily::Stream)
    g.chunk = s.stream && s.stream->value.full ? 0 : clampInt(s.chunk.value);
  for (int d = n - 1; d >= 0; --d)
    if (d != g.stream) g.iters.push_back(d);  // x is the fastest remaining iterator
  const size_t gd = g.iters.size();
  // Every family gives a thread several points (stream + time_tile: a copy of each stage per
  // point of a plane).
  for (size_t k = 0; k < gd && k < 3; ++k)
    g.unroll[k] = clampInt(s.unrollFactor(prog.iterators[g.iters[k]].name));
  g.cyclic = s.unroll.value.distribution == UnrollDistribution::Cyclic;
  // The input and mixed perspectives (shared): threads for the halo around the output tile.
  if (g.family == ScheduleFamily::Shared) {
    const auto halo = perspectiveHalo(s, prog);
    g.haloLo = halo[0];
    g.haloHi = halo[1];
  }
  // The block: the family's default where none is set, else the Schedule's (0 means 1).
  std::vector<int64_t> b = s.block.value.empty() ? defaultBlockShape(g.family, gd) : s.block.value;
  for (size_t k = 0; k < 3 && k < b.size(); ++k) {
    int e = b[k] == 0 ? 1 : clampInt(b[k]);
    if (k < gd)
      g.block[k] = e;
    else if (e > 1 && notes)
      notes->push_back(
          fmt::format("{}: block extent {} along {} ignored: the grid has {} dimension{}", who, e,
                      "xyz"[k], gd, gd == 1 ? "" : "s"));
  }
  return g;
}

int GridShape::copies() const {
  int64_t n = 1;
  for (size_t gd = 0; gd < iters.size() && gd < 3; ++gd) n = satMul(n, std::max(1, unroll[gd]));
  return clampInt(n);
}

int GridShape::copyAlong(int copy, size_t gd) const {
  for (size_t d = 0; d < gd; ++d) copy /= std::max(1, unroll[d]);
  return copy % std::max(1, unroll[gd]);
}

bool GridShape::fusesSteps() const {
  return family == ScheduleFamily::Overlapped || fusedStreamDim() >= 0;
}

int GridShape::fusedStreamDim() const {
  return family == ScheduleFamily::Stream && (timeTile > 1 || fuseStatements) && stream >= 0
             ? stream
             : -1;
}

std::vector<int64_t> GridShape::coverage(int dims) const {
  std::vector<int64_t> c(static_cast<size_t>(dims), 1);
  for (size_t gd = 0; gd < iters.size() && gd < 3; ++gd)
    // The streamed kernel too gives a thread a copy of each stage per point of a plane.
    c[static_cast<size_t>(iters[gd])] = satMul(block[gd], std::max(1, unroll[gd]));
  return c;
}

std::vector<FusionGroup> fusionGroups(const std::vector<Schedule>& schedules, const Program& prog) {
  std::vector<GridShape> grids;
  for (const Schedule& s : schedules) grids.push_back(gridOf(s, prog));
  return planFusion(prog, grids);
}

ResolvedSchedule resolve(const Program& prog, const std::vector<Schedule>& schedules) {
  ResolvedSchedule out;
  for (size_t i = 0; i < prog.stencils.size(); ++i) {
    Schedule global;  // a stencil without a Schedule: global, its default block
    global.stencil = static_cast<int>(i);
    const Schedule& s = i < schedules.size() ? schedules[i] : global;
    if (streams(s.family.value) && s.stream && streamDim(s, prog) < 0)
      throw std::invalid_argument(
          fmt::format("stencil '{}': the streamed iterator '{}' is not one "
                      "of the program's",
                      prog.stencils[i].name, s.stream->value.iterator));
    out.grids.push_back(gridOf(s, prog, &out.notes));
    check(out.grids.back(), prog, "stencil '" + prog.stencils[i].name + "'");
  }
  out.groups = planFusion(prog, out.grids);
  for (const CallInst& call : prog.calls) {
    out.regions.push_back(analyzeRegions(prog, call));
    out.staging.emplace_back();
    const GridShape g = out.grids.at(static_cast<size_t>(call.stencil)).perStatement();
    for (const Stmt& st : call.stmts)
      out.staging.back().push_back(stageStatement(prog, call, st, g));
  }
  out.scheduleNotes = scheduleNotes(prog, schedules);
  return out;
}

StmtStaging stageStatement(const Program& prog, const CallInst& call, const Stmt& st,
                           const GridShape& g) {
  std::vector<int64_t> tile(static_cast<size_t>(prog.dims()), 1);
  for (size_t gd = 0; gd < g.iters.size() && gd < 3; ++gd)
    tile[static_cast<size_t>(g.iters[gd])] = g.tile(gd);
  StmtStaging s;
  bool retimed = false;
  if (g.retime && g.stream >= 0) {
    // Retimed: the kernel reads only the plane streamed in (analysis/retiming.h), in a ring of
    // two slots (one with `--spare-plane off`) that the rolled sweep picks per plane.
    Retiming r = retime(prog, call, st, g.stream);
    if (r.ok) {
      Stmt planes = st;
      planes.rhs = planeReads(r);
      s = planStaging(prog, call, planes, tile, g.stream, g.staged());
      for (StagePlan& p : s.groups) {
        p.rolledRing = true;
        p.spareSlots = g.sparePlane ? 1 : 0;
      }
      retimed = true;
    }
  }
  bool folded = false;
  if (!retimed && g.fold && g.staged()) {
    // Folded (analysis/folding.h): the kernel computes the statement with each combination
    // `A[s] op B[s]` replaced by A's reference, A's group staging the combination.
    Folding f = foldStatement(prog, call, st);
    if (!f.folds.empty()) {
      s = planStaging(prog, call, f.stmt, tile, g.stream, g.staged());
      for (StagePlan& p : s.groups)
        for (const Fold& x : f.folds)
          if (p.group.array == x.array) {
            p.foldPartner = x.partner;
            p.foldOp = x.op;
            p.foldText = x.text;
          }
      s.computes = f.stmt;
      folded = true;
    }
  }
  if (!retimed && !folded) s = planStaging(prog, call, st, tile, g.stream, g.staged());
  // Arrays placed in global memory (`gmem`) or demoted there for the occupancy target: read
  // from global memory at each use.
  // Under `no_shmem`, every array that would be in shared memory.
  for (StagePlan& p : s.groups)
    if (p.kind != StageKind::Global &&
        ((g.noShmem && p.sharedElements() > 0) ||
         std::find(g.globalFormals.begin(), g.globalFormals.end(),
                   formalName(prog, call, p.group.array)) != g.globalFormals.end()))
      p.kind = StageKind::Global;
  s.sharedBytes = 0;
  for (const StagePlan& p : s.groups)
    s.sharedBytes = satAdd(s.sharedBytes, satMul(p.sharedElements(), typeBytes(p.group.type)));
  return s;
}

std::string formalName(const Program& prog, const CallInst& call, ArrayId a) {
  if (a.local) return call.localArrays.at(static_cast<size_t>(a.index)).name;
  const std::string& actual = prog.arrays.at(static_cast<size_t>(a.index)).name;
  const StencilDef& def = prog.stencils.at(static_cast<size_t>(call.stencil));
  for (size_t f = 0; f < call.actualNames.size() && f < def.formals.size(); ++f)
    if (call.actualNames[f] == actual) return def.formals[f].name;
  return actual;
}

const StmtStaging& ResolvedSchedule::stagingOf(int call, int stmt) const {
  if (call < 0 || static_cast<size_t>(call) >= staging.size() || stmt < 0 ||
      static_cast<size_t>(stmt) >= staging[static_cast<size_t>(call)].size())
    throw std::logic_error(
        fmt::format("internal error: no staging resolved for call {}, statement {}", call, stmt));
  return staging[static_cast<size_t>(call)][static_cast<size_t>(stmt)];
}

const FusedVariant& ResolvedSchedule::variantOf(const std::vector<int>& calls,
                                                const std::vector<int64_t>& tile) const {
  for (const FusionGroup& g : groups)
    for (const FusedVariant& v : g.variants)
      if (v.seq.calls == calls && v.tile == tile) return v;
  throw std::logic_error(
      fmt::format("internal error: no fused variant of calls {} resolved", fmt::join(calls, ", ")));
}

std::optional<ScheduleSetup> setUpSchedules(const Program& prog,
                                            const std::map<std::string, std::string>& flags,
                                            DiagnosticEngine& diags, bool forAnalysis,
                                            PassLog* log) {
  ScheduleOptions opts;
  for (auto& [flag, value] : flags)
    if (!value.empty() && !setScheduleOption(opts, flag, value, diags)) return std::nullopt;
  auto machine = loadMachine(opts.machine.value_or(kDefaultMachine), diags);
  if (!machine) return std::nullopt;
  auto schedules = buildSchedules(prog, opts, *machine, diags, !forAnalysis);
  if (!schedules) return std::nullopt;
  PassLog silent;
  ResolvedSchedule resolved = (log ? *log : silent)
                                  .run(
                                      "resolve-schedule", [&] { return resolve(prog, *schedules); },
                                      [&](const ResolvedSchedule& r) { return describe(prog, r); });
  return ScheduleSetup{*machine, std::move(*schedules), std::move(resolved)};
}

ResolvedSchedule resolvedOrGlobal(const Program& prog, const ResolvedSchedule& r) {
  return r.grids.empty() ? resolve(prog, {}) : r;
}

}  // namespace tessel
