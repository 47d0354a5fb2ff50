// Translation of one call's Algorithm IR into loop IR, shared by the C++ and GPU lowerings.
#include "lower/call_exprs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace tessel {

using namespace lir;  // the loop IR's types and factories

namespace {

[[noreturn]] void internal(const std::string& what) {
  throw std::logic_error("internal error: call lowering: " + what);
}

}  // namespace

ExprPtr withArgs(const ExprPtr& e, std::vector<ExprPtr> args) {
  auto n = std::make_shared<Expr>(*e);
  n->args = std::move(args);
  return n;
}

ExprPtr paramsToVars(const ExprPtr& e, const ProgramNames& g) {
  if (e->kind == ExprKind::ParamRef) return var(g.params.at(e->index), ScalarType::Int);
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  for (auto& a : e->args) args.push_back(paramsToVars(a, g));
  return withArgs(e, std::move(args));
}

std::vector<ExprPtr> HostUses::args(const Program& prog, const ProgramNames& g) const {
  std::vector<ExprPtr> out;
  for (int a : arrays) out.push_back(var(g.arrays[a], prog.arrays[a].type));
  for (int s : scalars) out.push_back(var(g.scalars[s], prog.scalars[s].type));
  for (int p : params) out.push_back(var(g.params[p], ScalarType::Int));
  return out;
}

std::string statementHeading(const Program& prog, const CallInst& call, size_t k,
                             const StmtRegion& reg) {
  const tessel::Stmt& st = call.stmts[k];
  auto iters = prog.iteratorNames();
  std::string text = fmt::format("Statement {}", k + 1);
  if (st.loc.valid()) text += fmt::format(" (line {})", st.loc.line());
  text += ": " + statementText(prog, call, st) + "\nRegion: ";
  for (size_t d = 0; d < reg.iter.size(); ++d)
    text += fmt::format("{}{} in {}", d ? ", " : "", iters[d], reg.iter[d].str());
  return text;
}

ExprPtr CallExprs::lower(const ExprPtr& e) {
  switch (e->kind) {
    case ExprKind::ParamRef:
      observer_.uses(*e);
      return var(g_.params.at(e->index), ScalarType::Int);
    case ExprKind::IterRef:
      observer_.uses(*e);
      return var(g_.iters.at(e->index), ScalarType::Int);
    case ExprKind::ScalarRef:
      observer_.uses(*e);
      switch (e->scalarKind) {
        case ScalarKind::Global:
          return var(g_.scalars.at(e->index), e->type);
        case ScalarKind::Init:
          return var(names_.inits.at(e->index), e->type);
        case ScalarKind::Local:
          if (ExprPtr r = observer_.replace(*e)) return r;  // a register (statement fusion)
          return load(names_.localScalars.at(e->index), boxIndex(), e->type);
      }
      break;
    case ExprKind::ArrayRef:
      if (ExprPtr r = observer_.replace(*e)) return r;
      observer_.uses(*e);
      return load(bufferOf(e->array), linearIndex(*e), e->type);
    default: {
      if (e->args.empty()) return e;
      std::vector<ExprPtr> args;
      for (auto& a : e->args) args.push_back(lower(a));
      return withArgs(e, std::move(args));
    }
  }
  internal("unknown scalar kind");
}

ExprPtr CallExprs::linearIndex(const Expr& ref) {
  const auto& ext = prog_.extents(call_, ref.array);
  if (ext.size() != ref.subs.size()) internal("subscript count of '" + ref.name + "'");
  ExprPtr acc;
  for (size_t d = 0; d < ref.subs.size(); ++d) {
    const Subscript& s = ref.subs[d];
    ExprPtr scaled = d == 0 ? intLit(0) : indexMul(acc, lower(ext[d]));
    if (!s.fixed()) scaled = indexAdd(scaled, var(g_.iters.at(s.iter), ScalarType::Int));
    acc = indexAddConst(scaled, s.offset);
  }
  return acc ? acc : intLit(0);
}

ExprPtr CallExprs::boxIndex() const {
  ExprPtr acc;
  for (size_t d = 0; d < names_.boxLo.size(); ++d) {
    ExprPtr rel =
        indexSub(var(g_.iters[d], ScalarType::Int), var(names_.boxLo[d], ScalarType::Int));
    acc = d == 0 ? rel : indexAdd(indexMul(acc, var(names_.boxN[d], ScalarType::Int)), rel);
  }
  return acc ? acc : intLit(0);
}

