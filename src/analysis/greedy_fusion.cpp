// STENCILGEN's greedy resource-driven fusion (greedy_fusion.h; paper 004 section VI).
#include "analysis/greedy_fusion.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "analysis/accesses.h"
#include "ir/types.h"

namespace tessel {

namespace {

/// One reference of a statement as fusion sees it: the value, its offset along the streaming
/// iterator and in the plane, and the value's element size.
struct Touch {
  std::string value;
  int64_t along = 0;
  std::vector<int64_t> inPlane;
  int bytes = 8;
  bool scalar = false;  // a per-point local scalar
};

Touch touchOf(const Program& prog, const CallInst& c, const Reference& r) {
  Touch t;
  const int dims = prog.dims();
  if (r.scalar) {
    const LocalScalar& s = c.localScalars.at(static_cast<size_t>(r.index));
    t.value = s.name;
    t.bytes = typeBytes(s.type);
    t.scalar = true;
    t.inPlane.assign(static_cast<size_t>(std::max(dims - 1, 0)), 0);
    return t;
  }
  t.value = prog.arrayName(c, r.array);
  t.bytes = typeBytes(prog.elementType(c, r.array));
  t.along = r.along(0).value_or(0);
  for (int d = 1; d < dims; ++d) t.inPlane.push_back(r.along(d).value_or(0));
  return t;
}

struct StmtTouches {
  Touch write;
  bool compound = false;
  std::vector<Touch> reads;  // the right-hand side's (a compound assignment's own lhs left out)
};

StmtTouches touchesOf(const Program& prog, const CallInst& c, const Stmt& st) {
  StmtTouches t;
  StmtAccesses acc = stmtAccesses(st);
  t.write = touchOf(prog, c, acc.write);
  t.compound = st.op != AssignOp::Set;
  for (const Reference& r : acc.reads)
    if (!r.lhs) t.reads.push_back(touchOf(prog, c, r));
  return t;
}

int64_t radius(const std::vector<int64_t>& inPlane) {
  int64_t r = 0;
  for (int64_t o : inPlane) r = std::max(r, o < 0 ? -o : o);
  return r;
}

/// The shift of statement `t` after the earlier statements `prior` (with their shifts): the
/// largest shift <= 0 at which it reads no plane before every earlier writer completed it, and
/// writes no plane before every earlier statement finished reading and writing it. At step k a
/// statement with shift s touches plane k + s + o for an access at offset o; within one step the
/// statements run in program order.
int64_t shiftAfter(const std::vector<const StmtTouches*>& prior, const std::vector<int64_t>& shifts,
                   const StmtTouches& t) {
  int64_t s = 0;
  for (size_t p = 0; p < prior.size(); ++p) {
    const StmtTouches& e = *prior[p];
    const int64_t es = shifts[p];
    // Flow: e writes plane q at step q - es - w; t reads it at step q - s - r: needs s <= es + w -
    // r.
    for (const Touch& r : t.reads)
      if (r.value == e.write.value) s = std::min(s, es + e.write.along - r.along);
    // Output: t's write after e's.
    if (t.write.value == e.write.value) s = std::min(s, es + e.write.along - t.write.along);
    // Anti: t's write after e's reads of the plane.
    for (const Touch& r : e.reads)
      if (r.value == t.write.value) s = std::min(s, es + r.along - t.write.along);
  }
  return s;
}

PlaneStorage lower(PlaneStorage a, PlaneStorage b) {
  // Shared over register (paper 004 VI-D); on chip over global: a plane the operator writes
  // once (global) and also reads is read on chip.
  if (a == PlaneStorage::Global) return b;
  if (b == PlaneStorage::Global) return a;
  return std::max(a, b);
}

int64_t tileOf(const std::vector<int64_t>& tile, size_t d) {
  return d < tile.size() ? tile[d] : 32;
}

}  // namespace

const char* storageName(PlaneStorage s) {
  switch (s) {
    case PlaneStorage::Register:
      return "reg";
    case PlaneStorage::Shared:
      return "shm";
    case PlaneStorage::Global:
      return "global";
  }
  return "?";
}

int FusionOperator::registers() const {
  return static_cast<int>(std::count_if(
      map.begin(), map.end(), [](auto& kv) { return kv.second == PlaneStorage::Register; }));
}

int FusionOperator::sharedBuffers() const {
  return static_cast<int>(std::count_if(
      map.begin(), map.end(), [](auto& kv) { return kv.second == PlaneStorage::Shared; }));
}

std::vector<std::vector<size_t>> initialOperators(const CallInst& call) {
  std::vector<std::vector<size_t>> ops;
  std::string last;
  for (size_t s = 0; s < call.stmts.size(); ++s) {
    Reference w = Reference::of(*call.stmts[s].lhs, true);
    std::string value = w.scalar
                            ? "$" + std::to_string(w.index)
                            : std::to_string(w.array.local) + ":" + std::to_string(w.array.index);
    if (!ops.empty() && value == last)
      ops.back().push_back(s);
    else
      ops.push_back({s});
    last = value;
  }
  return ops;
}

FusionOperator makeOperator(const Program& prog, int call, std::vector<size_t> stmts) {
  const CallInst& c = prog.calls.at(static_cast<size_t>(call));
  std::sort(stmts.begin(), stmts.end());
  FusionOperator op;
  op.stmts = stmts;
  std::vector<StmtTouches> touches;
  for (size_t s : stmts) touches.push_back(touchesOf(prog, c, c.stmts.at(s)));
  std::vector<const StmtTouches*> prior;
  for (const StmtTouches& t : touches) {
    op.shift.push_back(shiftAfter(prior, op.shift, t));
    prior.push_back(&t);
  }
  // Rule 2: values written more than once in the operator are accumulated in registers.
  std::map<std::string, int> writes;
  std::set<std::string> accumulated, scalars;
  for (const StmtTouches& t : touches) {
    if (++writes[t.write.value] > 1 || t.compound) accumulated.insert(t.write.value);
    if (t.write.scalar) scalars.insert(t.write.value);
    for (const Touch& r : t.reads)
      if (r.scalar) scalars.insert(r.value);
  }
  // Rule 1: per read plane, the distinct elements of the plane a point reads.
  std::map<Plane, std::set<std::vector<int64_t>>> readAt;
  std::map<Plane, PlaneStorage> written;
  for (size_t s = 0; s < stmts.size(); ++s) {
    const StmtTouches& t = touches[s];
    const int64_t sh = op.shift[s];
    for (const Touch& r : t.reads) readAt[{r.value, r.along + sh}].insert(r.inPlane);
    Plane w{t.write.value, t.write.along + sh};
    written[w] = accumulated.count(t.write.value) || scalars.count(t.write.value)
                     ? PlaneStorage::Register
                     : PlaneStorage::Global;
  }
  for (const auto& [plane, elems] : readAt) {
    bool centre = elems.size() == 1 && radius(*elems.begin()) == 0;
    op.map[plane] =
        centre || scalars.count(plane.value) ? PlaneStorage::Register : PlaneStorage::Shared;
  }
  for (const auto& [plane, st] : written) {
    auto it = op.map.find(plane);
    op.map[plane] = it == op.map.end() ? st : lower(it->second, st);
  }
  // Order: the in-plane halo each statement is computed over (what the later statements of the
  // operator read of it, transitively), plus its own reads' radius.
  std::vector<int64_t> halo(stmts.size(), 0);
  int64_t order = 0;
  for (size_t s = stmts.size(); s-- > 0;) {
    for (size_t l = s + 1; l < stmts.size(); ++l)
      for (const Touch& r : touches[l].reads)
        if (r.value == touches[s].write.value)
          halo[s] = std::max(halo[s], halo[l] + radius(r.inPlane));
    int64_t own = 0;
    for (const Touch& r : touches[s].reads) own = std::max(own, radius(r.inPlane));
    order = std::max(order, halo[s] + own);
  }
  op.order = static_cast<int>(order);
  return op;
}

FusionMetrics fusionMetrics(const Program& prog, int call, const FusionOperator& a,
                            const FusionOperator& b, const FusionOperator& fused,
                            const GreedyFusionOptions& opt) {
  const CallInst& c = prog.calls.at(static_cast<size_t>(call));
  FusionMetrics m;
  // D_m (VI-E): per value, 2 when one operator reads what the other writes (a store and a load
  // saved), else 1 when both write it or both read it, 0 for a write after a read.
  auto valuesOf = [&](const FusionOperator& op, std::set<std::string>& reads,
                      std::set<std::string>& writes) {
    for (size_t s : op.stmts) {
      StmtTouches t = touchesOf(prog, c, c.stmts[s]);
      writes.insert(t.write.value);
      for (const Touch& r : t.reads) reads.insert(r.value);
    }
  };
  std::set<std::string> ra, wa, rb, wb, all, flow;
  valuesOf(a, ra, wa);
  valuesOf(b, rb, wb);
  // A flow dependence between them: a statement of one reads what an earlier one of the other
  // writes.
  for (const FusionOperator* x : {&a, &b})
    for (const FusionOperator* y : {&a, &b})
      if (x != y)
        for (size_t sx : x->stmts)
          for (size_t sy : y->stmts)
            if (sx < sy) {
              StmtTouches tx = touchesOf(prog, c, c.stmts[sx]);
              for (const Touch& r : touchesOf(prog, c, c.stmts[sy]).reads)
                if (r.value == tx.write.value) flow.insert(r.value);
            }
  for (auto* s : {&ra, &wa, &rb, &wb}) all.insert(s->begin(), s->end());
  m.producerConsumer = !flow.empty();
  for (const std::string& v : all) {
    if (flow.count(v))
      m.dm += 2;
    else if ((wa.count(v) && wb.count(v)) || (ra.count(v) && rb.count(v)))
      m.dm += 1;
  }
  m.tReg = fused.registers();
  m.tShm = fused.sharedBuffers();
  m.sReg = a.registers() + b.registers() - m.tReg;
  m.sShm = a.sharedBuffers() + b.sharedBuffers() - m.tShm;
  m.order = fused.order;
  // Each shared buffer holds a tile plane grown by the order on every side.
  int64_t planeElems = 1;
  for (int d = 1; d < prog.dims(); ++d)
    planeElems *= tileOf(opt.tile, static_cast<size_t>(d - 1)) + 2 * fused.order;
  for (const auto& [plane, st] : fused.map)
    if (st == PlaneStorage::Shared) {
      int bytes = 8;
      for (size_t s : fused.stmts) {
        StmtTouches t = touchesOf(prog, c, c.stmts[s]);
        for (const Touch& r : t.reads)
          if (r.value == plane.value) bytes = r.bytes;
      }
      m.sharedBytes += planeElems * bytes;
    }
  return m;
}

namespace {

/// Rule `r` of paper 004 VI-F: < 0 when candidate x is more profitable than y, > 0 when less.
int compareRule(char r, const FusionMetrics& x, const FusionMetrics& y) {
  auto more = [](int64_t p, int64_t q) { return p > q ? -1 : p < q ? 1 : 0; };  // larger first
  switch (r) {
    case 'a':
      return more(x.dm, y.dm);
    case 'b':
      return -more(x.tReg + x.tShm, y.tReg + y.tShm);
    case 'c':
      return -more(x.tShm, y.tShm);
    case 'd':
      return -more(x.tReg, y.tReg);
    case 'e':
      return more(x.sReg + x.sShm, y.sReg + y.sShm);
    case 'f':
      return more(x.sShm, y.sShm);
    case 'g':
      return more(x.sReg, y.sReg);
    default:
      return 0;  // h: program order, which the caller compares (it knows the positions)
  }
}

/// "s0-s3+s8": the statements, consecutive runs as ranges.
std::string stmtsText(const FusionOperator& op) {
  std::string s;
  const std::vector<size_t>& v = op.stmts;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    s += fmt::format("{}s{}", s.empty() ? "" : "+", v[i]);
    if (j > i) s += fmt::format("{}s{}", j == i + 1 ? "+" : "-", v[j]);
    i = j + 1;
  }
  return s;
}

}  // namespace

