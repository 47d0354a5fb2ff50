// Counts: FLOPs, halos and traffic of a call, dependences and the work of a run (see counts.h).
#include "analysis/counts.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "analysis/accesses.h"

namespace tessel {

int stmtFlops(const Stmt& s) {
  int n = 0;
  visitExpr(s.rhs, [&](const ExprPtr& e) {
    if (e->kind == ExprKind::Binary && isFloating(e->type) &&
        (e->op == Op::Add || e->op == Op::Sub || e->op == Op::Mul || e->op == Op::Div ||
         e->op == Op::Mod || e->op == Op::Pow))
      ++n;
    if (e->kind == ExprKind::Call) ++n;
  });
  if (s.op != AssignOp::Set && isFloating(s.lhs->type)) ++n;
  return n;
}

int callFlopsPerPoint(const CallInst& c) {
  int n = 0;
  for (auto& s : c.stmts) n += stmtFlops(s);
  return n;
}

CallShape callShape(const Program& prog, const CallInst& c) {
  CallShape shape;
  std::map<std::string, size_t> haloIndex;
  auto note = [](std::vector<std::string>& v, const std::string& n) {
    if (std::find(v.begin(), v.end(), n) == v.end()) v.push_back(n);
  };
  auto globalName = [&](ArrayId a) -> const std::string* {
    if (!a.local) return &prog.arrays[a.index].name;
    int g = c.localArrays[a.index].scratchOf;
    return g >= 0 ? &prog.arrays[g].name : nullptr;
  };
  auto read = [&](const Reference& e) {
    const std::string& name = prog.arrayName(c, e.array);
    if (auto* g = globalName(e.array)) note(shape.reads, *g);
    auto [it, fresh] = haloIndex.try_emplace(name, shape.halos.size());
    if (fresh)
      shape.halos.push_back(
          {name, std::vector<int64_t>(prog.dims(), 0), std::vector<int64_t>(prog.dims(), 0)});
    ArrayHalo& h = shape.halos[it->second];
    for (auto& s : e.subs) {
      if (s.fixed()) continue;
      h.lo[s.iter] = std::min(h.lo[s.iter], s.offset);
      h.hi[s.iter] = std::max(h.hi[s.iter], s.offset);
      shape.order = std::max<int>(shape.order, static_cast<int>(std::llabs(s.offset)));
    }
  };
  for (auto& st : c.stmts) {
    StmtAccesses acc = stmtAccesses(st);
    for (const Reference& r : acc.reads)
      if (!r.scalar) read(r);
    // Only writes that reach global memory count as traffic (scratch copies do not).
    if (!acc.write.scalar && !acc.write.array.local)
      note(shape.writes, prog.arrays[acc.write.array.index].name);
  }
  // Drop arrays whose every read is at offset zero from the halo list.
  std::vector<ArrayHalo> halos;
  for (auto& h : shape.halos) {
    bool any = false;
    for (size_t d = 0; d < h.lo.size(); ++d) any = any || h.lo[d] != 0 || h.hi[d] != 0;
    if (any) halos.push_back(h);
  }
  shape.halos = std::move(halos);
  for (auto& n : shape.reads) shape.bytesPerPoint += typeBytes(prog.arrays[prog.findArray(n)].type);
  for (auto& n : shape.writes)
    shape.bytesPerPoint += typeBytes(prog.arrays[prog.findArray(n)].type);
  return shape;
}

namespace {

// Names a statement reads and writes (arrays by identity, local scalars by "$index").
struct Access {
  std::set<std::string> reads, writes;
};

Access accessOf(const Stmt& s) {
  Access a;
  auto key = [&](const Reference& r) -> std::string {
    if (r.scalar) return "$" + std::to_string(r.index);
    return (r.array.local ? "L" : "G") + std::to_string(r.array.index);
  };
  StmtAccesses acc = stmtAccesses(s);
  for (const Reference& r : acc.reads) a.reads.insert(key(r));
  a.writes.insert(key(acc.write));
  return a;
}

std::string nameOf(const Program& prog, const CallInst& c, const std::string& key) {
  int idx = std::atoi(key.c_str() + 1);
  if (key[0] == '$') return c.localScalars[idx].name;
  return prog.arrayName(c, ArrayId{key[0] == 'L', idx});
}

void addDeps(const Access& a, const Access& b, int i, int j, std::vector<Dependence>& out,
             const std::function<std::string(const std::string&)>& name) {
  for (auto& w : a.writes)
    if (b.reads.count(w)) out.push_back({i, j, "RAW", name(w)});
  for (auto& r : a.reads)
    if (b.writes.count(r) && !a.writes.count(r)) out.push_back({i, j, "WAR", name(r)});
  for (auto& w : a.writes)
    if (b.writes.count(w)) out.push_back({i, j, "WAW", name(w)});
}

}  // namespace

std::vector<Dependence> statementDependences(const Program& prog, const CallInst& c) {
  std::vector<Dependence> out;
  std::vector<Access> acc;
  for (auto& s : c.stmts) acc.push_back(accessOf(s));
  for (size_t i = 0; i < acc.size(); ++i)
    for (size_t j = i + 1; j < acc.size(); ++j)
      addDeps(acc[i], acc[j], static_cast<int>(i), static_cast<int>(j), out,
              [&](const std::string& k) { return nameOf(prog, c, k); });
  return out;
}

std::vector<Dependence> callDependences(const Program& prog) {
  // Calls communicate through global arrays only (scratch copies are private).
  std::vector<Access> acc;
  for (auto& c : prog.calls) {
    Access a;
    for (auto& s : c.stmts) {
      Access sa = accessOf(s);
      for (auto& r : sa.reads)
        if (r[0] == 'G') a.reads.insert(r);
      for (auto& w : sa.writes)
        if (w[0] == 'G') a.writes.insert(w);
    }
    acc.push_back(a);
  }
  // The nearest dependences, in one pass over the calls: a read depends on the last call that
  // wrote the array (RAW), a write on the last writer (WAW) and on the calls that read it since
  // (WAR). One that others imply through a call between them is not listed (all pairs would be
  // n^2/2 for a program of n calls over the same arrays: a deep-tuned program of 4096 calls
  // took 13 GiB to describe).
  struct Found {
    int from, to, kind;  // kind: 0 RAW, 1 WAR, 2 WAW (the order a pair lists them in)
    std::string key;
  };
  std::vector<Found> found;
  std::map<std::string, int> lastWriter;
  std::map<std::string, std::vector<int>> readersSince;
  for (size_t c = 0; c < acc.size(); ++c) {
    const int j = static_cast<int>(c);
    const Access& a = acc[c];
    for (const std::string& r : a.reads)
      if (auto w = lastWriter.find(r); w != lastWriter.end()) found.push_back({w->second, j, 0, r});
    for (const std::string& w : a.writes) {
      for (int i : readersSince[w]) found.push_back({i, j, 1, w});
      if (auto lw = lastWriter.find(w); lw != lastWriter.end())
        found.push_back({lw->second, j, 2, w});
    }
    for (const std::string& w : a.writes) {
      lastWriter[w] = j;
      readersSince[w].clear();
    }
    for (const std::string& r : a.reads)
      if (!a.writes.count(r)) readersSince[r].push_back(j);
  }
  std::sort(found.begin(), found.end(), [](const Found& x, const Found& y) {
    return std::tie(x.from, x.to, x.kind, x.key) < std::tie(y.from, y.to, y.kind, y.key);
  });
  static const char* const kinds[] = {"RAW", "WAR", "WAW"};
  std::vector<Dependence> out;
  for (const Found& f : found)
    out.push_back({f.from, f.to, kinds[f.kind], prog.arrays[std::atoi(f.key.c_str() + 1)].name});
  return out;
}

namespace {

void workOf(const Program& prog, const std::vector<ExecNode>& nodes, const ParamValues& p,
            const std::vector<CallRegions>& regions, Work& w, double times) {
  for (auto& n : nodes) {
    if (n.kind == ExecNode::Kind::Call) {
      const CallInst& c = prog.calls[n.call];
      double dom = 1;
      for (auto& r : c.domain) dom *= std::max<int64_t>(0, evalInt(r.hi, p) - evalInt(r.lo, p) + 1);
      w.stencilPoints += times * dom;
      for (size_t s = 0; s < c.stmts.size(); ++s) {
        const double points = static_cast<double>(evalIter(regions[n.call].stmts[s], p).points());
        w.flops += times * stmtFlops(c.stmts[s]) * points;
        w.updates[n.call][s] += times * points;
      }
      w.callsExecuted += static_cast<int64_t>(times);
      w.executions[static_cast<size_t>(n.call)] += times;
    } else {
      int64_t lo = evalInt(n.lo, p), hi = evalInt(n.hi, p);
      if (hi >= lo)
        workOf(prog, n.body, p, regions, w,
               times * (static_cast<double>(hi) - static_cast<double>(lo) + 1));
    }
  }
}

}  // namespace

Work programWork(const Program& prog, const ParamValues& params) {
  std::vector<CallRegions> regions;
  for (auto& c : prog.calls) regions.push_back(analyzeRegions(prog, c));
  return programWork(prog, params, regions);
}

Work programWork(const Program& prog, const ParamValues& params,
                 const std::vector<CallRegions>& regions) {
  Work w;
  for (auto& c : prog.calls) w.updates.emplace_back(c.stmts.size(), 0.0);
  w.executions.assign(prog.calls.size(), 0.0);
  workOf(prog, prog.body, params, regions, w, 1);
  return w;
}

}  // namespace tessel