ExprPtr CallExprs::bound(const SymBound& b) {
  if (b.terms.empty()) internal("a region bound without terms");
  ExprPtr acc;
  for (auto& t : b.terms) {
    ExprPtr x = t.base ? indexAddConst(lower(t.base), t.c) : intLit(t.c);
    acc = !acc ? x : b.lower ? indexMax(acc, x) : indexMin(acc, x);
  }
  return acc;
}

ExprPtr CallExprs::count(const std::vector<ExprPtr>& extents) {
  ExprPtr n = intLit(1);
  for (auto& e : extents) n = indexMul(n, lower(e));
  return n;
}

Assignment CallExprs::assignment(const tessel::Stmt& st) {
  ScalarType lt = st.lhs->type;
  Assignment a;
  if (st.lhsIsScalar()) {
    a.registerVar = observer_.replace(*st.lhs);
    if (!a.registerVar) {
      a.buffer = names_.localScalars.at(st.lhs->index);
      a.index = boxIndex();
    }
  } else {
    a.buffer = bufferOf(st.lhs->array);
    a.index = linearIndex(*st.lhs);
  }
  a.value = lower(st.rhs);
  if (st.op != AssignOp::Set)
    a.value = binary(compoundOp(st.op), a.registerVar ? a.registerVar : load(a.buffer, a.index, lt),
                     a.value);
  // An int held in a register (statement fusion keeps a local scalar in a 64-bit one) wraps to
  // 32 bits at each assignment, as a store to an int does (language.md section 12).
  if (a.value->type != lt || (a.registerVar && lt == ScalarType::Int)) a.value = cast(lt, a.value);
  return a;
}

std::vector<StmtPtr> declareLocals(const Program& prog, const CallInst& call, const ProgramNames& g,
                                   const LocalsStyle& style, Namer& scope, CallNames& names,
                                   CallExprs& x) {
  auto takeBuffer = [&](const std::string& n) {
    return style.storageNames ? scope.takeBuffer(n) : scope.take(n);
  };
  std::vector<StmtPtr> body;
  if (!call.inits.empty()) body.push_back(comment(style.initsNote));
  for (auto& in : call.inits) {
    names.inits.push_back(scope.take(in.name));
    ExprPtr v = x.lower(in.value);
    if (v->type != in.type || in.type == ScalarType::Int) v = cast(in.type, v);
    body.push_back(localDecl(valueType(in.type), names.inits.back(), v));
  }
  for (auto& la : call.localArrays) {
    std::string n = takeBuffer(la.name);
    names.localArrays.push_back(n);
    ExprPtr cnt = x.count(la.extents);
    if (la.scratchOf >= 0) {
      body.push_back(comment(fmt::format("Local array '{}': a private copy of '{}' for this call.",
                                         la.name, prog.arrays[la.scratchOf].name)));
      if (!style.preallocated) body.push_back(alloc(ctypeOf(la.type), n, cnt));
      body.push_back(copy(ctypeOf(la.type), n, g.arrays[la.scratchOf], cnt));
    } else if (style.preallocated) {
      // The caller clears it (the language's local array starts as a fresh one).
    } else {
      body.push_back(comment(fmt::format("Local array '{}', fresh for this call.", la.name)));
      body.push_back(alloc(ctypeOf(la.type), n, cnt));
    }
  }
  auto buffered = [&](size_t s) { return style.inRegister.empty() || !style.inRegister.at(s); };
  bool anyBuffer = false;
  for (size_t s = 0; s < call.localScalars.size(); ++s) anyBuffer = anyBuffer || buffered(s);
  if (!anyBuffer) {
    names.localScalars.assign(call.localScalars.size(), std::string());
    return body;
  }
  body.push_back(comment(
      style.preallocated ? "Per-point local scalars live in buffers over the call-domain box "
                           "(allocated once per run)."
                         : "Per-point local scalars live in buffers over the call-domain box."));
  ExprPtr cnt = intLit(1);
  for (size_t d = 0; d < call.domain.size(); ++d) {
    names.boxLo.push_back(scope.take(style.boxPrefix + "lo_" + g.iters[d]));
    names.boxN.push_back(scope.take(style.boxPrefix + "n_" + g.iters[d]));
    ExprPtr lo = x.lower(call.domain[d].lo), hi = x.lower(call.domain[d].hi);
    body.push_back(localDecl(CType::Int64, names.boxLo[d], lo));
    ExprPtr ext = indexSub(indexAddConst(hi, 1), var(names.boxLo[d], ScalarType::Int));
    body.push_back(localDecl(CType::Int64, names.boxN[d], indexMax(intLit(0), ext)));
    cnt = indexMul(cnt, var(names.boxN[d], ScalarType::Int));
  }
  for (size_t s = 0; s < call.localScalars.size(); ++s) {
    const LocalScalar& ls = call.localScalars[s];
    std::string n = buffered(s) ? takeBuffer(ls.name) : std::string();
    names.localScalars.push_back(n);
    if (buffered(s) && !style.preallocated) body.push_back(alloc(ctypeOf(ls.type), n, cnt));
  }
  return body;
}