GreedyFusionPlan greedyFusion(const Program& prog, const StencilDag& dag, int call,
                              const GreedyFusionOptions& opt) {
  std::string sorted = opt.rules;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != "abcdefgh")
    throw std::invalid_argument(
        fmt::format("fusion rule order '{}' is not a permutation of the rules a to h", opt.rules));
  GreedyFusionPlan plan;
  plan.call = call;
  plan.rules = opt.rules;
  const CallInst& c = prog.calls.at(static_cast<size_t>(call));
  for (const auto& stmts : initialOperators(c))
    plan.initial.push_back(makeOperator(prog, call, stmts));
  int single = 0;
  for (size_t s = 0; s < c.stmts.size(); ++s)
    single = std::max(single, makeOperator(prog, call, {s}).order);
  plan.maxOrder = opt.maxOrder > 0 ? opt.maxOrder : std::max(4, single);

  // DAG node of each statement of the call.
  std::map<size_t, int> nodeOf;
  for (size_t n = 0; n < dag.nodes.size(); ++n)
    if (dag.nodes[n].call == call)
      nodeOf[static_cast<size_t>(dag.nodes[n].stmt)] = static_cast<int>(n);

  const std::vector<std::vector<int>> succ = forwardSuccessors(dag);
  std::vector<FusionOperator> ops = plan.initial;
  for (;;) {
    struct Candidate {
      size_t a, b;
      FusionOperator fused;
      FusionMetrics m;
    };
    std::vector<Candidate> cands;
    for (size_t a = 0; a < ops.size(); ++a)
      for (size_t b = a + 1; b < ops.size(); ++b) {
        std::set<int> group;
        for (auto* op : {&ops[a], &ops[b]})
          for (size_t s : op->stmts) group.insert(nodeOf.at(s));
        if (!convex(succ, group)) continue;  // step 2
        std::vector<size_t> stmts = ops[a].stmts;
        stmts.insert(stmts.end(), ops[b].stmts.begin(), ops[b].stmts.end());
        FusionOperator fused = makeOperator(prog, call, stmts);                   // step 3
        FusionMetrics m = fusionMetrics(prog, call, ops[a], ops[b], fused, opt);  // step 4
        if (m.dm > 0) cands.push_back({a, b, std::move(fused), m});
      }
    // Step 5: the sort (rule h: the pair first in program order).
    // Rule h, wherever it stands in the order: the pair whose statements come first in the
    // program (its first operator's first statement, then its second's).
    auto position = [&](const Candidate& cand) {
      return std::make_pair(ops[cand.a].stmts.front(), ops[cand.b].stmts.front());
    };
    std::stable_sort(cands.begin(), cands.end(), [&](const Candidate& x, const Candidate& y) {
      for (char r : opt.rules) {
        if (r == 'h') {
          if (position(x) != position(y)) return position(x) < position(y);
          continue;
        }
        if (int v = compareRule(r, x.m, y.m)) return v < 0;
      }
      return false;
    });
    bool fusedOne = false;
    plan.stops.clear();
    for (Candidate& cd : cands) {
      std::string name = stmtsText(ops[cd.a]) + " with " + stmtsText(ops[cd.b]);
      // Recomputation grows only where a consumer needs its producer's halo.
      const int grown = std::max({plan.maxOrder, ops[cd.a].order, ops[cd.b].order});
      if (cd.m.producerConsumer && cd.m.order > grown) {
        plan.stops.push_back(
            fmt::format("{}: order {} > {} (too much recomputation)", name, cd.m.order, grown));
        continue;
      }
      if (opt.sharedLimit > 0 && cd.m.sharedBytes > opt.sharedLimit) {
        plan.stops.push_back(fmt::format("{}: {} shared buffers, {} B > {} B per block", name,
                                         cd.m.tShm, cd.m.sharedBytes, opt.sharedLimit));
        continue;
      }
      plan.steps.push_back({cd.a, cd.b, cd.fused, cd.m});
      ops[cd.a] = std::move(cd.fused);
      ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(cd.b));
      std::sort(ops.begin(), ops.end(), [](const FusionOperator& x, const FusionOperator& y) {
        return x.stmts.front() < y.stmts.front();
      });
      fusedOne = true;
      break;
    }
    if (!fusedOne) break;
  }
  plan.result = ops;
  return plan;
}

