// Semantic analysis of stencil bodies (language.md 5.8 and 9.3-9.10), the driver: the entry
// points Sema::checkDefinition (the generic check of a definition) and Sema::instantiate (one
// call), the lookups and error reporting every part of a body check shares, the walk over
// declarations and statements in textual order, local declarations, the scratch copies of the
// arrays a call writes, and the warning for unused locals. Expressions are checked in
// sema_body_expr.cpp and sema_body_arrays.cpp, statements in sema_body_stmt.cpp.
#include <algorithm>

#include "frontend/sema_body_internal.h"

namespace tessel::sema {

BodyScope::BodyScope(Sema& s, int stencil, const std::vector<Binding>& bindings, CallInst& inst,
                     bool isGeneric, SourceLoc call)
    : BodyInput{s, *s.stencilAsts[stencil], stencil, bindings, inst, isGeneric, call} {}

Diagnostic& BodyScope::err(DiagId id, SourceLoc loc, std::string msg, std::string hint) {
  ok = false;
  auto& d = S.error(id, loc, std::move(msg), std::move(hint));
  if (!generic && callLoc.valid() && d.notes.empty())
    d.notes.emplace_back(callLoc, fmt::format("in the call of '{}' here", def.name.text));
  return d;
}

int BodyScope::formalIndex(const std::string& n) const {
  for (size_t i = 0; i < def.formals.size(); ++i)
    if (def.formals[i].name.text == n) return static_cast<int>(i);
  return -1;
}

FormalUse* BodyScope::use(int formal) {
  return generic ? &S.formalUses[stencilIdx][formal] : nullptr;
}

// Names a misspelt `what` could have meant: arrays for an indexed use, values otherwise.
std::vector<std::string> BodyScope::candidates(bool arrays) const {
  std::vector<std::string> v;
  for (auto& a : S.prog().arrays)
    if (arrays) v.push_back(a.name);
  if (!arrays) {
    for (auto& s : S.prog().scalars) v.push_back(s.name);
    for (auto& p : S.prog().params) v.push_back(p.name);
    for (auto& it : S.prog().iterators) v.push_back(it.name);
  }
  for (auto& [k, l] : locals)
    if ((l.kind == LocalSym::Kind::Array) == arrays) v.push_back(k);
  for (auto& f : def.formals) v.push_back(f.name.text);
  return v;
}

void BodyScope::undeclared(const ast::Name& n, const std::string& what) {
  ok = false;
  S.undeclared(n, what, candidates(what == "array"));
}

std::string BodyScope::iterList() const {
  std::string s;
  for (auto& it : S.prog().iterators) s += (s.empty() ? "" : "][") + it.name;
  return s;
}

bool BodyBuilder::build() {
  if (!generic) setUpScratch();
  // Declarations and statements in textual order: a local is visible after its declaration.
  size_t next = 0;
  for (size_t k = 0; k <= def.stmts.size(); ++k) {
    while (next < def.decls.size() && def.decls[next].beforeStmt <= k) localDecl(def.decls[next++]);
    if (k < def.stmts.size()) statement(def.stmts[k]);
  }
  return ok;
}

// After a clean generic check: warns once for each local the body never uses, and records it
// in `unused` so that every instance leaves it out (no backend emits it). A statement that
// reads or assigns a local uses it; so does the initialiser of a used initialised local. An
// initialised local that only unused ones read is unused too. Initialisers read earlier
// initialised locals only, so one pass from the last to the first reaches the fixpoint.
void BodyBuilder::reportUnusedLocals(std::set<const ast::VarDecl*>& unused) {
  std::set<int> arrays, scalars, inits;
  std::map<int, int> readBy;  // an unused initialised local's first reader, itself unused
  auto mark = [&](const ExprPtr& e) {
    visitExpr(e, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::ArrayRef && x->array.local) arrays.insert(x->array.index);
      if (x->kind == ExprKind::ScalarRef && x->scalarKind == ScalarKind::Local)
        scalars.insert(x->index);
      if (x->kind == ExprKind::ScalarRef && x->scalarKind == ScalarKind::Init)
        inits.insert(x->index);
    });
  };
  std::set<int> readArrays, readScalars;  // read by some statement's right-hand side
  for (auto& st : out.stmts) {
    mark(st.lhs);
    mark(st.rhs);
    visitExpr(st.rhs, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::ArrayRef && x->array.local) readArrays.insert(x->array.index);
      if (isLocalScalarRef(*x)) readScalars.insert(x->index);
    });
  }
  for (int k = static_cast<int>(out.inits.size()) - 1; k >= 0; --k) {
    if (inits.count(k)) {
      mark(out.inits[k].value);
      continue;
    }
    visitExpr(out.inits[k].value, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::ScalarRef && x->scalarKind == ScalarKind::Init) readBy[x->index] = k;
    });
  }
  for (auto& [v, l] : declared) {
    const std::set<int>& used = l.kind == LocalSym::Kind::Array    ? arrays
                                : l.kind == LocalSym::Kind::Scalar ? scalars
                                                                   : inits;
    if (used.count(l.index)) {
      // Assigned but never read: its statements compute values nothing uses (each a kernel of
      // its own, or a stage, on a GPU). A compound assignment's read of itself does not count.
      const bool array = l.kind == LocalSym::Kind::Array;
      if (l.kind != LocalSym::Kind::Init && !(array ? readArrays : readScalars).count(l.index))
        S.diags().report(
            DiagId::unused_local, l.loc,
            fmt::format("{} '{}' is assigned but never read in stencil '{}'",
                        array ? "local array" : "local scalar", v->name.text, def.name.text),
            "remove it and the statements that assign it: they compute values "
            "nothing reads");
      continue;
    }
    unused.insert(v);
    const char* what = l.kind == LocalSym::Kind::Array    ? "local array"
                       : l.kind == LocalSym::Kind::Scalar ? "local scalar"
                                                          : "initialised local";
    if (auto r = readBy.find(l.index); l.kind == LocalSym::Kind::Init && r != readBy.end())
      S.diags().report(DiagId::unused_local, l.loc,
                       fmt::format("{} '{}' is used only by unused local '{}'", what, v->name.text,
                                   out.inits[r->second].name),
                       fmt::format("remove it together with '{}'; Tessel leaves both out of "
                                   "the generated code",
                                   out.inits[r->second].name));
    else
      S.diags().report(
          DiagId::unused_local, l.loc,
          fmt::format("{} '{}' is never used in stencil '{}'", what, v->name.text, def.name.text),
          "remove it; Tessel leaves it out of the generated code");
  }
}

