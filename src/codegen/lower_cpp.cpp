#include "codegen/lower_cpp.h"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "analysis/regions.h"
#include "codegen/dialect.h"
#include "codegen/namer.h"

namespace tessel {

using namespace lir;  // the loop IR's types and factories

std::vector<std::string> cppCompileFlags() {
  return {"-std=c++17",        "-O3",     "-march=native", "-fopenmp",
          "-ffp-contract=off", "-fwrapv", "-fPIC",         "-shared"};
}

namespace {

[[noreturn]] void internal(const std::string& what) {
  throw std::logic_error("internal error: C++ lowering: " + what);
}

/// C names of the program's global symbols, shared by every generated function.
struct GlobalNames {
  Namer namer;  // everything taken at file scope (also reserved inside functions)
  std::vector<std::string> arrays, scalars, params, iters, callFns;
};

CType scalarParamType(ScalarType t) {
  return t == ScalarType::Int ? CType::Int64 : ctypeOf(t);  // ints are 64-bit values
}

/// Copy of e with its arguments replaced (types and everything else kept).
ExprPtr withArgs(const ExprPtr& e, std::vector<ExprPtr> args) {
  auto n = std::make_shared<Expr>(*e);
  n->args = std::move(args);
  return n;
}



std::string domainText(const Domain& d, const std::vector<std::string>& iters) {
  std::string s;
  for (size_t k = 0; k < d.size(); ++k)
    s += fmt::format("{}{} in {}..{}", k ? ", " : "", iters[k], toString(d[k].lo, iters),
                     toString(d[k].hi, iters));
  return s;
}

/// Lowers one CallInst to a function.
class CallLowering {
 public:
  CallLowering(const Program& p, int index, GlobalNames& g)
      : prog_(p), call_(p.calls[index]), index_(index), g_(g), names_(g.namer) {}

  Function build();
  /// Arguments tessel_program passes (the global names, in parameter order).
  std::vector<ExprPtr> callArgs() const;

 private:
  const Program& prog_;
  const CallInst& call_;
  int index_;
  GlobalNames& g_;
  Namer names_;
  std::set<int> arraysUsed_, scalarsUsed_, paramsUsed_;  // paramsUsed_: filled by lower()
  std::vector<std::string> localArrays_, localScalars_, inits_;
  std::vector<std::string> boxLo_, boxN_;  // local-scalar box, per dimension

  void collectUses();
  ExprPtr lower(const ExprPtr& e);
  ExprPtr linearIndex(const Expr& ref);
  ExprPtr boxIndex();
  ExprPtr bound(const SymBound& b);
  ExprPtr count(const std::vector<ExprPtr>& extents);
  const std::string& bufferOf(ArrayId a) const {
    return a.local ? localArrays_.at(a.index) : g_.arrays.at(a.index);
  }
  void statement(size_t k, const StmtRegion& reg, std::vector<StmtPtr>& out);
};

void CallLowering::collectUses() {
  auto scan = [&](const ExprPtr& e) {
    visitExpr(e, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::ArrayRef && !x->array.local) arraysUsed_.insert(x->array.index);
      if (x->kind == ExprKind::ScalarRef && x->scalarKind == ScalarKind::Global)
        scalarsUsed_.insert(x->index);
    });
  };
  for (auto& st : call_.stmts) {
    scan(st.lhs);
    scan(st.rhs);
  }
  for (auto& in : call_.inits) scan(in.value);
  for (auto& la : call_.localArrays)
    if (la.scratchOf >= 0) arraysUsed_.insert(la.scratchOf);
}

