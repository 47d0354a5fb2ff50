// Pass `insert-barriers` (insert_barriers.h): barriers from the shared arrays each phase reads
// and writes.
#include "transforms/insert_barriers.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/loop_ir_varying.h"
#include "ir/loop_ir_walk.h"

namespace tessel::transforms {

using namespace lir;

namespace {

/// The shared arrays read and written since the last barrier (or by one statement).
struct Accesses {
  std::set<std::string> reads, writes;

  bool empty() const { return reads.empty() && writes.empty(); }
  void add(const Accesses& o) {
    reads.insert(o.reads.begin(), o.reads.end());
    writes.insert(o.writes.begin(), o.writes.end());
  }
  bool contains(const Accesses& o) const {
    for (auto& r : o.reads)
      if (!reads.count(r)) return false;
    for (auto& w : o.writes)
      if (!writes.count(w)) return false;
    return true;
  }
  /// True when `next`, run after these accesses without a barrier, may race with them: it reads
  /// what they wrote, or writes what they read or wrote. `freshWrites`: next's writes are known
  /// to touch no element of these accesses (lir::freshBlock), only its reads count.
  bool conflictsWith(const Accesses& next, bool freshWrites = false) const {
    auto meets = [](const std::set<std::string>& a, const std::set<std::string>& b) {
      for (auto& x : a)
        if (b.count(x)) return true;
      return false;
    };
    if (meets(next.reads, writes)) return true;
    return !freshWrites && (meets(next.writes, reads) || meets(next.writes, writes));
  }
};

/// The shared-array accesses of a statement and everything under it.
class Collect : public StmtVisitor {
 public:
  Collect(const std::set<std::string>& shared, Accesses& out) : shared_(shared), out_(out) {}

 protected:
  void visitLeaf(const Stmt& s) override {
    if (s.kind == StmtKind::Store && shared_.count(s.name)) out_.writes.insert(s.name);
    StmtVisitor::visitLeaf(s);
  }
  void visitExpr(const ExprPtr& e) override {
    if (!e) return;
    tessel::visitExpr(e, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::Load && shared_.count(x->name)) out_.reads.insert(x->name);
    });
  }

 private:
  const std::set<std::string>& shared_;
  Accesses& out_;
};

class Placer {
 public:
  Placer(const Function& k, const VaryingValues& vary) : vary_(vary) {
    for (auto& a : k.shared) shared_.insert(a.name);
  }

  /// `body` with barriers placed, entered with `pending` accesses since the last barrier;
  /// leaves in `pending` those at its end.
  std::vector<StmtPtr> place(const std::vector<StmtPtr>& body, Accesses& pending) const {
    std::vector<StmtPtr> out;
    // Where a barrier goes: right after the last statement of this list that touched shared
    // memory (or the last barrier; the list's start when the pending accesses came from before
    // it), as early as is correct. The statements after that point touch no shared memory, so
    // they may run on either side of the barrier; running them after it keeps fewer values
    // alive across it (on a CPU, pass work-item-loops makes each phase one loop over the
    // threads, and a value alive across a barrier one element per thread).
    size_t early = 0;
    for (const StmtPtr& s : body) {
      if (s->kind == StmtKind::Barrier) {
        out.push_back(s);
        pending = {};
        early = out.size();
      } else if (enterable(*s) && needsInside(s)) {
        out.push_back(enter(s, pending));
        early = out.size();
      } else {
        const Accesses& a = accessesOf(s);
        if (pending.conflictsWith(a, s->kind == StmtKind::Block && s->fresh)) {
          out.insert(out.begin() + static_cast<std::ptrdiff_t>(early), barrier());
          pending = {};
        }
        pending.add(a);
        out.push_back(s);
        if (!a.empty()) early = out.size();
      }
    }
    return out;
  }

 private:
  /// A block, or a loop or condition the same for every thread: a barrier may stand inside.
  bool enterable(const Stmt& s) const {
    return (s.kind == StmtKind::Block && !s.disjoint && !s.fresh) ||
           (s.kind == StmtKind::For && !vary_.varyingLoop(s)) ||
           (s.kind == StmtKind::If && !vary_.varying(s.value));
  }

  /// An enterable statement with the barriers placed inside it.
  StmtPtr enter(const StmtPtr& s, Accesses& pending) const {
    if (s->kind == StmtKind::For) return loop(s, pending);
    if (s->kind == StmtKind::Block) return rebuild(s, place(s->body, pending), {});
    Accesses other = pending;
    std::vector<StmtPtr> then = place(s->body, pending);
    std::vector<StmtPtr> orElse = place(s->orElse, other);
    pending.add(other);
    return rebuild(s, std::move(then), std::move(orElse));
  }

  /// A uniform loop: its body placed with the accesses that may be pending when an iteration
  /// starts (before the loop, or at the end of an earlier iteration), to a fixed point.
  StmtPtr loop(const StmtPtr& s, Accesses& pending) const {
    Accesses entry = pending;
    for (;;) {
      Accesses end = entry;
      std::vector<StmtPtr> body = place(s->body, end);
      if (entry.contains(end)) {
        pending = entry;  // the loop may also run no iteration
        return rebuild(s, std::move(body), {});
      }
      entry.add(end);
    }
  }

  /// True when an enterable statement needs a barrier between its own statements (a loop:
  /// also between iterations). One that does not is taken whole, so that a barrier before it
  /// stays outside its scope (on a CPU, pass work-item-loops keeps per thread only the values
  /// that live across a barrier, and runs a loop without one as a single phase).
  /// Computed once per statement (memoised): each level of nesting asks it of its children, and
  /// placing a parent enters them again, so without the memo the work doubled with every level
  /// (a deep-tuned program's kernels took minutes: random programs, seed 49).
  bool needsInside(const StmtPtr& s) const {
    auto known = needs_.find(s.get());
    if (known != needs_.end()) return known->second;
    Accesses none;
    const bool needs = enter(s, none) != s;
    needs_.emplace(s.get(), needs);
    return needs;
  }

  /// Memoised too: placing a loop to its fixed point and asking needsInside of a parent visit
  /// the same statements several times.
  const Accesses& accessesOf(const StmtPtr& s) const {
    auto known = accesses_.find(s.get());
    if (known != accesses_.end()) return known->second;
    Accesses a;
    Collect c(shared_, a);
    c.visit(s);
    return accesses_.emplace(s.get(), std::move(a)).first->second;
  }

  /// `s` with new bodies; `s` itself when they hold the very same statements.
  static StmtPtr rebuild(const StmtPtr& s, std::vector<StmtPtr> body, std::vector<StmtPtr> orElse) {
    if (body == s->body && orElse == s->orElse) return s;
    auto copy = std::make_shared<Stmt>(*s);
    copy->body = std::move(body);
    copy->orElse = std::move(orElse);
    return copy;
  }

  const VaryingValues& vary_;
  std::set<std::string> shared_;
  mutable std::map<const Stmt*, bool> needs_;         // needsInside's answers, by statement
  mutable std::map<const Stmt*, Accesses> accesses_;  // accessesOf's, by statement
};

}  // namespace

Function insertBarriers(const Function& k) {
  if (k.linkage != Linkage::Kernel || !k.body || k.shared.empty()) return k;
  VaryingValues vary(k.body);
  Accesses pending;
  Function out = k;
  out.body = block(Placer(k, vary).place(k.body->body, pending));
  return out;
}

Module insertBarriers(const Module& device) { return eachFunction(device, insertBarriers); }

}  // namespace tessel::transforms