// ---- setup ----

void BodyBuilder::setUpScratch() {
  bool anyInout = std::any_of(def.formals.begin(), def.formals.end(),
                              [](const ast::Formal& f) { return f.inout; });
  if (!anyInout) return;
  std::set<int> inoutArrays;
  for (size_t i = 0; i < def.formals.size(); ++i)
    if (def.formals[i].inout && bind[i].kind == Binding::Kind::GlobalArray)
      inoutArrays.insert(bind[i].index);
  for (auto& st : def.stmts) {
    const ast::Expr* l = st.lhs.get();
    int g = -1;
    int f = formalIndex(l->text);
    bool isLocal = std::any_of(def.decls.begin(), def.decls.end(), [&](const ast::Decl& d) {
      return std::any_of(d.vars.begin(), d.vars.end(),
                         [&](const ast::VarDecl& v) { return v.name.text == l->text; });
    });
    if (isLocal) continue;
    if (f >= 0 && bind[f].kind == Binding::Kind::GlobalArray) g = bind[f].index;
    if (f < 0)
      if (auto* s = S.lookup(l->text); s && s->kind == Symbol::Kind::Array) g = s->index;
    if (g < 0 || inoutArrays.count(g) || scratch.count(g)) continue;
    const ArrayDecl& a = S.prog().arrays[g];
    scratch[g] = static_cast<int>(out.localArrays.size());
    out.localArrays.push_back({a.name, a.type, a.extents, a.loc, g});
  }
}

void BodyBuilder::localDecl(const ast::Decl& d) {
  for (auto& v : d.vars) {
    // Unused (reportUnusedLocals): no statement refers to it, so the instance leaves it out.
    if (!generic && S.unusedLocals[stencilIdx].count(&v)) continue;
    if (locals.count(v.name.text) || formalIndex(v.name.text) >= 0) {
      err(DiagId::redeclared, v.name.loc,
          fmt::format("'{}' is already declared in stencil '{}'", v.name.text, def.name.text));
      continue;
    }
    if (auto* s = S.lookup(v.name.text);
        s && (s->kind == Symbol::Kind::Iterator || s->kind == Symbol::Kind::Param)) {
      err(DiagId::redeclared, v.name.loc,
          fmt::format("local '{}' would hide {} of the same name", v.name.text,
                      symbolKindName(s->kind)));
      continue;
    }
    if (!v.dims.empty()) {
      LocalArray la{v.name.text, d.type, {}, v.name.loc, -1};
      bool good = true;
      for (auto& dim : v.dims) {
        ExprPtr hi = S.intExpr(*dim.hi, IntContext::Extent);
        ExprPtr lo = dim.lo ? S.intExpr(*dim.lo, IntContext::Extent) : nullptr;
        if (!hi || (dim.lo && !lo))
          good = false;
        else
          la.extents.push_back(lo ? extentOf(lo, hi) : hi);
      }
      if (!good) {
        ok = false;
        continue;
      }
      if (static_cast<int>(la.extents.size()) > S.prog().dims())
        err(DiagId::bad_extent, v.name.loc,
            fmt::format("local array '{}' has {} dimensions but the program has {} iterator{}",
                        v.name.text, la.extents.size(), S.prog().dims(),
                        S.prog().dims() == 1 ? "" : "s"));
      locals[v.name.text] = {LocalSym::Kind::Array, static_cast<int>(out.localArrays.size()),
                             v.name.loc};
      out.localArrays.push_back(std::move(la));
    } else if (v.init) {
      ExprPtr val = initExpr(*v.init);
      if (!val) val = floatLit(0, ScalarType::Double);  // reported; still declared
      locals[v.name.text] = {LocalSym::Kind::Init, static_cast<int>(out.inits.size()), v.name.loc};
      out.inits.push_back({v.name.text, d.type, val, v.name.loc});
    } else {
      locals[v.name.text] = {LocalSym::Kind::Scalar, static_cast<int>(out.localScalars.size()),
                             v.name.loc};
      out.localScalars.push_back({v.name.text, d.type, v.name.loc});
    }
    declared.emplace_back(&v, locals.at(v.name.text));
  }
}

void Sema::checkDefinition(int stencil) {
  std::vector<Binding> placeholders(stencilAsts[stencil]->formals.size());
  CallInst scratchInst;
  int before = diags_.errorCount();
  BodyBuilder body(*this, stencil, placeholders, scratchInst, true, {});
  if (body.build() && diags_.errorCount() == before) body.reportUnusedLocals(unusedLocals[stencil]);
}

bool Sema::instantiate(int stencil, const ast::Call& call, const std::vector<Binding>& bindings,
                       CallInst& out) {
  return BodyBuilder(*this, stencil, bindings, out, false, call.loc).build();
}

}  // namespace tessel::sema