ExprPtr CallLowering::lower(const ExprPtr& e) {
  switch (e->kind) {
    case ExprKind::ParamRef:
      paramsUsed_.insert(e->index);
      return var(g_.params.at(e->index), ScalarType::Int);
    case ExprKind::IterRef:
      return var(g_.iters.at(e->index), ScalarType::Int);
    case ExprKind::ScalarRef:
      switch (e->scalarKind) {
        case ScalarKind::Global:
          return var(g_.scalars.at(e->index), e->type);
        case ScalarKind::Init:
          return var(inits_.at(e->index), e->type);
        case ScalarKind::Local:
          return load(localScalars_.at(e->index), boxIndex(), e->type);
      }
      break;
    case ExprKind::ArrayRef:
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

// Row-major over the array's own extents: ((s0 * E1 + s1) * E2 + s2), each subscript naming
// its iterator (or a fixed plane).
ExprPtr CallLowering::linearIndex(const Expr& ref) {
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

ExprPtr CallLowering::boxIndex() {
  ExprPtr acc;
  for (size_t d = 0; d < boxLo_.size(); ++d) {
    ExprPtr rel = indexSub(var(g_.iters[d], ScalarType::Int), var(boxLo_[d], ScalarType::Int));
    acc = d == 0 ? rel : indexAdd(indexMul(acc, var(boxN_[d], ScalarType::Int)), rel);
  }
  return acc ? acc : intLit(0);
}

ExprPtr CallLowering::bound(const SymBound& b) {
  if (b.terms.empty()) internal("a region bound without terms");
  ExprPtr acc;
  for (auto& t : b.terms) {
    ExprPtr x = t.base ? indexAddConst(lower(t.base), t.c) : intLit(t.c);
    acc = !acc ? x : b.lower ? indexMax(acc, x) : indexMin(acc, x);
  }
  return acc;
}

ExprPtr CallLowering::count(const std::vector<ExprPtr>& extents) {
  ExprPtr n = intLit(1);
  for (auto& e : extents) n = indexMul(n, lower(e));
  return n;
}

std::vector<ExprPtr> CallLowering::callArgs() const {
  std::vector<ExprPtr> args;
  for (int a : arraysUsed_) args.push_back(var(g_.arrays[a], prog_.arrays[a].type));
  for (int s : scalarsUsed_) args.push_back(var(g_.scalars[s], prog_.scalars[s].type));
  for (int p : paramsUsed_) args.push_back(var(g_.params[p], ScalarType::Int));
  return args;
}

void CallLowering::statement(size_t k, const StmtRegion& reg, std::vector<StmtPtr>& out) {
  const tessel::Stmt& st = call_.stmts[k];
  auto iters = prog_.iteratorNames();
  std::string text = fmt::format("Statement {}", k + 1);
  if (st.loc.valid()) text += fmt::format(" (line {})", st.loc.line());
  text += ": " + statementText(prog_, call_, st) + "\nRegion: ";
  for (size_t d = 0; d < reg.iter.size(); ++d)
    text += fmt::format("{}{} in {}", d ? ", " : "", iters[d], reg.iter[d].str());
  if (reg.iter.empty()) text += "a single point";
  out.push_back(comment(text));

  // The store: converted to the left-hand side's type; compound forms read the left side.
  ScalarType lt = st.lhs->type;
  std::string buf;
  ExprPtr idx;
  if (st.lhsIsScalar()) {
    buf = localScalars_.at(st.lhs->index);
    idx = boxIndex();
  } else {
    buf = bufferOf(st.lhs->array);
    idx = linearIndex(*st.lhs);
  }
  ExprPtr value = lower(st.rhs);
  if (st.op != AssignOp::Set) {
    value = binary(compoundOp(st.op), load(buf, idx, lt), value);
  }
  if (value->type != lt) value = cast(lt, value);
  std::vector<StmtPtr> body = {store(buf, idx, value)};

  int n = static_cast<int>(reg.iter.size());
  for (int d = n - 1; d >= 0; --d) {
    LoopKind kind = n == 1       ? LoopKind::ParallelSimd
                    : d == 0     ? LoopKind::Parallel
                    : d == n - 1 ? LoopKind::Simd
                                 : LoopKind::Serial;
    body = {forLoop(g_.iters[d], bound(reg.iter[d].lo), bound(reg.iter[d].hi), kind, body)};
  }
  // Conditions on planes: decided here when both sides are constants, else tested at run time.
  ExprPtr cond;
  for (auto& c : reg.conditions) {
    ExprPtr a = bound(c.a), b = bound(c.b);
    if (a->kind == ExprKind::IntLit && b->kind == ExprKind::IntLit) {
      if (a->ival <= b->ival) continue;
      out.push_back(comment("Never runs: a plane it reads lies outside its producer's region."));
      return;
    }
    ExprPtr x = binary(Op::Le, a, b);
    cond = cond ? binary(Op::And, cond, x) : x;
  }
  if (cond) body = {ifThen(cond, body)};
  out.insert(out.end(), body.begin(), body.end());
}

Function CallLowering::build() {
  collectUses();
  auto iters = prog_.iteratorNames();
  Function f;
  f.name = g_.callFns[index_];
  f.linkage = Linkage::Internal;
  f.comment =
      fmt::format("Call {}: {}({})", index_, call_.name, fmt::join(call_.actualNames, ", "));
  if (call_.loc.valid()) f.comment += fmt::format(" at line {}", call_.loc.line());
  f.comment += "\nCall domain: " +
               (call_.domain.empty() ? "a single point" : domainText(call_.domain, iters));
  std::vector<StmtPtr> body;
  if (!call_.inits.empty()) body.push_back(comment("Initialised locals: evaluated once per call."));
  for (auto& in : call_.inits) {
    inits_.push_back(names_.take(in.name));
    ExprPtr v = lower(in.value);
    if (v->type != in.type || in.type == ScalarType::Int) v = cast(in.type, v);
    body.push_back(localDecl(scalarParamType(in.type), inits_.back(), v));
  }
  for (auto& la : call_.localArrays) {
    std::string n = names_.takeBuffer(la.name);
    localArrays_.push_back(n);
    ExprPtr cnt = count(la.extents);
    if (la.scratchOf >= 0) {
      body.push_back(comment(fmt::format("Local array '{}': a private copy of '{}' for this call.",
                                         la.name, prog_.arrays[la.scratchOf].name)));
      body.push_back(alloc(ctypeOf(la.type), n, cnt));
      body.push_back(copy(ctypeOf(la.type), n, g_.arrays[la.scratchOf], cnt));
    } else {
      body.push_back(comment(fmt::format("Local array '{}', fresh for this call.", la.name)));
      body.push_back(alloc(ctypeOf(la.type), n, cnt));
    }
  }
  if (!call_.localScalars.empty()) {
    body.push_back(comment("Per-point local scalars live in buffers over the call-domain box."));
    ExprPtr cnt = intLit(1);
    for (size_t d = 0; d < call_.domain.size(); ++d) {
      boxLo_.push_back(names_.take("lo_" + g_.iters[d]));
      boxN_.push_back(names_.take("n_" + g_.iters[d]));
      ExprPtr lo = lower(call_.domain[d].lo), hi = lower(call_.domain[d].hi);
      body.push_back(localDecl(CType::Int64, boxLo_[d], lo));
      ExprPtr ext = indexSub(indexAddConst(hi, 1), var(boxLo_[d], ScalarType::Int));
      body.push_back(localDecl(CType::Int64, boxN_[d], indexMax(intLit(0), ext)));
      cnt = indexMul(cnt, var(boxN_[d], ScalarType::Int));
    }
    for (auto& ls : call_.localScalars) {
      std::string n = names_.takeBuffer(ls.name);
      localScalars_.push_back(n);
      body.push_back(alloc(ctypeOf(ls.type), n, cnt));
    }
  }
  CallRegions regions = analyzeRegions(prog_, call_);
  for (size_t k = 0; k < call_.stmts.size(); ++k) {
    if (!body.empty()) body.push_back(comment(""));
    statement(k, regions.stmts.at(k), body);
  }
  f.body = block(std::move(body));
  // Parameters last: lowering the body found which ones it uses.
  for (int a : arraysUsed_) f.params.push_back({g_.arrays[a], ctypeOf(prog_.arrays[a].type), true});
  for (int s : scalarsUsed_)
    f.params.push_back({g_.scalars[s], scalarParamType(prog_.scalars[s].type), false});
  for (int p : paramsUsed_) f.params.push_back({g_.params[p], CType::Int64, false});
  return f;
}

// ---- tessel_program and tessel_entry -------------------------------------------------------

/// An expression over parameters with each parameter replaced by its C variable.
ExprPtr paramsToVars(const ExprPtr& e, const GlobalNames& g) {
  if (e->kind == ExprKind::ParamRef) return var(g.params.at(e->index), ScalarType::Int);
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  for (auto& a : e->args) args.push_back(paramsToVars(a, g));
  return withArgs(e, std::move(args));
}

/// Program::body as host code: calls of the call functions and serial iterate loops.
std::vector<StmtPtr> lowerExec(const Program& prog, const std::vector<ExecNode>& nodes,
                               GlobalNames& g, const std::vector<std::vector<ExprPtr>>& args) {
  std::vector<StmtPtr> out;
  auto iters = prog.iteratorNames();
  for (auto& n : nodes) {
    if (n.kind == ExecNode::Kind::Call) {
      const CallInst& c = prog.calls.at(n.call);
      out.push_back(comment(fmt::format("{}({})", c.name, fmt::join(c.actualNames, ", "))));
      out.push_back(callFn(g.callFns.at(n.call), args.at(n.call)));
    } else {
      std::string t = g.namer.take("t");
      out.push_back(comment(
          fmt::format("iterate {}:{} (inclusive)", toString(n.lo, iters), toString(n.hi, iters))));
      out.push_back(forLoop(t, paramsToVars(n.lo, g), paramsToVars(n.hi, g), LoopKind::Serial,
                            lowerExec(prog, n.body, g, args)));
    }
  }
  return out;
}

std::vector<std::string> header(const Program& prog, const GlobalNames& g) {
  std::string file = prog.file ? prog.file->name() : "(a program built in memory)";
  std::string flags = fmt::format("{}", fmt::join(cppCompileFlags(), " "));
  std::vector<std::string> h = {
      fmt::format("Generated by Tessel from {} (C++/OpenMP backend). Do not edit; regenerate.",
                  file),
      "",
      "Build standalone (the tessel runtime does the same, then loads it with dlopen):",
      fmt::format("  c++ {} {} -o {}", flags, kCppSourceName, kCppLibraryName),
      "or with the CMakeLists.txt written next to this file.",
      "",
      "Functions:",
      "  callN_<stencil>(...)  one per call: initialised locals, local buffers, then each",
      "                        statement as an OpenMP loop nest over its region, in order",
      "  tessel_program(...)   the program's calls and iterate loops; one typed parameter per",
      "                        global array, scalar and parameter",
      "  tessel_entry(arrays, scalars, params)  C entry point; unpacks and calls tessel_program:",
  };
  for (size_t a = 0; a < prog.arrays.size(); ++a) {
    std::string ext;
    for (auto& e : prog.arrays[a].extents) ext += "[" + toString(e, {}) + "]";
    h.push_back(fmt::format("    arrays[{}]  = {}{}: {}, row-major", a, g.arrays[a], ext,
                            typeName(prog.arrays[a].type)));
  }
  for (size_t s = 0; s < prog.scalars.size(); ++s)
    h.push_back(fmt::format("    scalars[{}] = {} ({}, passed as a double)", s, g.scalars[s],
                            typeName(prog.scalars[s].type)));
  for (size_t p = 0; p < prog.params.size(); ++p)
    h.push_back(fmt::format("    params[{}]  = {}", p, g.params[p]));
  h.push_back(
      "  and returns the error status (int32_t): 0, or the first run-time error of the program:");
  for (Status st :
       {Status::IntDivisionByZero, Status::NegativeExponent, Status::IntRemainderByZero})
    h.push_back(
        fmt::format("    {}  {}", static_cast<int>(st), statusMessage(static_cast<int>(st))));
  h.push_back(
      "  Nothing traps: after an error the program runs on, and the arrays hold unspecified");
  h.push_back("  values. Calls running at the same time share one status.");
  h.push_back("");
  h.push_back("Semantics: language.md sections 5 and 9. Int values compute in 64 bits (wrapping)");
  h.push_back("and wrap to 32 bits when stored; float arithmetic stays in float.");
  return h;
}

}  // namespace

Module lowerToCpp(const Program& prog) {
  Dialect d = cppDialect();
  GlobalNames g;
  for (auto& w : d.reservedWords) g.namer.reserve(w);
  for (auto& w : d.mathNames()) g.namer.reserve(w);
  for (auto* w : {"arrays", "scalars", "params", "tessel_program", "tessel_entry", "tessel_ipow",
                  "tessel_idiv", "tessel_imod", "tessel_fail"})
    g.namer.reserve(w);
  g.namer.reserve(d.statusName);
  for (size_t c = 0; c < prog.calls.size(); ++c)
    g.callFns.push_back(g.namer.take(fmt::format("call{}_{}", c, prog.calls[c].name)));
  for (auto& a : prog.arrays) g.arrays.push_back(g.namer.take(a.name));
  for (auto& s : prog.scalars) g.scalars.push_back(g.namer.take(s.name));
  for (auto& p : prog.params) g.params.push_back(g.namer.take(p.name));
  for (auto& it : prog.iterators) g.iters.push_back(g.namer.take(it.name));

  Module m;
  m.header = header(prog, g);
  std::vector<std::vector<ExprPtr>> args;
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    CallLowering cl(prog, static_cast<int>(c), g);
    m.functions.push_back(cl.build());
    args.push_back(cl.callArgs());
  }

  Function prg;
  prg.name = "tessel_program";
  prg.linkage = Linkage::Public;
  prg.comment = "The program: its calls and iterate loops, in textual order.";
  std::vector<ExprPtr> all;
  for (size_t a = 0; a < prog.arrays.size(); ++a) {
    prg.params.push_back({g.arrays[a], ctypeOf(prog.arrays[a].type), true});
    all.push_back(var(g.arrays[a], prog.arrays[a].type));
  }
  for (size_t s = 0; s < prog.scalars.size(); ++s) {
    prg.params.push_back({g.scalars[s], ctypeOf(prog.scalars[s].type), false});
    all.push_back(var(g.scalars[s], prog.scalars[s].type));
  }
  for (auto& p : g.params) {
    prg.params.push_back({p, CType::Int64, false});
    all.push_back(var(p, ScalarType::Int));
  }
  prg.body = block(lowerExec(prog, prog.body, g, args));
  m.functions.push_back(prg);

  Function entry;
  entry.name = "tessel_entry";
  entry.linkage = Linkage::ExternC;
  entry.result = CType::Int32;
  entry.comment =
      "C entry point: arrays[i] is global array i, scalars[i] scalar i as a double, params[i]\n"
      "parameter i (layout in the file comment). Returns the error status: 0, or the first\n"
      "run-time error of the program (the codes are in the file comment).";
  entry.params = {{"arrays", CType::Int64, false, false, true},
                  {"scalars", CType::Double, true, true},
                  {"params", CType::Int64, true, true}};
  std::vector<StmtPtr> eb = {resetStatus()};
  for (size_t a = 0; a < prog.arrays.size(); ++a)
    eb.push_back(pointerDecl(ctypeOf(prog.arrays[a].type), g.arrays[a],
                             load("arrays", intLit(static_cast<int64_t>(a)), ScalarType::Int)));
  for (size_t s = 0; s < prog.scalars.size(); ++s) {
    ScalarType t = prog.scalars[s].type;
    ExprPtr v = load("scalars", intLit(static_cast<int64_t>(s)), ScalarType::Double);
    eb.push_back(localDecl(ctypeOf(t), g.scalars[s], t == ScalarType::Double ? v : cast(t, v)));
  }
  for (size_t p = 0; p < prog.params.size(); ++p)
    eb.push_back(localDecl(CType::Int64, g.params[p],
                           load("params", intLit(static_cast<int64_t>(p)), ScalarType::Int)));
  eb.push_back(callFn("tessel_program", all));
  eb.push_back(returnStatus());
  entry.body = block(std::move(eb));
  m.functions.push_back(entry);
  return m;
}

}  // namespace tessel
