// Semantic analysis of the statements in a stencil body: the statement's domain, what its
// left-hand side may name (local scalars and whole-iterator array accesses; no formals, global
// scalars or constants), compound assignments of what is not yet written, and rule 5.8 / 9.6
// (no statement reads the array it writes at another offset, directly, through a local scalar
// or through aliased arguments).
#include "frontend/sema_body_internal.h"

namespace tessel::sema {

ExprPtr BodyBuilder::lhs(const ast::Expr& e, AssignOp op) {
  if (e.kind == ast::Expr::Kind::Index) {
    ExprPtr r = arrayAccess(e, true);
    if (r && op != AssignOp::Set && r->array.local &&
        out.localArrays[r->array.index].scratchOf == -1 && !writtenLocals.count(r->array.index)) {
      err(DiagId::local_before_write, e.loc,
          fmt::format("'{}' updates local array '{}' before any statement writes it",
                      assignOpSpelling(op), e.text),
          fmt::format("write it first with '{}[...] = ...'", e.text));
      writtenLocals.insert(r->array.index);  // said once
      return nullptr;
    }
    return r;
  }
  // A bare name: only local scalars may be assigned.
  if (auto it = locals.find(e.text); it != locals.end()) {
    const LocalSym& l = it->second;
    if (l.kind == LocalSym::Kind::Scalar) {
      if (op != AssignOp::Set && !assignedScalars.count(l.index)) {
        err(DiagId::scalar_before_assignment, e.loc,
            fmt::format("'{}' reads local scalar '{}' before it is assigned", assignOpSpelling(op),
                        e.text),
            fmt::format("assign it first with '{} = ...'", e.text));
        assignedScalars.insert(l.index);  // said once
        return nullptr;
      }
      return scalarRef(ScalarKind::Local, l.index, e.text, out.localScalars[l.index].type, e.loc);
    }
    err(DiagId::bad_lhs, e.loc,
        l.kind == LocalSym::Kind::Init
            ? fmt::format("cannot assign initialised local '{}': it is set once per call", e.text)
            : fmt::format("local array '{}' needs subscripts: {}[{}] = ...", e.text, e.text,
                          iterList()));
    return nullptr;
  }
  if (int f = formalIndex(e.text); f >= 0) {
    if (generic && use(f)->kind == FormalUse::Kind::Array) {
      err(DiagId::bad_lhs, e.loc,
          fmt::format("array argument '{}' needs subscripts: {}[{}] = ...", e.text, e.text,
                      iterList()));
      return nullptr;
    }
    err(DiagId::assign_global_scalar, e.loc,
        fmt::format("cannot assign scalar argument '{}' inside a stencil", e.text),
        "use a local scalar ('double r;') for per-point values");
    return nullptr;
  }
  const Symbol* s = S.lookup(e.text);
  if (!s) {
    undeclared(ast::Name{e.text, e.loc}, "name");
    return nullptr;
  }
  if (s->kind == Symbol::Kind::Scalar) {
    err(DiagId::assign_global_scalar, e.loc,
        fmt::format("cannot assign global scalar '{}' inside a stencil", e.text),
        "use a local scalar ('double r;') for per-point values");
    return nullptr;
  }
  err(DiagId::bad_lhs, e.loc,
      s->kind == Symbol::Kind::Array
          ? fmt::format("array '{}' needs subscripts: {}[{}] = ...", e.text, e.text, iterList())
          : fmt::format("cannot assign {} '{}'", symbolKindName(s->kind), e.text));
  return nullptr;
}

void BodyBuilder::statement(const ast::Statement& st) {
  Stmt out_;
  out_.loc = st.loc;
  out_.op = st.op;
  if (st.domain) {
    Domain d;
    if (static_cast<int>(st.domain->size()) != S.prog().dims()) {
      err(DiagId::bad_domain, st.loc,
          fmt::format("statement domain has {} range{} but the program has {} iterator{}",
                      st.domain->size(), st.domain->size() == 1 ? "" : "s", S.prog().dims(),
                      S.prog().dims() == 1 ? "" : "s"),
          "give one inclusive range lo:hi per iterator, in iterator order");
      return;
    }
    for (auto& r : *st.domain) {
      ExprPtr lo = S.intExpr(*r.lo, IntContext::Domain), hi = S.intExpr(*r.hi, IntContext::Domain);
      if (!lo || !hi) {
        ok = false;
        return;
      }
      d.push_back({lo, hi});
    }
    out_.domain = std::move(d);
  }
  ExprPtr rhs = value(*st.rhs);
  ExprPtr l = lhs(*st.lhs, st.op);
  if (!rhs || !l) {
    ok = false;
    return;
  }
  out_.lhs = l;
  out_.rhs = rhs;
  // Everything this statement reads, including through the local scalars it uses (9.3), each
  // access once: scalars that share earlier scalars (a chain of temporaries, each read by
  // several later ones) would otherwise repeat their reads exponentially often.
  std::vector<ExprPtr> reads;
  std::set<const Expr*> seen;
  std::set<const Expr*> direct;  // reads written in this statement itself
  auto add = [&](const ExprPtr& x) {
    if (seen.insert(x.get()).second) reads.push_back(x);
  };
  auto collect = [&](const ExprPtr& e) {
    visitExpr(e, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::ArrayRef) {
        add(x);
        direct.insert(x.get());
      }
      if (x->kind == ExprKind::ScalarRef && x->scalarKind == ScalarKind::Local)
        for (const ExprPtr& r : scalarReads[x->index]) add(r);
    });
  };
  collect(rhs);
  if (st.op != AssignOp::Set && l->kind == ExprKind::ScalarRef)
    for (const ExprPtr& r : scalarReads[l->index]) add(r);
  if (l->kind == ExprKind::ArrayRef) checkSelfDependence(*l, reads, direct, st);
  if (l->kind == ExprKind::ScalarRef) {
    assignedScalars.insert(l->index);
    scalarReads[l->index] = reads;
  } else if (l->array.local) {
    writtenLocals.insert(l->array.index);
  }
  out.stmts.push_back(std::move(out_));
}

