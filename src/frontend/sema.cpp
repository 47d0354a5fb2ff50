// Semantic analysis of the top level: declarations, data lists, calls and iterate loops.
#include "frontend/sema.h"

#include <algorithm>

#include "frontend/sema_internal.h"

namespace tessel {

std::optional<Program> analyze(const SourceFile& file, const ast::File& tree,
                               DiagnosticEngine& diags) {
  return sema::Sema(file, diags).run(tree);
}

namespace sema {

const char* symbolKindName(Symbol::Kind k) {
  switch (k) {
    case Symbol::Kind::Param:
      return "a parameter";
    case Symbol::Kind::Iterator:
      return "an iterator";
    case Symbol::Kind::Array:
      return "an array";
    case Symbol::Kind::Scalar:
      return "a scalar";
    case Symbol::Kind::Stencil:
      return "a stencil";
  }
  return "?";
}

const Symbol* SemaCore::lookup(const std::string& name) const {
  auto it = globals_.find(name);
  return it == globals_.end() ? nullptr : &it->second;
}

std::vector<std::string> SemaCore::visibleNames() const {
  std::vector<std::string> v;
  for (auto& [k, _] : globals_) v.push_back(k);
  return v;
}

void SemaCore::undeclared(const ast::Name& n, const std::string& what,
                          const std::vector<std::string>& candidates) {
  std::string hint;
  if (auto best = closestName(n.text, candidates)) hint = fmt::format("did you mean '{}'?", *best);
  error(DiagId::undeclared, n.loc, fmt::format("use of undeclared {} '{}'", what, n.text), hint);
}

bool SemaCore::declare(const std::string& name, Symbol sym) {
  if (auto* prev = lookup(name)) {
    auto& d = error(DiagId::redeclared, sym.loc,
                    fmt::format("'{}' is already declared as {}", name, symbolKindName(prev->kind)),
                    "each name may be declared once");
    d.notes.emplace_back(prev->loc, "previous declaration is here");
    return false;
  }
  globals_[name] = sym;
  return true;
}

ExprPtr extentOf(const ExprPtr& lo, const ExprPtr& hi) {
  if (lo->kind != ExprKind::IntLit) return binary(Op::Sub, hi, lo, hi->loc);
  // Fold a literal lower bound into hi's trailing literal: [1:N+1] has N elements.
  int64_t c = -lo->ival;
  ExprPtr base = hi;
  if (int64_t v = 0; hi->kind == ExprKind::IntLit && !__builtin_add_overflow(hi->ival, c, &v))
    return intLit(v, hi->loc);
  if (hi->kind == ExprKind::Binary && (hi->op == Op::Add || hi->op == Op::Sub) &&
      hi->args[1]->kind == ExprKind::IntLit) {
    int64_t k = hi->op == Op::Add ? hi->args[1]->ival : -hi->args[1]->ival;
    if (__builtin_add_overflow(c, k, &c)) return binary(Op::Sub, hi, lo, hi->loc);
    base = hi->args[0];
  }
  if (c == 0) return base;
  return binary(c > 0 ? Op::Add : Op::Sub, base, intLit(c > 0 ? c : -c), hi->loc);
}

int SemaCore::extentParamCount() const {
  int n = 0;
  for (auto& p : prog_.params) n += !p.fromIterate;
  return n;
}

ExprPtr SemaCore::intExpr(const ast::Expr& e, IntContext ctx) {
  DiagId bad = ctx == IntContext::Extent         ? DiagId::bad_extent
               : ctx == IntContext::Domain       ? DiagId::bad_domain
               : ctx == IntContext::ParamDefault ? DiagId::bad_parameter_default
                                                 : DiagId::bad_domain;
  const char* what = ctx == IntContext::Extent         ? "array extents"
                     : ctx == IntContext::Domain       ? "domain bounds"
                     : ctx == IntContext::ParamDefault ? "parameter defaults"
                                                       : "iterate bounds";
  switch (e.kind) {
    case ast::Expr::Kind::Int:
      return intLit(e.ival, e.loc);
    case ast::Expr::Kind::Name: {
      const Symbol* s = lookup(e.text);
      if (!s && ctx == IntContext::IterateBound) {
        // An unknown identifier in an iterate bound becomes a run-time parameter (section 6).
        Param p;
        p.name = e.text;
        p.loc = e.loc;
        p.fromIterate = true;
        int idx = static_cast<int>(prog_.params.size());
        prog_.params.push_back(p);
        declare(e.text, {Symbol::Kind::Param, idx, e.loc});
        return paramRef(idx, e.text, e.loc);
      }
      if (!s) {
        std::vector<std::string> cands;
        for (auto& p : prog_.params) cands.push_back(p.name);
        undeclared(ast::Name{e.text, e.loc}, "parameter", cands);
        if (ctx == IntContext::ParamDefault && diags_.diagnostics().back().hint.empty())
          diags_.diagnostics().back().hint = "a default may use only parameters declared earlier";
        return nullptr;
      }
      if (s->kind != Symbol::Kind::Param) {
        error(bad, e.loc,
              fmt::format("'{}' is {}; {} are integer expressions over parameters", e.text,
                          symbolKindName(s->kind), what));
        return nullptr;
      }
      return paramRef(s->index, e.text, e.loc);
    }
    case ast::Expr::Kind::Unary: {
      auto a = intExpr(*e.args[0], ctx);
      return a ? unary(Op::Neg, a, e.loc) : nullptr;
    }
    case ast::Expr::Kind::Binary: {
      if (e.op == Op::Add || e.op == Op::Sub || e.op == Op::Mul || e.op == Op::Div ||
          e.op == Op::Mod || e.op == Op::Pow) {
        auto a = intExpr(*e.args[0], ctx);
        auto b = a ? intExpr(*e.args[1], ctx) : nullptr;
        if (!a || !b) return nullptr;
        if (e.op == Op::Pow && b->kind == ExprKind::Unary) {
          error(DiagId::negative_int_power, e.loc, "integer power with a negative exponent",
                "an int ^ int power needs an exponent >= 0");
          return nullptr;
        }
        return binary(e.op, a, b, e.loc);
      }
      break;
    }
    default:
      break;
  }
  error(bad, e.loc, fmt::format("{} must be integer expressions over parameters", what),
        e.kind == ast::Expr::Kind::Float ? "use an integer literal" : "");
  return nullptr;
}

void Sema::params(const ast::Item& it) {
  for (auto& [n, def] : it.params) {
    Param p;
    p.name = n.text;
    p.loc = n.loc;
    // A default that fails to check still declares the parameter (no cascade of errors).
    if (def) p.defaultValue = intExpr(*def, IntContext::ParamDefault);
    int idx = static_cast<int>(prog_.params.size());
    if (declare(n.text, {Symbol::Kind::Param, idx, n.loc})) prog_.params.push_back(p);
  }
}

void Sema::iterators(const ast::Item& it) {
  for (auto& n : it.names) {
    if (prog_.iterators.size() >= 3) {
      // Fatal: every array and subscript of the program would be misread after this.
      error(
          DiagId::too_many_iterators, n.loc,
          fmt::format("too many iterators: '{}' would be the 4th; Tessel supports 1 to 3", n.text),
          "fold extra dimensions into the existing ones");
      throw CompilationAborted{};
    }
    int idx = static_cast<int>(prog_.iterators.size());
    if (declare(n.text, {Symbol::Kind::Iterator, idx, n.loc}))
      prog_.iterators.push_back({n.text, n.loc});
  }
}

void Sema::declaration(const ast::Decl& d) {
  for (auto& v : d.vars) {
    if (v.dims.empty()) {
      ScalarDecl s{v.name.text, d.type, v.name.loc, {}};
      int idx = static_cast<int>(prog_.scalars.size());
      if (declare(v.name.text, {Symbol::Kind::Scalar, idx, v.name.loc})) prog_.scalars.push_back(s);
      continue;
    }
    ArrayDecl a;
    a.name = v.name.text;
    a.type = d.type;
    a.loc = v.name.loc;
    for (auto& dim : v.dims) {
      ExprPtr hi = intExpr(*dim.hi, IntContext::Extent);
      ExprPtr lo = dim.lo ? intExpr(*dim.lo, IntContext::Extent) : nullptr;
      if (!hi || (dim.lo && !lo)) {
        a.extents.push_back(intLit(1));  // reported; still declared so uses don't cascade
        continue;
      }
      // `lo:hi` holds hi-lo elements, still indexed from 0 (section 3).
      a.extents.push_back(lo ? extentOf(lo, hi) : hi);
    }
    int idx = static_cast<int>(prog_.arrays.size());
    if (declare(v.name.text, {Symbol::Kind::Array, idx, v.name.loc})) prog_.arrays.push_back(a);
  }
}

void Sema::stencil(const ast::StencilDef& def) {
  int idx = static_cast<int>(prog_.stencils.size());
  if (!declare(def.name.text, {Symbol::Kind::Stencil, idx, def.name.loc})) return;
  bool noIterators = prog_.iterators.empty();
  if (noIterators)
    error(DiagId::no_iterators, def.name.loc,
          fmt::format("stencil '{}' is defined before any iterator is declared", def.name.text),
          "declare the loop dimensions first, e.g. 'iterator k, j, i;'");
  StencilDef s;
  s.name = def.name.text;
  s.loc = def.name.loc;
  std::set<std::string> seen;
  const std::vector<std::string> iterators = prog_.iteratorNames();
  bool hidesIterator = false;  // the body's subscripts would cascade into errors: not checked
  for (auto& f : def.formals) {
    const bool twice = !seen.insert(f.name.text).second;
    const bool iterator =
        std::find(iterators.begin(), iterators.end(), f.name.text) != iterators.end();
    hidesIterator = hidesIterator || (!twice && iterator);
    if (twice)
      error(DiagId::redeclared, f.name.loc,
            fmt::format("argument '{}' appears twice in the argument list", f.name.text));
    else if (iterator)
      error(DiagId::redeclared, f.name.loc,
            fmt::format("argument '{}' of stencil '{}' has the name of an iterator: in the body "
                        "it would hide the iterator (formals shadow iterators, language.md 9.7)",
                        f.name.text, def.name.text),
            "give the argument another name");
    s.formals.push_back({f.name.text, f.inout, f.name.loc});
  }
  prog_.stencils.push_back(s);
  stencilAsts.push_back(&def);
  formalUses.emplace_back(def.formals.size());
  unusedLocals.emplace_back();
  stencilOk.push_back(true);
  int before = diags_.errorCount();
  prog_.stencils.back().hints = checkHints(def);
  // Without iterators, or with one hidden by a formal, every subscript would cascade.
  if (!noIterators && !hidesIterator) checkDefinition(idx);
  stencilOk[idx] = diags_.errorCount() == before && !hidesIterator;
}

bool Sema::domain(const std::vector<ast::RangeAst>& ranges, SourceLoc loc, Domain& out) {
  if (static_cast<int>(ranges.size()) != prog_.dims()) {
    error(DiagId::bad_domain, loc,
          fmt::format("domain has {} range{} but the program has {} iterator{}", ranges.size(),
                      ranges.size() == 1 ? "" : "s", prog_.dims(), prog_.dims() == 1 ? "" : "s"),
          "give one inclusive range lo:hi per iterator, in iterator order");
    return false;
  }
  bool ok = true;
  for (auto& r : ranges) {
    ExprPtr lo = intExpr(*r.lo, IntContext::Domain), hi = intExpr(*r.hi, IntContext::Domain);
    if (!lo || !hi) ok = false;
    out.push_back({lo, hi});
  }
  return ok;
}

bool Sema::callNode(const ast::Call& c, ExecNode& node) {
  node.kind = ExecNode::Kind::Call;
  node.loc = c.loc;
  const Symbol* s = lookup(c.name.text);
  if (!s || s->kind != Symbol::Kind::Stencil) {
    std::vector<std::string> cands;
    for (auto& st : prog_.stencils) cands.push_back(st.name);
    std::string hint;
    if (auto best = closestName(c.name.text, cands))
      hint = fmt::format("did you mean '{}'?", *best);
    if (s)
      error(DiagId::unknown_stencil, c.name.loc,
            fmt::format("'{}' is {}, not a stencil", c.name.text, symbolKindName(s->kind)), hint);
    else
      error(DiagId::unknown_stencil, c.name.loc,
            fmt::format("call of undefined stencil '{}'", c.name.text),
            hint.empty() ? "stencils must be defined before they are called" : hint);
    return false;
  }
  int si = s->index;
  auto& def = prog_.stencils[si];
  if (c.args.size() != def.formals.size()) {
    auto& d =
        error(DiagId::wrong_arity, c.loc,
              fmt::format("stencil '{}' takes {} argument{}, but the call passes {}", def.name,
                          def.formals.size(), def.formals.size() == 1 ? "" : "s", c.args.size()));
    d.notes.emplace_back(def.loc, "defined here");
    return false;
  }
  bool ok = true;
  std::vector<Binding> bindings;
  for (size_t i = 0; i < c.args.size(); ++i) {
    auto& a = c.args[i];
    const Symbol* as = lookup(a.text);
    Binding b;
    b.actual = a.text;
    if (!as) {
      std::vector<std::string> cands;
      for (auto& x : prog_.arrays) cands.push_back(x.name);
      for (auto& x : prog_.scalars) cands.push_back(x.name);
      undeclared(a, "array or scalar", cands);
      ok = false;
      continue;
    }
    const FormalUse& use = formalUses[si][i];
    if (as->kind == Symbol::Kind::Array) {
      b.kind = Binding::Kind::GlobalArray;
      b.index = as->index;
      int rank = static_cast<int>(prog_.arrays[as->index].extents.size());
      if (use.kind == FormalUse::Kind::Scalar) {
        auto& d = error(DiagId::bad_call_argument, a.loc,
                        fmt::format("'{}' is an array, but '{}' uses argument '{}' as a scalar",
                                    a.text, def.name, def.formals[i].name));
        d.notes.emplace_back(use.loc, "used as a scalar here");
        ok = false;
      } else if (use.kind == FormalUse::Kind::Array && use.rank != rank) {
        auto& d = error(DiagId::bad_call_argument, a.loc,
                        fmt::format("'{}' has {} dimension{}, but '{}' indexes argument '{}' "
                                    "with {} subscript{}",
                                    a.text, rank, rank == 1 ? "" : "s", def.name,
                                    def.formals[i].name, use.rank, use.rank == 1 ? "" : "s"));
        d.notes.emplace_back(use.loc, "indexed here");
        ok = false;
      } else if (use.written && constantNames.count(a.text)) {
        auto& d = error(DiagId::assign_constant, a.loc,
                        fmt::format("'{}' is a constant array, but '{}' writes argument '{}'",
                                    a.text, def.name, def.formals[i].name),
                        "constant arrays are read-only; remove it from the constant list or "
                        "pass another array");
        d.notes.emplace_back(use.loc, "written here");
        ok = false;
      }
    } else if (as->kind == Symbol::Kind::Scalar) {
      b.kind = Binding::Kind::GlobalScalar;
      b.index = as->index;
      if (use.kind == FormalUse::Kind::Array) {
        auto& d = error(DiagId::bad_call_argument, a.loc,
                        fmt::format("'{}' is a scalar, but '{}' indexes argument '{}' as an array",
                                    a.text, def.name, def.formals[i].name));
        d.notes.emplace_back(use.loc, "indexed here");
        ok = false;
      }
    } else {
      error(DiagId::bad_call_argument, a.loc,
            fmt::format("'{}' is {}; call arguments must be arrays or scalars", a.text,
                        symbolKindName(as->kind)));
      ok = false;
    }
    bindings.push_back(b);
  }
  CallInst ci;
  ci.stencil = si;
  ci.name = def.name;
  ci.loc = c.loc;
  for (auto& a : c.args) ci.actualNames.push_back(a.text);
  if (c.domain) {
    if (!domain(*c.domain, c.loc, ci.domain)) ok = false;
  } else {
    int d = prog_.dims();
    if (extentParamCount() < d) {
      error(
          DiagId::missing_extent, c.name.loc,
          fmt::format("the call has no domain and the program declares {} extent parameter{} "
                      "for {} iterator{}",
                      extentParamCount(), extentParamCount() == 1 ? "" : "s", d, d == 1 ? "" : "s"),
          "declare one parameter per iterator (the i-th parameter is the extent of the i-th "
          "iterator), or give the call a domain [lo:hi, ...]");
      ok = false;
    } else {
      int k = 0;
      for (size_t p = 0; p < prog_.params.size() && k < d; ++p) {
        if (prog_.params[p].fromIterate) continue;
        ExprPtr hi =
            binary(Op::Sub, paramRef(static_cast<int>(p), prog_.params[p].name), intLit(1));
        ci.domain.push_back({intLit(0), hi});
        ++k;
      }
    }
  }
  if (!ok || !stencilOk[si]) return false;
  if (!instantiate(si, c, bindings, ci)) return false;
  node.call = static_cast<int>(prog_.calls.size());
  prog_.stencils[si].calls.push_back(node.call);
  prog_.calls.push_back(std::move(ci));
  return true;
}

bool Sema::iterateNode(const ast::Iterate& it, ExecNode& node) {
  node.kind = ExecNode::Kind::Iterate;
  node.loc = it.loc;
  bool ok = true;
  if (!it.lo) {
    node.lo = intLit(0, it.loc);
    diags_.report(DiagId::bare_iterate, it.loc,
                  "bare 'iterate N' runs N+1 times (t = 0..N, as in ARTEMIS)",
                  "write 'iterate 1:N' to run N times");
  } else {
    node.lo = intExpr(*it.lo, IntContext::IterateBound);
    ok = ok && node.lo;
  }
  node.hi = intExpr(*it.hi, IntContext::IterateBound);
  ok = ok && node.hi;
  for (auto& item : it.body) {
    ExecNode child;
    bool cok = item.kind == ast::Item::Kind::Call ? callNode(*item.call, child)
                                                  : iterateNode(*item.iterate, child);
    if (cok) node.body.push_back(std::move(child));
    ok = ok && cok;
  }
  return ok;
}

std::optional<Program> Sema::run(const ast::File& tree) {
  // Names in `constant` lists, needed before bodies are checked (lists may come anywhere).
  for (auto& it : tree.items)
    if (it.kind == ast::Item::Kind::DataList && it.listKind == "constant")
      for (auto& n : it.names) constantNames.insert(n.text);

  for (auto& it : tree.items) {
    switch (it.kind) {
      case ast::Item::Kind::Params:
        params(it);
        break;
      case ast::Item::Kind::Iterators:
        iterators(it);
        break;
      case ast::Item::Kind::Decl:
        declaration(*it.decl);
        break;
      case ast::Item::Kind::DataList:
        break;  // resolved at the end
      case ast::Item::Kind::Stencil:
        stencil(*it.stencil);
        break;
      case ast::Item::Kind::Call: {
        ExecNode n;
        if (callNode(*it.call, n)) prog_.body.push_back(std::move(n));
        break;
      }
      case ast::Item::Kind::Iterate: {
        ExecNode n;
        if (iterateNode(*it.iterate, n)) prog_.body.push_back(std::move(n));
        break;
      }
    }
  }
  dataLists(tree);
  finalChecks(tree);
  if (diags_.hasErrors()) return std::nullopt;
  return std::move(prog_);
}

void Sema::dataLists(const ast::File& tree) {
  for (auto& it : tree.items) {
    if (it.kind != ast::Item::Kind::DataList) continue;
    for (auto& n : it.names) {
      const Symbol* s = lookup(n.text);
      if (!s || (s->kind != Symbol::Kind::Array && s->kind != Symbol::Kind::Scalar)) {
        std::vector<std::string> cands;
        for (auto& a : prog_.arrays) cands.push_back(a.name);
        for (auto& a : prog_.scalars) cands.push_back(a.name);
        std::string hint;
        if (auto best = closestName(n.text, cands)) hint = fmt::format("did you mean '{}'?", *best);
        diags_.report(
            DiagId::unknown_data_name, n.loc,
            s ? fmt::format("'{}' in the {} list is {}, not an array or scalar; ignored", n.text,
                            it.listKind, symbolKindName(s->kind))
              : fmt::format("'{}' in the {} list is not declared; ignored", n.text, it.listKind),
            hint);
        continue;
      }
      DataFlags& f = s->kind == Symbol::Kind::Array ? prog_.arrays[s->index].data
                                                    : prog_.scalars[s->index].data;
      if (it.listKind == "copyin") f.copyin = true;
      if (it.listKind == "allocin") f.allocin = true;
      if (it.listKind == "constant") f.constant = true;
      if (it.listKind == "coefficient") f.coefficient = true;
      if (it.listKind == "copyout") {
        if (s->kind == Symbol::Kind::Scalar)
          diags_.report(DiagId::copyout_scalar, n.loc,
                        fmt::format("scalar '{}' in the copyout list is ignored", n.text),
                        "stencils cannot write global scalars");
        else
          f.copyout = true;
      }
      if (f.copyin && f.allocin && (it.listKind == "copyin" || it.listKind == "allocin"))
        diags_.report(DiagId::copyin_and_allocin, n.loc,
                      fmt::format("'{}' is in both copyin and allocin; it is copied in", n.text));
    }
  }
}

void Sema::finalChecks(const ast::File& tree) {
  for (auto& a : prog_.arrays)
    if (static_cast<int>(a.extents.size()) > std::max(1, prog_.dims()))
      error(DiagId::bad_extent, a.loc,
            fmt::format("array '{}' has {} dimensions but the program has {} iterator{}", a.name,
                        a.extents.size(), prog_.dims(), prog_.dims() == 1 ? "" : "s"),
            "an array has at most one dimension per iterator");
  if (!diags_.hasErrors() && prog_.calls.empty()) {
    SourceLoc loc{&file_, 0};
    if (!tree.items.empty()) loc = tree.items.back().loc;
    error(DiagId::empty_program, loc, "the program calls no stencil: there is nothing to compute",
          "add a call such as 'NAME (args);' after the stencil definition");
  }
  // 9.4: arrays a marked stencil only uses as scratch but that are read later or copied out.
  for (size_t ci = 0; ci < prog_.calls.size(); ++ci) {
    const CallInst& c = prog_.calls[ci];
    for (auto& la : c.localArrays) {
      if (la.scratchOf < 0) continue;
      const ArrayDecl& g = prog_.arrays[la.scratchOf];
      bool readLater = g.data.copyout;
      for (size_t cj = ci + 1; cj < prog_.calls.size() && !readLater; ++cj)
        for (auto& st : prog_.calls[cj].stmts)
          visitExpr(st.rhs, [&](const ExprPtr& e) {
            if (e->kind == ExprKind::ArrayRef && !e->array.local && e->array.index == la.scratchOf)
              readLater = true;
          });
      if (!readLater) continue;
      // Name the formal the array is passed as, if any.
      std::string formal;
      const StencilDef& def = prog_.stencils[c.stencil];
      for (size_t a = 0; a < c.actualNames.size() && formal.empty(); ++a)
        if (c.actualNames[a] == g.name) formal = def.formals[a].name;
      diags_.report(DiagId::scratch_read_later, c.loc,
                    fmt::format("'{}' is written by '{}' only as scratch (the stencil marks "
                                "other arguments inout:), but is {} later",
                                g.name, c.name, g.data.copyout ? "copied out" : "read"),
                    formal.empty()
                        ? fmt::format("pass '{}' as an argument marked inout: if its new values "
                                      "are wanted",
                                      g.name)
                        : fmt::format("mark the argument 'inout:{}' in '{}' if its new values "
                                      "are wanted",
                                      formal, c.name));
    }
  }
}

}  // namespace sema
}  // namespace tessel
