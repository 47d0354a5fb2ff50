// Pass `prefetch-planes` (prefetch_planes.h).
#include "transforms/prefetch_planes.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "ir/loop_ir_walk.h"
#include "transforms/substitute.h"

namespace tessel::transforms {

using namespace lir;

namespace {

[[noreturn]] void internal(const std::string& what) {
  throw std::logic_error("internal error: pass prefetch-planes: " + what);
}

bool isIntLit(const ExprPtr& e) { return e && e->kind == ExprKind::IntLit; }

/// A cooperative loop nest of a plane load: the loops (outermost first), the innermost
/// loop's body (declarations, then `if (cond) shared[index] = value;`) and the iterations a
/// thread makes at most.
struct Nest {
  std::vector<const lir::Stmt*> loops;
  std::vector<StmtPtr> decls;
  const lir::Stmt* guard = nullptr;  // the If
  const lir::Stmt* store = nullptr;  // its Store
  int64_t slots = 1;
};

int64_t stepOf(const lir::Stmt& loop) { return loop.step ? loop.step->ival : 1; }

/// Iterations of a cooperative loop: its lower bound is the thread's index in [0, step).
int64_t tripsOf(const lir::Stmt& loop) {
  const int64_t step = stepOf(loop);
  return loop.hi->ival < 0 ? 0 : (loop.hi->ival + step) / step;
}

Nest nestOf(const lir::Stmt& outer) {
  Nest n;
  const lir::Stmt* cur = &outer;
  for (;;) {
    if (cur->kind != StmtKind::For || !isIntLit(cur->hi) || (cur->step && !isIntLit(cur->step)))
      internal("a marked plane load whose loop over '" + cur->name +
               "' has no constant bound and step");
    n.loops.push_back(cur);
    n.slots *= tripsOf(*cur);
    if (cur->body.size() == 1 && cur->body[0]->kind == StmtKind::For) {
      cur = cur->body[0].get();
      continue;
    }
    break;
  }
  const std::vector<StmtPtr>& body = cur->body;
  for (size_t i = 0; i < body.size(); ++i) {
    const lir::Stmt& s = *body[i];
    if (i + 1 < body.size() && (s.kind == StmtKind::LocalDecl || s.kind == StmtKind::Comment)) {
      n.decls.push_back(body[i]);
    } else if (i + 1 == body.size() && s.kind == StmtKind::If && s.orElse.empty() &&
               s.body.size() == 1 && s.body[0]->kind == StmtKind::Store) {
      n.guard = &s;
      n.store = s.body[0].get();
    } else {
      internal("a marked plane load whose loop body is not declarations and one guarded store");
    }
  }
  if (!n.guard) internal("a marked plane load without a store");
  return n;
}

/// The straight-line copy of nest `n` for a thread's m-th element: the loop variables as
/// constants offsets of their first values, the element's existence and the nest's guard,
/// then `then(store)`.
StmtPtr slotOf(const Nest& n, int64_t m, const std::function<StmtPtr(const lir::Stmt&)>& then) {
  std::vector<StmtPtr> b;
  ExprPtr cond;
  for (size_t i = n.loops.size(); i-- > 0;) {
    const lir::Stmt& l = *n.loops[i];
    const int64_t trips = tripsOf(l);
    b.push_back(localDecl(CType::Int64, l.name, indexAddConst(l.lo, (m % trips) * stepOf(l))));
    m /= trips;
    cond = allOf(cond, binary(Op::Le, var(l.name, ScalarType::Int), l.hi));
  }
  b.insert(b.end(), n.decls.begin(), n.decls.end());
  b.push_back(ifThen(binary(Op::And, cond, n.guard->value), {then(*n.store)}));
  return block(std::move(b));
}

/// One prefetched (or refused) input of a kernel.
struct Input {
  const PlaneFetch* fetch = nullptr;
  StmtPtr load;  // its first marked load: the template of the registers' loads
  int64_t slots = 0;
  ScalarType type = ScalarType::Double;
  std::vector<std::string> regs;  // empty: not prefetched
};

class Prefetcher {
 public:
  explicit Prefetcher(const Function& f) : f_(f) {}

  /// The function rewritten; `info` gets the registers per thread and the inputs left out.
  Function run(GpuKernelInfo& info) {
    if (!f_.body) return f_;
    collect(f_.body->body);
    if (inputs_.empty()) return f_;
    std::set<std::string> used = namesTaken(f_);
    std::vector<std::string> refused;
    for (auto& [stem, in] : inputs_) {
      if (in.slots > kMaxPrefetchRegisters) {
        refused.push_back(fmt::format("{} ({} elements per thread, at most {})", in.fetch->input,
                                      in.slots, kMaxPrefetchRegisters));
        continue;
      }
      for (int64_t m = 0; m < in.slots; ++m) {
        std::string name = fmt::format("{}_{}", stem, m);
        for (int n = 2; used.count(name); ++n) name = fmt::format("{}_{}_{}", stem, m, n);
        used.insert(name);
        in.regs.push_back(name);
      }
      info.prefetched += static_cast<int>(in.slots);
    }
    if (!refused.empty()) info.notPrefetched = fmt::format("{}", fmt::join(refused, ", "));
    Function out = f_;
    out.body = block(rewrite(f_.body->body));
    return out;
  }

 private:
  void collect(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& s : body) {
      if (s->kind == StmtKind::Block && s->fetch) {
        Input& in = inputs_[s->fetch->stem];
        if (in.load) continue;
        in.fetch = s->fetch.get();
        in.load = s;
        for (const StmtPtr& x : s->body) {
          if (x->kind != StmtKind::For) continue;
          Nest n = nestOf(*x);
          in.slots += n.slots;
          in.type = n.store->value->type;
        }
        continue;
      }
      collect(s->body);
      collect(s->orElse);
    }
  }

