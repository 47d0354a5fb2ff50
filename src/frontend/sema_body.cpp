// Semantic analysis of stencil bodies: name resolution, typing, the static rules of
// language.md 5.8 and 9.3-9.10, and instantiation of a body for one call.
#include <algorithm>

#include "frontend/sema_internal.h"

namespace tessel::sema {

namespace {

constexpr int64_t kMaxOffset = 2147483647;  // 2^31 - 1, the largest subscript offset

struct LocalSym {
  enum class Kind { Array, Scalar, Init } kind;
  int index;
  SourceLoc loc;
};

class BodyBuilder {
 public:
  BodyBuilder(Sema& s, int stencil, const std::vector<Binding>& bindings, CallInst& inst,
              bool isGeneric, SourceLoc call)
      : S(s),
        def(*s.stencilAsts[stencil]),
        stencilIdx(stencil),
        bind(bindings),
        out(inst),
        generic(isGeneric),
        callLoc(call) {}

  bool build() {
    if (!generic) setUpScratch();
    // Declarations and statements in textual order: a local is visible after its declaration.
    size_t next = 0;
    for (size_t k = 0; k <= def.stmts.size(); ++k) {
      while (next < def.decls.size() && def.decls[next].beforeStmt <= k)
        localDecl(def.decls[next++]);
      if (k < def.stmts.size()) statement(def.stmts[k]);
    }
    return ok;
  }

