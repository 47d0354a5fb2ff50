// MODESTO's dynamic programme over contiguous groupings (grouping.h).
#include "modesto/grouping.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "modesto/run_costs.h"
#include "modesto/tiling.h"

namespace tessel::modesto {

namespace {

Group leaf(int s) { return Group{s, {}}; }

/// The level-2 group of the stencils `order[a..b)`.
Group run(const std::vector<int>& order, size_t a, size_t b) {
  Group g;
  for (size_t k = a; k < b; ++k) g.children.push_back(leaf(order[k]));
  return g;
}

/// The two-level variant whose level-2 groups are the runs between `cuts` (0 < ... < n).
Group variantOf(const std::vector<int>& order, const std::vector<size_t>& cuts) {
  Group root;
  size_t a = 0;
  for (size_t b : cuts) {
    root.children.push_back(run(order, a, b));
    a = b;
  }
  return root;
}

/// The time of `order[a..b)` as a child of the root, and whether its storage fits level 2: the
/// run evaluated in a variant where every other stencil is a group of its own (its counts do not
/// depend on how the others are grouped).
std::pair<double, bool> childTime(const StencilProgram& p, const Hierarchy& h,
                                  const detail::RootTiling& base, const std::vector<int>& order,
                                  size_t a, size_t b) {
  std::vector<size_t> cuts;
  for (size_t k = 1; k <= a; ++k) cuts.push_back(k);
  cuts.push_back(b);
  for (size_t k = b + 1; k <= order.size(); ++k) cuts.push_back(k);
  const Group v = variantOf(order, cuts);
  const Evaluation e = evaluateRootChild(p, h, v, a, base);  // the run is the root's child a
  const std::string text = variantText(run(order, a, b), p);
  double seconds = -1;
  for (const ChildCounts& c : e.groups.front().children)
    if (c.text == text) seconds = c.time();
  bool fits = true;
  for (const GroupCounts& g : e.groups)
    if (g.level == 2 && g.text == text) fits = g.fits;
  if (seconds < 0) throw std::logic_error("modesto: a run missing from its own evaluation");
  return {seconds, fits};
}

/// f(0), ..., f(n - 1) on up to `threads` threads (0: the machine's cores), each index once; the
/// first exception one throws is rethrown here once all have stopped.
template <typename F>
void parallelFor(size_t n, unsigned threads, F&& f) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, n));
  std::atomic<size_t> next{0};
  std::exception_ptr failed;
  std::mutex failedMutex;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failedMutex);
        if (!failed) failed = std::current_exception();
        next = n;  // the others stop at their next index
      }
    }
  };
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
    for (std::thread& t : pool) t.join();
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace

std::optional<Evaluation> groupByDynamicProgram(const StencilProgram& p, const Hierarchy& h,
                                                size_t orderLimit, unsigned threads) {
  validate(p);
  if (h.levels.size() != 2)
    throw std::invalid_argument(
        "modesto: the dynamic programme groups on two levels; use rankVariants for more");
  const std::vector<std::vector<int>> orders = topologicalOrders(p, orderLimit);
  if (orders.empty()) return std::nullopt;
  // Level 1's tiling is the same in every variant (the root holds every stencil): once.
  const detail::RootTiling base =
      detail::tileRoot(p, h, variantOf(orders.front(), {orders.front().size()}));
  // A run's time and fit depend only on which stencils it holds (not on their order in it nor
  // on how the others are grouped): each set is evaluated once over all orders. On the GPU's
  // and the CPU's hierarchies the runs ending at b can be counted together, each from the next
  // shorter one (run_costs.h), and the runs ending at b depend only on the order's first b
  // stencils: a stencil added per run of each distinct prefix, against a stencil counted per
  // stencil of each distinct run. The cheaper way: incrementally for a call of many statements
  // (rhs4center: 1 order 4.7 s against 61 s), run by run for few statements in many orders
  // that share their runs (diffterm's nine independent gradients).
  struct Job {
    size_t order, a, b;  // the run order[a..b), or with `incremental` the runs ending at b
  };
  std::map<std::vector<int>, size_t> prefixJob, runJob;  // distinct prefix / sorted run -> job
  std::vector<Job> prefixJobs, runJobs;
  double additions = 0, perRun = 0;
  for (size_t o = 0; o < orders.size(); ++o) {
    const std::vector<int>& order = orders[o];
    for (size_t b = 1; b <= order.size(); ++b) {
      std::vector<int> prefix(order.begin(), order.begin() + static_cast<long>(b));
      if (prefixJob.emplace(std::move(prefix), prefixJobs.size()).second) {
        prefixJobs.push_back({o, 0, b});
        additions += static_cast<double>(b);
      }
      for (size_t a = 0; a < b; ++a) {
        std::vector<int> set(order.begin() + static_cast<long>(a),
                             order.begin() + static_cast<long>(b));
        std::sort(set.begin(), set.end());
        if (runJob.emplace(std::move(set), runJobs.size()).second) {
          runJobs.push_back({o, a, b});
          perRun += static_cast<double>(b - a);
        }
      }
    }
  }
  const bool incremental = detail::runCostsApply(h) && additions < perRun;
  // The counts, independent of one another, spread over the threads (each reads the program,
  // the hierarchy and level 1's tiling, and writes its own result).
  std::vector<std::vector<std::pair<double, bool>>> sweeps;  // incremental: per prefix job
  std::vector<std::pair<double, bool>> runs;                 // else: per run job
  if (incremental) {
    sweeps.resize(prefixJobs.size());
    parallelFor(prefixJobs.size(), threads, [&](size_t j) {
      sweeps[j] = detail::runsEndingAt(p, h, base, orders[prefixJobs[j].order], prefixJobs[j].b);
    });
  } else {
    runs.resize(runJobs.size());
    parallelFor(runJobs.size(), threads, [&](size_t j) {
      runs[j] = childTime(p, h, base, orders[runJobs[j].order], runJobs[j].a, runJobs[j].b);
    });
  }
  double bestCost = std::numeric_limits<double>::infinity();
  std::vector<int> bestOrder;
  std::vector<size_t> bestCuts;
  for (const std::vector<int>& order : orders) {
    const size_t n = order.size();
    std::vector<double> cost(n + 1, std::numeric_limits<double>::infinity());
    std::vector<size_t> from(n + 1, 0);
    cost[0] = 0;
    for (size_t b = 1; b <= n; ++b) {
      const std::vector<std::pair<double, bool>>* ending =
          incremental ? &sweeps[prefixJob.at(
                            std::vector<int>(order.begin(), order.begin() + static_cast<long>(b)))]
                      : nullptr;
      for (size_t a = 0; a < b; ++a) {
        if (cost[a] == std::numeric_limits<double>::infinity()) continue;
        std::pair<double, bool> run;
        if (ending) {
          run = (*ending)[a];
        } else {
          std::vector<int> set(order.begin() + static_cast<long>(a),
                               order.begin() + static_cast<long>(b));
          std::sort(set.begin(), set.end());
          run = runs[runJob.at(set)];
        }
        auto [t, fits] = run;
        if (fits && cost[a] + t < cost[b]) {
          cost[b] = cost[a] + t;
          from[b] = a;
        }
      }
    }
    if (cost[n] == std::numeric_limits<double>::infinity() || cost[n] >= bestCost) continue;
    // The root's time is the sum of its children's: the cheapest order's variant is evaluated
    // once, at the end.
    bestCost = cost[n];
    bestOrder = order;
    bestCuts.clear();
    for (size_t b = n; b > 0; b = from[b]) bestCuts.insert(bestCuts.begin(), b);
  }
  if (bestOrder.empty()) return std::nullopt;
  return evaluate(p, h, variantOf(bestOrder, bestCuts));
}

double countingWork(const StencilProgram& p) {
  // Each stencil's keys, then each run's sum by prefix sums.
  std::vector<double> prefix{0};
  for (const Stencil& s : p.stencils) {
    double points = 1;
    for (size_t d = 0; s.domain && d < s.domain->lo.size(); ++d)
      points *= static_cast<double>(std::max<int64_t>(0, s.domain->hi[d] - s.domain->lo[d] + 1));
    prefix.push_back(prefix.back() + points * static_cast<double>(s.in.size()));
  }
  double work = 0;
  for (size_t b = 1; b < prefix.size(); ++b)
    for (size_t a = 0; a < b; ++a) work += prefix[b] - prefix[a];
  return work;
}

}  // namespace tessel::modesto