std::string resourceMapText(const ResourceMap& m) {
  std::string s;
  for (const auto& [plane, st] : m)
    s += fmt::format("{}{}@{}: {}", s.empty() ? "" : ", ", plane.value, plane.offset,
                     storageName(st));
  return "{" + s + "}";
}

std::string greedyFusionText(const Program& prog, const GreedyFusionPlan& plan) {
  const CallInst& c = prog.calls.at(static_cast<size_t>(plan.call));
  std::string out = fmt::format(
      "greedy fusion of call #{} ({}): {} statements, {} operators; rules {}, order <= {}\n",
      plan.call, c.name, c.stmts.size(), plan.initial.size(), plan.rules, plan.maxOrder);
  for (const FusionOperator& op : plan.initial)
    out += fmt::format("  operator {}: {} reg, {} shm, order {}  {}\n", stmtsText(op),
                       op.registers(), op.sharedBuffers(), op.order, resourceMapText(op.map));
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const FusionStep& st = plan.steps[i];
    const FusionMetrics& m = st.metrics;
    out += fmt::format(
        "  step {}: fuse -> {}  D_m {} S_reg {} S_shm {} T_reg {} T_shm {} order {} shared {} B\n",
        i + 1, stmtsText(st.fused), m.dm, m.sReg, m.sShm, m.tReg, m.tShm, m.order, m.sharedBytes);
  }
  out +=
      fmt::format("  result: {} kernel{}:", plan.result.size(), plan.result.size() == 1 ? "" : "s");
  for (const FusionOperator& op : plan.result) out += " [" + stmtsText(op) + "]";
  out += "\n";
  const size_t shown = std::min<size_t>(plan.stops.size(), 5);
  for (size_t i = 0; i < shown; ++i) out += "  not fused: " + plan.stops[i] + "\n";
  if (plan.stops.size() > shown)
    out +=
        fmt::format("  not fused: {} more candidates, for the same reasons (JSON: \"not_fused\")\n",
                    plan.stops.size() - shown);
  return out;
}

}  // namespace tessel