std::optional<std::vector<size_t>> fusedStatementsThatRun(CallExprs& x, const CallRegions& regions,
                                                          const std::vector<size_t>& ks) {
  std::vector<size_t> run;
  for (size_t k : ks) {
    const StmtRegion& reg = regions.stmts.at(k);
    bool never = false;
    for (const auto& it : reg.iter) {
      ExprPtr l = x.bound(it.lo), h = x.bound(it.hi);
      never = never ||
              (l->kind == ExprKind::IntLit && h->kind == ExprKind::IntLit && l->ival > h->ival);
    }
    for (const auto& c : reg.conditions) {
      ExprPtr a = x.bound(c.a), b = x.bound(c.b);
      if (a->kind != ExprKind::IntLit || b->kind != ExprKind::IntLit) return std::nullopt;
      never = never || a->ival > b->ival;
    }
    if (!never) run.push_back(k);
  }
  return run;
}

GroupBounds declareGroupBounds(CallExprs& x, const ProgramNames& g, const CallRegions& regions,
                               const std::vector<size_t>& ks, Namer& scope,
                               std::vector<StmtPtr>& out) {
  GroupBounds b;
  const size_t dims = regions.stmts.at(ks.front()).iter.size();
  b.lo.resize(ks.size());
  b.hi.resize(ks.size());
  for (size_t n = 0; n < ks.size(); ++n) {
    const StmtRegion& reg = regions.stmts.at(ks[n]);
    ExprPtr nonEmpty;
    for (size_t d = 0; d < dims; ++d) {
      b.lo[n].push_back(scope.take(fmt::format("lo_s{}_{}", ks[n] + 1, g.iters[d])));
      b.hi[n].push_back(scope.take(fmt::format("hi_s{}_{}", ks[n] + 1, g.iters[d])));
      out.push_back(localDecl(CType::Int64, b.lo[n][d], x.bound(reg.iter[d].lo)));
      out.push_back(localDecl(CType::Int64, b.hi[n][d], x.bound(reg.iter[d].hi)));
      nonEmpty = allOf(nonEmpty, binary(Op::Le, var(b.lo[n][d], ScalarType::Int),
                                        var(b.hi[n][d], ScalarType::Int)));
    }
    b.any = !b.any ? nonEmpty : nonEmpty ? binary(Op::Or, b.any, nonEmpty) : b.any;
  }
  for (size_t d = 0; d < dims; ++d) {
    ExprPtr l, h;
    for (size_t n = 0; n < ks.size(); ++n) {
      ExprPtr lv = var(b.lo[n][d], ScalarType::Int), hv = var(b.hi[n][d], ScalarType::Int);
      l = l ? indexMin(l, lv) : lv;
      h = h ? indexMax(h, hv) : hv;
    }
    b.boxLo.push_back(scope.take("lo_" + g.iters[d]));
    b.boxHi.push_back(scope.take("hi_" + g.iters[d]));
    out.push_back(localDecl(CType::Int64, b.boxLo[d], l));
    out.push_back(localDecl(CType::Int64, b.boxHi[d], h));
  }
  return b;
}

std::vector<lir::Param> programTableParams() {
  return {{"arrays", CType::Int64, false, false, true},
          {"scalars", CType::Double, true, true},
          {"params", CType::Int64, true, true}};
}

lir::Function callFunction(const CallInst& call, int index, const std::string& name) {
  lir::Function f;
  f.name = name;
  f.linkage = lir::Linkage::Internal;
  f.comment = fmt::format("Call {}: {}({})", index, call.name, fmt::join(call.actualNames, ", "));
  if (call.loc.valid()) f.comment += fmt::format(" at line {}", call.loc.line());
  return f;
}

}  // namespace tessel