  /// `load`'s statements with each cooperative loop nest made straight-line, one copy per
  /// element a thread loads, whose store `then(store, its register)` replaces; the other
  /// statements where `keep` says so.
  std::vector<StmtPtr> straighten(
      const lir::Stmt& load, const Input& in, bool (*keep)(const lir::Stmt&),
      const std::function<StmtPtr(const lir::Stmt&, const std::string&)>& then) const {
    std::vector<StmtPtr> out;
    size_t r = 0;
    for (const StmtPtr& x : load.body) {
      if (x->kind != StmtKind::For) {
        if (keep(*x)) out.push_back(x);
        continue;
      }
      Nest n = nestOf(*x);
      for (int64_t m = 0; m < n.slots; ++m) {
        const std::string& reg = in.regs.at(r++);
        out.push_back(slotOf(n, m, [&](const lir::Stmt& st) { return then(st, reg); }));
      }
    }
    return out;
  }

  /// The registers' loads of `in`'s plane (the load's declarations kept, its own points'
  /// stores left out), its plane variable replaced by `plane`.
  std::vector<StmtPtr> fetch(const Input& in, const ExprPtr& plane) const {
    return substituteVar(
        straighten(
            *in.load, in, [](const lir::Stmt& x) { return x.kind == StmtKind::LocalDecl; },
            [](const lir::Stmt& st, const std::string& reg) { return assign(reg, st.value); }),
        in.fetch->plane, plane);
  }

  /// Marked load `s`: its cooperative loops store the registers; then the next plane's load.
  std::vector<StmtPtr> prefetched(const StmtPtr& s, const Input& in) const {
    auto stores = std::make_shared<lir::Stmt>(*s);
    stores->fetch = nullptr;
    stores->body = straighten(
        *s, in, [](const lir::Stmt&) { return true; },
        [&](const lir::Stmt& st, const std::string& reg) {
          return store(st.name, st.index, var(reg, in.type));
        });
    const PlaneFetch& f = *s->fetch;
    std::vector<StmtPtr> next = {comment(fmt::format(
        "Prefetch: the next plane of {} into its {} register{}, in flight while this one is "
        "computed.",
        f.input, in.regs.size(), in.regs.size() == 1 ? "" : "s"))};
    for (auto& x : fetch(in, indexAddConst(var(f.plane, ScalarType::Int), 1))) next.push_back(x);
    return {stores, ifThen(f.hasNext, std::move(next))};
  }

  /// The start marker of `in`: the registers, and the sweep's first plane loaded into them.
  std::vector<StmtPtr> start(const PlaneFetch& f, const Input& in) const {
    std::vector<StmtPtr> out = {comment(fmt::format(
        "Prefetching (paper 000 III-A4): each plane of {} that goes to shared memory is loaded "
        "a plane ahead into {} register{} per thread, while the plane before is computed; the "
        "first one now.",
        f.input, in.regs.size(), in.regs.size() == 1 ? "" : "s"))};
    for (const std::string& r : in.regs)
      out.push_back(localDecl(valueType(in.type), r, zeroOf(in.type), false));
    // (In a block of its own where it declares a variable the sweep declares again.)
    std::vector<StmtPtr> first = fetch(in, f.first);
    if (std::any_of(first.begin(), first.end(),
                    [](const StmtPtr& x) { return x->kind == StmtKind::LocalDecl; }))
      first = {block(std::move(first))};
    out.insert(out.end(), first.begin(), first.end());
    return out;
  }

  std::vector<StmtPtr> rewrite(const std::vector<StmtPtr>& body) const {
    std::vector<StmtPtr> out;
    for (const StmtPtr& s : body) {
      const Input* in = nullptr;
      if (s->fetch) {
        auto it = inputs_.find(s->fetch->stem);
        if (it != inputs_.end() && !it->second.regs.empty()) in = &it->second;
      }
      if (s->kind == StmtKind::Comment && s->fetch) {
        // The start marker: the registers' start, or nothing where not prefetched.
        if (in)
          for (auto& x : start(*s->fetch, *in)) out.push_back(x);
        continue;
      }
      if (s->kind == StmtKind::Block && s->fetch) {
        if (in) {
          for (auto& x : prefetched(s, *in)) out.push_back(x);
        } else {
          auto plain = std::make_shared<lir::Stmt>(*s);
          plain->fetch = nullptr;
          out.push_back(plain);
        }
        continue;
      }
      if (s->kind != StmtKind::Block && s->kind != StmtKind::For && s->kind != StmtKind::If) {
        out.push_back(s);
        continue;
      }
      std::vector<StmtPtr> inner = rewrite(s->body), orElse = rewrite(s->orElse);
      if (inner == s->body && orElse == s->orElse) {
        out.push_back(s);
        continue;
      }
      auto copy = std::make_shared<lir::Stmt>(*s);
      copy->body = std::move(inner);
      copy->orElse = std::move(orElse);
      out.push_back(copy);
    }
    return out;
  }

  const Function& f_;
  std::map<std::string, Input> inputs_;
};

}  // namespace

GpuProgram prefetchPlanes(const GpuProgram& p) {
  GpuProgram out = p;
  for (size_t k = 0; k < out.device.functions.size() && k < out.kernels.size(); ++k)
    out.device.functions[k] = Prefetcher(p.device.functions[k]).run(out.kernels[k]);
  return out;
}

}  // namespace tessel::transforms
