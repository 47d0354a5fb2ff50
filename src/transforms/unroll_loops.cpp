// Pass `unroll-loops` (unroll_loops.h).
#include "transforms/unroll_loops.h"

#include <fmt/format.h>

#include <stdexcept>

#include "transforms/substitute.h"

namespace tessel::transforms {

using namespace lir;

namespace {

bool isIntLit(const ExprPtr& e) { return e && e->kind == ExprKind::IntLit; }

/// The copies of Unrolled loop `s` (its body already unrolled): per iteration a comment naming
/// the index's value and a block with the body, the index replaced.
void unrollInto(const Stmt& s, std::vector<StmtPtr>& out) {
  if (!isIntLit(s.lo) || !isIntLit(s.hi) || (s.step && !isIntLit(s.step)))
    throw std::logic_error("internal error: unrolled loop over '" + s.name +
                           "' without constant bounds");
  int64_t lo = s.lo->ival, hi = s.hi->ival, step = s.step ? s.step->ival : 1;
  if (step <= 0 || (hi >= lo && (hi - lo) / step + 1 > kMaxUnrolledTrips))
    throw std::logic_error(fmt::format("internal error: unrolled loop over '{}' of {}..{} by {}",
                                       s.name, lo, hi, step));
  for (int64_t v = lo; v <= hi; v += step) {
    out.push_back(comment(fmt::format("{} = {}", s.name, v)));
    out.push_back(block(substituteVar(s.body, s.name, intLit(v))));
  }
}

/// `body` with its Unrolled loops (at any depth, inner ones first) replaced by their copies,
/// in place in the enclosing statement list; unchanged statements are shared, not copied.
std::vector<StmtPtr> unrollList(const std::vector<StmtPtr>& body) {
  std::vector<StmtPtr> out;
  for (const StmtPtr& s : body) {
    if (s->kind != StmtKind::Block && s->kind != StmtKind::For && s->kind != StmtKind::If) {
      out.push_back(s);
      continue;
    }
    std::vector<StmtPtr> inner = unrollList(s->body), orElse = unrollList(s->orElse);
    if (s->kind == StmtKind::For && s->loop == LoopKind::Unrolled) {
      Stmt loop = *s;
      loop.body = std::move(inner);
      unrollInto(loop, out);
    } else if (inner == s->body && orElse == s->orElse) {
      out.push_back(s);
    } else {
      auto copy = std::make_shared<Stmt>(*s);
      copy->body = std::move(inner);
      copy->orElse = std::move(orElse);
      out.push_back(copy);
    }
  }
  return out;
}

}  // namespace

Function unrollLoops(const Function& f) {
  if (!f.body) return f;
  Function out = f;
  std::vector<StmtPtr> body = unrollList(f.body->body);
  if (body != f.body->body) out.body = block(std::move(body));
  return out;
}

Module unrollLoops(const Module& m) { return eachFunction(m, unrollLoops); }

}  // namespace tessel::transforms