  // After a clean generic check: warns once for each local the body never uses, and records it
  // in `unused` so that every instance leaves it out (no backend emits it). A statement that
  // reads or assigns a local uses it; so does the initialiser of a used initialised local. An
  // initialised local that only unused ones read is unused too. Initialisers read earlier
  // initialised locals only, so one pass from the last to the first reaches the fixpoint.
  void reportUnusedLocals(std::set<const ast::VarDecl*>& unused) {
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
    for (auto& st : out.stmts) {
      mark(st.lhs);
      mark(st.rhs);
    }
    for (int k = static_cast<int>(out.inits.size()) - 1; k >= 0; --k) {
      if (inits.count(k)) {
        mark(out.inits[k].value);
        continue;
      }
      visitExpr(out.inits[k].value, [&](const ExprPtr& x) {
        if (x->kind == ExprKind::ScalarRef && x->scalarKind == ScalarKind::Init)
          readBy[x->index] = k;
      });
    }
    for (auto& [v, l] : declared) {
      const std::set<int>& used = l.kind == LocalSym::Kind::Array    ? arrays
                                  : l.kind == LocalSym::Kind::Scalar ? scalars
                                                                     : inits;
      if (used.count(l.index)) continue;
      unused.insert(v);
      const char* what = l.kind == LocalSym::Kind::Array    ? "local array"
                         : l.kind == LocalSym::Kind::Scalar ? "local scalar"
                                                            : "initialised local";
      if (auto r = readBy.find(l.index); l.kind == LocalSym::Kind::Init && r != readBy.end())
        S.diags().report(DiagId::unused_local, l.loc,
                         fmt::format("{} '{}' is used only by unused local '{}'", what,
                                     v->name.text, out.inits[r->second].name),
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

 private:
  Sema& S;
  const ast::StencilDef& def;
  int stencilIdx;
  const std::vector<Binding>& bind;
  CallInst& out;
  bool generic;
  SourceLoc callLoc;
  bool ok = true;

  std::map<std::string, LocalSym> locals;
  std::vector<std::pair<const ast::VarDecl*, LocalSym>> declared;  // in declaration order
  std::map<int, int> scratch;       // global array id -> local array index
  std::map<int, int> placeholders;  // formal index -> local array index (generic mode)
  std::set<int> assignedScalars, writtenLocals;
  std::map<int, std::vector<ExprPtr>> scalarReads;  // per local scalar: its array reads

  Diagnostic& err(DiagId id, SourceLoc loc, std::string msg, std::string hint = {}) {
    ok = false;
    auto& d = S.error(id, loc, std::move(msg), std::move(hint));
    if (!generic && callLoc.valid() && d.notes.empty())
      d.notes.emplace_back(callLoc, fmt::format("in the call of '{}' here", def.name.text));
    return d;
  }

  int formalIndex(const std::string& n) const {
    for (size_t i = 0; i < def.formals.size(); ++i)
      if (def.formals[i].name.text == n) return static_cast<int>(i);
    return -1;
  }

  FormalUse* use(int formal) { return generic ? &S.formalUses[stencilIdx][formal] : nullptr; }

  // Names a misspelt `what` could have meant: arrays for an indexed use, values otherwise.
  std::vector<std::string> candidates(bool arrays) const {
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

  // ---- setup ----

  void setUpScratch() {
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

  void localDecl(const ast::Decl& d) {
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
        locals[v.name.text] = {LocalSym::Kind::Init, static_cast<int>(out.inits.size()),
                               v.name.loc};
        out.inits.push_back({v.name.text, d.type, val, v.name.loc});
      } else {
        locals[v.name.text] = {LocalSym::Kind::Scalar, static_cast<int>(out.localScalars.size()),
                               v.name.loc};
        out.localScalars.push_back({v.name.text, d.type, v.name.loc});
      }
      declared.emplace_back(&v, locals.at(v.name.text));
    }
  }

  // ---- expressions ----

  ExprPtr initExpr(const ast::Expr& e) {
    switch (e.kind) {
      case ast::Expr::Kind::Index:
        err(DiagId::bad_initialiser, e.loc,
            fmt::format("an initialised local cannot read array '{}'", e.text),
            "initialisers are evaluated once per call; use a local scalar statement for "
            "per-point values");
        return nullptr;
      case ast::Expr::Kind::Name: {
        auto it = locals.find(e.text);
        if (it != locals.end() && it->second.kind != LocalSym::Kind::Init) {
          err(DiagId::bad_initialiser, e.loc,
              fmt::format("an initialised local cannot use per-point local '{}'", e.text));
          return nullptr;
        }
        if (auto* s = S.lookup(e.text); it == locals.end() && formalIndex(e.text) < 0 && s &&
                                        s->kind == Symbol::Kind::Iterator) {
          err(DiagId::bad_initialiser, e.loc,
              fmt::format("an initialised local cannot use iterator '{}'", e.text),
              "it is evaluated once per call, not per point");
          return nullptr;
        }
        return value(e);
      }
      default:
        break;
    }
    // Literals, operators and calls: convert children through initExpr.
    return exprWith(e, [this](const ast::Expr& x) { return initExpr(x); });
  }

  ExprPtr value(const ast::Expr& e) {
    return exprWith(e, [this](const ast::Expr& x) { return value(x); });
  }

  template <typename Rec>
  ExprPtr exprWith(const ast::Expr& e, Rec rec) {
    switch (e.kind) {
      case ast::Expr::Kind::Int:
        return intLit(e.ival, e.loc);
      case ast::Expr::Kind::Float:
        return floatLit(e.floatSuffix ? static_cast<double>(static_cast<float>(e.fval)) : e.fval,
                        e.floatSuffix ? ScalarType::Float : ScalarType::Double, e.loc);
      case ast::Expr::Kind::Bool:
        return boolLit(e.ival != 0, e.loc);
      case ast::Expr::Kind::Name:
        return nameRef(e);
      case ast::Expr::Kind::Index:
        return arrayAccess(e, false);
      case ast::Expr::Kind::Unary: {
        ExprPtr a = rec(*e.args[0]);
        return a ? unary(Op::Neg, a, e.loc) : nullptr;
      }
      case ast::Expr::Kind::Binary: {
        ExprPtr a = rec(*e.args[0]);
        ExprPtr b = rec(*e.args[1]);
        if (!a || !b) return nullptr;
        // Formals have placeholder types in the generic check; the instance decides.
        if (!generic && (e.op == Op::And || e.op == Op::Or) &&
            (isFloating(a->type) || isFloating(b->type))) {
          err(DiagId::bad_operand, e.loc,
              fmt::format("'{}' needs bool or int operands, not {}", opSpelling(e.op),
                          typeName(widest(a->type, b->type))),
              "compare first, e.g. (a > 0) & (b > 0)");
          return nullptr;
        }
        if (e.op == Op::Pow && !isFloating(a->type) && !isFloating(b->type)) {
          bool neg = (b->kind == ExprKind::IntLit && b->ival < 0) ||
                     (b->kind == ExprKind::Unary && b->args[0]->kind == ExprKind::IntLit &&
                      b->args[0]->ival > 0);
          if (neg) {
            err(DiagId::negative_int_power, e.loc, "integer power with a negative exponent",
                "int ^ int is an integer power; write a floating base (2.0 ^ -1) for a fraction");
            return nullptr;
          }
        }
        return binary(e.op, a, b, e.loc);
      }
      case ast::Expr::Kind::Call:
        return callExpr(e, rec);
    }
    return nullptr;
  }

  template <typename Rec>
  ExprPtr callExpr(const ast::Expr& e, Rec rec) {
    int arity = e.text == "select" ? 3 : mathFunctionArity(e.text);
    if (arity < 0) {
      std::string hint;
      if (auto* s = S.lookup(e.text); s && s->kind == Symbol::Kind::Stencil)
        hint = "stencils are called as top-level statements, not inside expressions";
      else if (auto best = closestName(e.text, mathFunctionNames()))
        hint = fmt::format("did you mean '{}'?", *best);
      else
        hint = "known functions: sqrt exp log pow fabs abs sin cos tan min max floor ceil select";
      err(DiagId::unknown_function, e.loc, fmt::format("unknown function '{}'", e.text), hint);
      return nullptr;
    }
    if (static_cast<int>(e.args.size()) != arity) {
      err(DiagId::wrong_arity, e.loc,
          fmt::format("'{}' takes {} argument{}, but {} {} given", e.text, arity,
                      arity == 1 ? "" : "s", e.args.size(), e.args.size() == 1 ? "was" : "were"));
      return nullptr;
    }
    std::vector<ExprPtr> args;
    for (auto& a : e.args) {
      ExprPtr x = rec(*a);
      if (!x) return nullptr;
      args.push_back(x);
    }
    if (e.text == "select") return select(args[0], args[1], args[2], e.loc);
    return call(e.text, std::move(args), e.loc);
  }

  ExprPtr nameRef(const ast::Expr& e) {
    if (auto it = locals.find(e.text); it != locals.end()) {
      const LocalSym& l = it->second;
      if (l.kind == LocalSym::Kind::Init)
        return scalarRef(ScalarKind::Init, l.index, e.text, out.inits[l.index].type, e.loc);
      if (l.kind == LocalSym::Kind::Scalar) {
        if (!assignedScalars.count(l.index)) {
          auto& d = err(DiagId::scalar_before_assignment, e.loc,
                        fmt::format("local scalar '{}' is read before it is assigned", e.text),
                        "assign it in an earlier statement of the body");
          d.notes.emplace_back(l.loc, "declared here");
          return nullptr;
        }
        return scalarRef(ScalarKind::Local, l.index, e.text, out.localScalars[l.index].type, e.loc);
      }
      err(DiagId::not_a_scalar, e.loc,
          fmt::format("'{}' is a local array; index it, e.g. {}[{}]", e.text, e.text, iterList()));
      return nullptr;
    }
    if (int f = formalIndex(e.text); f >= 0) {
      const Binding& b = bind[f];
      if (generic) {
        FormalUse& u = *use(f);
        if (u.kind == FormalUse::Kind::Array) {
          auto& d =
              err(DiagId::not_a_scalar, e.loc,
                  fmt::format("argument '{}' is used both as an array and as a scalar", e.text));
          d.notes.emplace_back(u.loc, "indexed as an array here");
          return nullptr;
        }
        if (u.kind == FormalUse::Kind::Unused) u = {FormalUse::Kind::Scalar, 0, false, e.loc};
        return scalarRef(ScalarKind::Global, -1, e.text, ScalarType::Double, e.loc);
      }
      const ScalarDecl& sd = S.prog().scalars.at(b.index);
      return scalarRef(ScalarKind::Global, b.index, sd.name, sd.type, e.loc);
    }
    const Symbol* s = S.lookup(e.text);
    if (!s) {
      undeclared(ast::Name{e.text, e.loc}, "name");
      return nullptr;
    }
    switch (s->kind) {
      case Symbol::Kind::Iterator:
        return iterRef(s->index, e.text, e.loc);
      case Symbol::Kind::Param:
        return paramRef(s->index, e.text, e.loc);
      case Symbol::Kind::Scalar:
        return scalarRef(ScalarKind::Global, s->index, e.text, S.prog().scalars[s->index].type,
                         e.loc);
      case Symbol::Kind::Array:
        err(DiagId::not_a_scalar, e.loc,
            fmt::format("'{}' is an array; index it, e.g. {}[{}]", e.text, e.text, iterList()));
        return nullptr;
      case Symbol::Kind::Stencil:
        err(DiagId::not_a_scalar, e.loc, fmt::format("'{}' is a stencil, not a value", e.text));
        return nullptr;
    }
    return nullptr;
  }

  void undeclared(const ast::Name& n, const std::string& what) {
    ok = false;
    S.undeclared(n, what, candidates(what == "array"));
  }

  std::string iterList() const {
    std::string s;
    for (auto& it : S.prog().iterators) s += (s.empty() ? "" : "][") + it.name;
    return s;
  }

  // Resolves the array an Index expression names. Returns false after an error.
  bool resolveArray(const ast::Expr& e, ArrayId& id, ScalarType& type, int& rank, bool& isConstant,
                    bool isLhs) {
    isConstant = false;
    if (auto it = locals.find(e.text); it != locals.end()) {
      if (it->second.kind != LocalSym::Kind::Array) {
        err(isLhs ? DiagId::bad_lhs : DiagId::not_an_array, e.loc,
            fmt::format("'{}' is a local scalar and cannot be indexed", e.text),
            isLhs ? fmt::format("write '{} = ...' to assign it", e.text) : "");
        return false;
      }
      id = {true, it->second.index};
      type = out.localArrays[id.index].type;
      rank = static_cast<int>(out.localArrays[id.index].extents.size());
      return true;
    }
    int g = -1;
    if (int f = formalIndex(e.text); f >= 0) {
      if (generic) {
        FormalUse& u = *use(f);
        int r = static_cast<int>(e.args.size());
        if (u.kind == FormalUse::Kind::Scalar) {
          auto& d =
              err(DiagId::not_an_array, e.loc,
                  fmt::format("argument '{}' is used both as a scalar and as an array", e.text));
          d.notes.emplace_back(u.loc, "used as a scalar here");
          return false;
        }
        if (u.kind == FormalUse::Kind::Array && u.rank != r) {
          auto& d = err(DiagId::subscript_mismatch, e.loc,
                        fmt::format("argument '{}' is indexed with {} subscript{} here and {} "
                                    "elsewhere",
                                    e.text, r, r == 1 ? "" : "s", u.rank));
          d.notes.emplace_back(u.loc, "first indexed here");
          return false;
        }
        if (u.kind == FormalUse::Kind::Unused) u = {FormalUse::Kind::Array, r, false, e.loc};
        if (isLhs) u.written = true;
        if (!placeholders.count(f)) {
          placeholders[f] = static_cast<int>(out.localArrays.size());
          out.localArrays.push_back(
              {e.text, ScalarType::Double, std::vector<ExprPtr>(r, intLit(0)), e.loc, -2});
        }
        id = {true, placeholders[f]};
        type = ScalarType::Double;
        rank = r;
        return true;
      }
      g = bind[f].index;
    } else {
      const Symbol* s = S.lookup(e.text);
      if (!s) {
        undeclared(ast::Name{e.text, e.loc}, "array");
        return false;
      }
      if (s->kind != Symbol::Kind::Array) {
        if (isLhs && s->kind == Symbol::Kind::Scalar)
          err(DiagId::assign_global_scalar, e.loc,
              fmt::format("cannot assign global scalar '{}' inside a stencil", e.text),
              "use a local scalar ('double r;') for per-point values");
        else
          err(isLhs ? DiagId::bad_lhs : DiagId::not_an_array, e.loc,
              fmt::format("'{}' is {} and cannot be indexed", e.text, symbolKindName(s->kind)));
        return false;
      }
      g = s->index;
      isConstant = S.constantNames.count(e.text) > 0;
    }
    const ArrayDecl& a = S.prog().arrays.at(g);
    type = a.type;
    rank = static_cast<int>(a.extents.size());
    if (auto it = scratch.find(g); it != scratch.end())
      id = {true, it->second};
    else
      id = {false, g};
    return true;
  }

  bool subscript(const ast::Expr& e, Subscript& out_) {
    auto iterOf = [&](const ast::Expr& x) -> int {
      if (x.kind != ast::Expr::Kind::Name || locals.count(x.text) || formalIndex(x.text) >= 0)
        return -1;
      const Symbol* s = S.lookup(x.text);
      return s && s->kind == Symbol::Kind::Iterator ? s->index : -1;
    };
    if (e.kind == ast::Expr::Kind::Int) {
      out_ = {-1, e.ival};
      return true;
    }
    if (e.kind == ast::Expr::Kind::Unary && e.args[0]->kind == ast::Expr::Kind::Int) {
      out_ = {-1, -e.args[0]->ival};
      return true;
    }
    if (int it = iterOf(e); it >= 0) {
      out_ = {it, 0};
      return true;
    }
    // The halos, regions and tiles summed from offsets stay far inside 64 bits (language.md 4.6).
    auto offset = [&](int it, const ast::Expr& c, int64_t v) {
      if (v > kMaxOffset || v < -kMaxOffset) {
        err(DiagId::bad_subscript, c.loc,
            fmt::format("the offset {} is too large: offsets lie between -{} and {}", v, kMaxOffset,
                        kMaxOffset));
        return false;
      }
      out_ = {it, v};
      return true;
    };
    if (e.kind == ast::Expr::Kind::Binary && (e.op == Op::Add || e.op == Op::Sub)) {
      const ast::Expr& a = *e.args[0];
      const ast::Expr& b = *e.args[1];
      if (int it = iterOf(a); it >= 0 && b.kind == ast::Expr::Kind::Int)
        return offset(it, b, e.op == Op::Add ? b.ival : -b.ival);
      if (int it = iterOf(b); it >= 0 && a.kind == ast::Expr::Kind::Int && e.op == Op::Add)
        return offset(it, a, a.ival);
    }
    err(DiagId::bad_subscript, e.loc,
        "a subscript must be 'iterator', 'iterator + c', 'iterator - c' or an integer constant",
        "offsets are integer literals, e.g. A[k][j][i+1]");
    return false;
  }

  ExprPtr arrayAccess(const ast::Expr& e, bool isLhs) {
    ArrayId id;
    ScalarType type;
    int rank = 0;
    bool isConstant = false;
    if (!resolveArray(e, id, type, rank, isConstant, isLhs)) return nullptr;
    if (static_cast<int>(e.args.size()) != rank) {
      err(DiagId::subscript_mismatch, e.loc,
          fmt::format("'{}' has {} dimension{} but is indexed with {} subscript{}", e.text, rank,
                      rank == 1 ? "" : "s", e.args.size(), e.args.size() == 1 ? "" : "s"));
      return nullptr;
    }
    std::vector<Subscript> subs;
    for (auto& a : e.args) {
      Subscript s;
      if (!subscript(*a, s)) return nullptr;
      subs.push_back(s);
    }
    int dims = S.prog().dims();
    auto iters = S.prog().iteratorNames();
    if (rank == dims) {
      for (int k = 0; k < rank; ++k)
        if (!subs[k].fixed() && subs[k].iter != k) {
          err(DiagId::subscript_mismatch, e.args[k]->loc,
              fmt::format("subscript {} of '{}' uses iterator '{}', but dimension {} belongs to "
                          "iterator '{}'",
                          k + 1, e.text, iters[subs[k].iter], k + 1, iters[k]),
              fmt::format("subscripts follow iterator order: {}[{}]", e.text, iterList()));
          return nullptr;
        }
    } else {
      for (int k = 0; k < rank; ++k)
        for (int m = 0; m < k; ++m)
          if (!subs[k].fixed() && subs[k].iter == subs[m].iter) {
            err(DiagId::subscript_mismatch, e.args[k]->loc,
                fmt::format("iterator '{}' is used twice in the subscripts of '{}'",
                            iters[subs[k].iter], e.text));
            return nullptr;
          }
    }
    if (isLhs) {
      bool full = rank == dims;
      for (int k = 0; k < rank && full; ++k) full = !subs[k].fixed();
      if (!full) {
        err(DiagId::bad_lhs, e.loc,
            fmt::format("a left-hand side must name every iterator in order ({}[{}]), with "
                        "offsets but no fixed planes",
                        e.text, iterList()),
            rank < dims ? "arrays with fewer dimensions than iterators are read-only" : "");
        return nullptr;
      }
      if (isConstant) {
        err(DiagId::assign_constant, e.loc,
            fmt::format("'{}' is a constant array and cannot be written", e.text),
            "remove it from the constant list, or write another array");
        return nullptr;
      }
    } else if (id.local && out.localArrays[id.index].scratchOf == -1 &&
               !writtenLocals.count(id.index)) {
      auto& d = err(DiagId::local_before_write, e.loc,
                    fmt::format("local array '{}' is read before any statement writes it", e.text),
                    "local arrays start fresh at every call; write it in an earlier statement");
      d.notes.emplace_back(out.localArrays[id.index].loc, "declared here");
      writtenLocals.insert(id.index);  // said once
      return nullptr;
    }
    return arrayRef(id, e.text, type, std::move(subs), e.loc);
  }

  // ---- statements ----

  ExprPtr lhs(const ast::Expr& e, AssignOp op) {
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
              fmt::format("'{}' reads local scalar '{}' before it is assigned",
                          assignOpSpelling(op), e.text),
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

  void statement(const ast::Statement& st) {
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
        ExprPtr lo = S.intExpr(*r.lo, IntContext::Domain),
                hi = S.intExpr(*r.hi, IntContext::Domain);
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
    // Everything this statement reads, including through the local scalars it uses (9.3).
    std::vector<ExprPtr> reads;
    std::set<const Expr*> direct;  // reads written in this statement itself
    auto collect = [&](const ExprPtr& e) {
      visitExpr(e, [&](const ExprPtr& x) {
        if (x->kind == ExprKind::ArrayRef) {
          reads.push_back(x);
          direct.insert(x.get());
        }
        if (x->kind == ExprKind::ScalarRef && x->scalarKind == ScalarKind::Local) {
          auto& sr = scalarReads[x->index];
          reads.insert(reads.end(), sr.begin(), sr.end());
        }
      });
    };
    collect(rhs);
    if (st.op != AssignOp::Set && l->kind == ExprKind::ScalarRef) {
      auto& sr = scalarReads[l->index];
      reads.insert(reads.end(), sr.begin(), sr.end());
    }
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
  void checkSelfDependence(const Expr& l, const std::vector<ExprPtr>& reads,
                           const std::set<const Expr*>& direct, const ast::Statement& st) {
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
};

}  // namespace

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