// Rule 5.8 / 9.6: no statement reads the array it writes at another offset.
void BodyBuilder::checkSelfDependence(const Expr& l, const std::vector<ExprPtr>& reads,
                                      const std::set<const Expr*>& direct,
                                      const ast::Statement& st) {
  auto iters = S.prog().iteratorNames();
  for (auto& r : reads) {
    if (!(r->array == l.array) || r->subs == l.subs) continue;
    std::string w = toString(std::make_shared<Expr>(l), iters);
    std::string rd = toString(r, iters);
    const char* hint = "use two arrays (ping-pong buffers): read one, write the other";
    if (r->name != l.name && !generic) {
      auto& d = S.error(DiagId::offset_self_dependence, callLoc,
                        fmt::format("arguments alias: this call passes the same array to '{}' "
                                    "and '{}', so a statement of '{}' writes {} while reading {}",
                                    l.name, r->name, def.name.text, w, rd),
                        hint);
      d.notes.emplace_back(st.loc, "the statement is here");
    } else if (!direct.count(r.get())) {
      // Read through a local scalar: point at the write, note where the read happens.
      auto& d = S.error(DiagId::offset_self_dependence, l.loc,
                        fmt::format("statement writes {} but reads {} through a local scalar: "
                                    "the result would depend on the order in which points are "
                                    "computed",
                                    w, rd),
                        hint);
      d.notes.emplace_back(r->loc, "read here, in the scalar's assignment");
    } else {
      S.error(DiagId::offset_self_dependence, r->loc,
              fmt::format("statement writes {} but reads {}: the result would depend on the "
                          "order in which points are computed",
                          w, rd),
              hint);
    }
    ok = false;
    return;
  }
}

}  // namespace tessel::sema
