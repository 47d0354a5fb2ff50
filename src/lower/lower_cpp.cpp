#include "lower/lower_cpp.h"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "analysis/regions.h"
#include "analysis/stmt_fusion.h"
#include "codegen/dialect.h"
#include "lower/call_exprs.h"
#include "lower/namer.h"

namespace tessel {

using namespace lir;  // the loop IR's types and factories

std::vector<std::string> cppCompileFlags() {
  return {"-std=c++17",        "-O3",     "-march=native", "-fopenmp",
          "-ffp-contract=off", "-fwrapv", "-fPIC",         "-shared"};
}

namespace {

using GlobalNames = ProgramNames;

std::string domainText(const Domain& d, const std::vector<std::string>& iters) {
  std::string s;
  for (size_t k = 0; k < d.size(); ++k)
    s += fmt::format("{}{} in {}..{}", k ? ", " : "", iters[k], toString(d[k].lo, iters),
                     toString(d[k].hi, iters));
  return s;
}

/// Lowers one CallInst to a function.
class CallLowering : public RefObserver {
 public:
  CallLowering(const Program& p, int index, GlobalNames& g, bool fuse)
      : prog_(p),
        call_(p.calls[index]),
        index_(index),
        g_(g),
        names_(g.namer.inner()),
        fuse_(fuse) {}

  Function build();
  /// Arguments tessel_program passes (the global names, in parameter order).
  std::vector<ExprPtr> callArgs() const { return uses_.args(prog_, g_); }
  /// Lowering records the parameters it reads (collectUses the arrays and scalars).
  void uses(const Expr& ref) override {
    if (ref.kind == ExprKind::ParamRef) uses_.params.insert(ref.index);
  }
  /// A local scalar of the fused group being lowered that lives in a register.
  ExprPtr replace(const Expr& ref) override {
    if (ref.kind != ExprKind::ScalarRef || ref.scalarKind != ScalarKind::Local || !regs_)
      return nullptr;
    const std::string& r = regs_->at(static_cast<size_t>(ref.index));
    return r.empty() ? nullptr : var(r, ref.type);
  }

 private:
  const Program& prog_;
  const CallInst& call_;
  int index_;
  GlobalNames& g_;
  Namer names_;
  HostUses uses_;  // params: filled by lowering
  CallNames locals_;
  CallExprs x_{prog_, call_, g_, locals_, *this};
  bool fuse_ = false;                               // fuse_statements
  const std::vector<std::string>* regs_ = nullptr;  // fused(): per local scalar, its register

  void collectUses();
  void statement(size_t k, const StmtRegion& reg, std::vector<StmtPtr>& out);
  void fused(const std::vector<size_t>& ks, const CallRegions& regions,
             const std::vector<std::string>& regs, std::vector<StmtPtr>& out);
};

void CallLowering::collectUses() {
  auto scan = [&](const ExprPtr& e) {
    visitExpr(e, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::ArrayRef && !x->array.local) uses_.arrays.insert(x->array.index);
      if (x->kind == ExprKind::ScalarRef && x->scalarKind == ScalarKind::Global)
        uses_.scalars.insert(x->index);
    });
  };
  for (auto& st : call_.stmts) {
    scan(st.lhs);
    scan(st.rhs);
  }
  for (auto& in : call_.inits) scan(in.value);
  for (auto& la : call_.localArrays)
    if (la.scratchOf >= 0) uses_.arrays.insert(la.scratchOf);
}

void CallLowering::statement(size_t k, const StmtRegion& reg, std::vector<StmtPtr>& out) {
  std::string text = statementHeading(prog_, call_, k, reg);
  if (reg.iter.empty()) text += "a single point";
  out.push_back(comment(text));

  Assignment a = x_.assignment(call_.stmts[k]);
  std::vector<StmtPtr> body = {store(a.buffer, a.index, a.value)};

  int n = static_cast<int>(reg.iter.size());
  for (int d = n - 1; d >= 0; --d) {
    LoopKind kind = n == 1       ? LoopKind::ParallelSimd
                    : d == 0     ? LoopKind::Parallel
                    : d == n - 1 ? LoopKind::Simd
                                 : LoopKind::Serial;
    body = {forLoop(g_.iters[d], x_.bound(reg.iter[d].lo), x_.bound(reg.iter[d].hi), kind, body)};
  }
  // Conditions on planes: decided here when both sides are constants, else tested at run time.
  ExprPtr cond;
  for (auto& c : reg.conditions) {
    ExprPtr lhs = x_.bound(c.a), rhs = x_.bound(c.b);
    if (lhs->kind == ExprKind::IntLit && rhs->kind == ExprKind::IntLit) {
      if (lhs->ival <= rhs->ival) continue;
      out.push_back(comment("Never runs: a plane it reads lies outside its producer's region."));
      return;
    }
    ExprPtr le = binary(Op::Le, lhs, rhs);
    cond = cond ? binary(Op::And, cond, le) : le;
  }
  if (cond) body = {ifThen(cond, body)};
  out.insert(out.end(), body.begin(), body.end());
}

void CallLowering::fused(const std::vector<size_t>& ks, const CallRegions& regions,
                         const std::vector<std::string>& regs, std::vector<StmtPtr>& out) {
  std::vector<std::string> nums, held;
  for (size_t k : ks) nums.push_back(std::to_string(k + 1));
  for (size_t s = 0; s < regs.size(); ++s)
    if (!regs[s].empty()) held.push_back(call_.localScalars[s].name);
  out.push_back(comment(fmt::format(
      "Statements {} fused (fuse_statements, analysis/stmt_fusion.h): one loop nest over the "
      "bounding box of their regions, running them in order at each point, each where its own "
      "region holds; no point touches an element another point writes.{}",
      fmt::join(nums, ", "),
      held.empty() ? std::string()
                   : fmt::format(" Local scalars in registers: {}.", fmt::join(held, ", ")))));
  // The statements that can run (build() checked that none waits for the run to decide), per
  // statement its region's bounds, and their bounding box.
  const std::vector<size_t> run = fusedStatementsThatRun(x_, regions, ks).value();
  if (run.empty()) {
    out.push_back(comment("Never runs: every region is empty."));
    return;
  }
  const GroupBounds bounds = declareGroupBounds(x_, g_, regions, run, names_, out);
  const std::vector<std::vector<std::string>>& slo = bounds.lo;
  const std::vector<std::vector<std::string>>& shi = bounds.hi;
  const std::vector<std::string>& lo = bounds.boxLo;
  const std::vector<std::string>& hi = bounds.boxHi;
  const size_t n = lo.size();
  // The statements at one point; `guarded`: each where its own region holds (the row's own
  // test, `row[s]`, for the outer iterators, and its bounds along the innermost).
  const size_t in = n - 1;
  std::vector<std::string> row(run.size());
  auto pointBody = [&](bool guarded) {
    regs_ = &regs;
    std::vector<StmtPtr> b;
    for (size_t s = 0; s < regs.size(); ++s)
      if (!regs[s].empty())
        b.push_back(localDecl(valueType(call_.localScalars[s].type), regs[s],
                              zeroOf(call_.localScalars[s].type), false));
    for (size_t s = 0; s < run.size(); ++s) {
      const tessel::Stmt& st = call_.stmts[run[s]];
      Assignment a = x_.assignment(st);
      StmtPtr set =
          a.registerVar ? assign(a.registerVar->name, a.value) : store(a.buffer, a.index, a.value);
      ExprPtr guard;
      if (guarded) {
        if (!row[s].empty()) guard = var(row[s], ScalarType::Bool);
        ExprPtr it = var(g_.iters[in], ScalarType::Int);
        guard = allOf(guard, binary(Op::Ge, it, var(slo[s][in], ScalarType::Int)));
        guard = allOf(guard, binary(Op::Le, it, var(shi[s][in], ScalarType::Int)));
      }
      b.push_back(comment(
          guarded ? fmt::format("Statement {}", run[s] + 1)
                  : fmt::format("Statement {}: {}", run[s] + 1, statementText(prog_, call_, st))));
      b.push_back(guard ? ifThen(guard, {set}) : set);
    }
    regs_ = nullptr;
    return b;
  };
  std::vector<StmtPtr> body;
  if (n == 0 || run.size() == 1) {
    // One statement (its scalars in registers), or a single point: no tests.
    body = pointBody(false);
    for (int d = static_cast<int>(n) - 1; d >= 0; --d) {
      const size_t u = static_cast<size_t>(d);
      LoopKind kind = n == 1    ? LoopKind::ParallelSimd
                      : d == 0  ? LoopKind::Parallel
                      : u == in ? LoopKind::Simd
                                : LoopKind::Serial;
      body = {forLoop(g_.iters[u], var(lo[u], ScalarType::Int), var(hi[u], ScalarType::Int), kind,
                      body)};
    }
    out.insert(out.end(), body.begin(), body.end());
    return;
  }
  // Along the innermost iterator, the points where every statement's region holds: there the
  // row runs without tests in one vectorisable loop; the row's ends, and the rows some
  // statement's region misses, test each statement.
  std::string coreLo = names_.take("core_lo_" + g_.iters[in]);
  std::string coreHi = names_.take("core_hi_" + g_.iters[in]);
  {
    ExprPtr l, h;
    for (size_t s = 0; s < run.size(); ++s) {
      ExprPtr a = var(slo[s][in], ScalarType::Int), b = var(shi[s][in], ScalarType::Int);
      l = l ? indexMax(l, a) : a;
      h = h ? indexMin(h, b) : b;
    }
    out.push_back(localDecl(CType::Int64, coreLo, l));
    out.push_back(localDecl(CType::Int64, coreHi,
                            indexMax(h, indexAddConst(var(coreLo, ScalarType::Int), -1))));
  }
  std::vector<StmtPtr> rowBody;
  std::string first = coreLo, last = coreHi;
  if (n > 1) {
    rowBody.push_back(
        comment("Which statements' regions hold on this row, and so where the "
                "row's untested points are (none unless every one does)."));
    ExprPtr every;
    for (size_t s = 0; s < run.size(); ++s) {
      ExprPtr on;
      for (size_t d = 0; d < in; ++d) {
        ExprPtr it = var(g_.iters[d], ScalarType::Int);
        on = allOf(on, binary(Op::Ge, it, var(slo[s][d], ScalarType::Int)));
        on = allOf(on, binary(Op::Le, it, var(shi[s][d], ScalarType::Int)));
      }
      row[s] = names_.take(fmt::format("row_s{}", run[s] + 1));
      rowBody.push_back(localDecl(CType::Bool, row[s], on));
      every = allOf(every, var(row[s], ScalarType::Bool));
    }
    first = names_.take("first_" + g_.iters[in]);
    last = names_.take("last_" + g_.iters[in]);
    rowBody.push_back(
        localDecl(CType::Int64, first, indexAddConst(var(hi[in], ScalarType::Int), 1), false));
    rowBody.push_back(localDecl(CType::Int64, last, var(hi[in], ScalarType::Int), false));
    rowBody.push_back(ifThen(every, {assign(first, var(coreLo, ScalarType::Int)),
                                     assign(last, var(coreHi, ScalarType::Int))}));
  }
  ExprPtr firstV = var(first, ScalarType::Int), lastV = var(last, ScalarType::Int);
  rowBody.push_back(comment("The row's first points, each statement where its region holds."));
  rowBody.push_back(forLoop(g_.iters[in], var(lo[in], ScalarType::Int), indexAddConst(firstV, -1),
                            LoopKind::Serial, pointBody(true)));
  rowBody.push_back(comment("Where every statement's region holds: no tests."));
  rowBody.push_back(forLoop(g_.iters[in], firstV, lastV,
                            n == 1 ? LoopKind::ParallelSimd : LoopKind::Simd, pointBody(false)));
  rowBody.push_back(comment("The row's last points, each statement where its region holds."));
  rowBody.push_back(forLoop(g_.iters[in], indexAddConst(lastV, 1), var(hi[in], ScalarType::Int),
                            LoopKind::Serial, pointBody(true)));
  body = rowBody;
  for (int d = static_cast<int>(in) - 1; d >= 0; --d) {
    const size_t u = static_cast<size_t>(d);
    body = {forLoop(g_.iters[u], var(lo[u], ScalarType::Int), var(hi[u], ScalarType::Int),
                    d == 0 ? LoopKind::Parallel : LoopKind::Serial, body)};
  }
  out.insert(out.end(), body.begin(), body.end());
}

Function CallLowering::build() {
  collectUses();
  auto iters = prog_.iteratorNames();
  Function f = callFunction(call_, index_, g_.callFns[index_]);
  f.comment += "\nCall domain: " +
               (call_.domain.empty() ? "a single point" : domainText(call_.domain, iters));
  CallRegions regions = analyzeRegions(prog_, call_);
  // Under fuse_statements, the groups that become one loop nest each and the local scalars
  // they keep in registers (those every use of which is in one such group).
  StatementGroups groups;
  std::vector<bool> groupFused;
  LocalsStyle style{"Initialised locals: evaluated once per call.", "", true, false, {}};
  if (fuse_) {
    groups = fuseStatements(prog_, call_);
    // One loop nest unless a plane condition waits for the run (the statements' nests test it).
    for (auto& ks : groups.groups)
      groupFused.push_back(fusedStatementsThatRun(x_, regions, ks).has_value());
    for (int sg : groups.scalarGroup)
      style.inRegister.push_back(sg >= 0 && groupFused.at(static_cast<size_t>(sg)));
  }
  std::vector<StmtPtr> body = declareLocals(prog_, call_, g_, style, names_, locals_, x_);
  if (fuse_) {
    for (size_t gi = 0; gi < groups.groups.size(); ++gi) {
      if (!body.empty()) body.push_back(comment(""));
      std::vector<std::string> regs(call_.localScalars.size());
      bool held = false;
      for (size_t s = 0; s < regs.size(); ++s)
        if (style.inRegister[s] && groups.scalarGroup[s] == static_cast<int>(gi)) {
          regs[s] = names_.take("reg_" + call_.localScalars[s].name);
          held = true;
        }
      // A group of one statement with nothing in registers is its plain loop nest.
      if (!groupFused[gi] || (groups.groups[gi].size() == 1 && !held)) {
        for (size_t k : groups.groups[gi]) statement(k, regions.stmts.at(k), body);
        continue;
      }
      fused(groups.groups[gi], regions, regs, body);
    }
  } else {
    for (size_t k = 0; k < call_.stmts.size(); ++k) {
      if (!body.empty()) body.push_back(comment(""));
      statement(k, regions.stmts.at(k), body);
    }
  }
  f.body = block(std::move(body));
  // Parameters last: lowering the body found which ones it uses.
  for (int a : uses_.arrays)
    f.params.push_back({g_.arrays[a], ctypeOf(prog_.arrays[a].type), true});
  for (int s : uses_.scalars)
    f.params.push_back({g_.scalars[s], valueType(prog_.scalars[s].type), false});
  for (int p : uses_.params) f.params.push_back({g_.params[p], CType::Int64, false});
  return f;
}

// ---- tessel_program and tessel_entry -------------------------------------------------------

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

Module lowerToCpp(const Program& prog, const std::vector<bool>& fuseStatements) {
  Dialect d = cppDialect();
  GlobalNames g;
  for (auto& w : d.reservedWords) g.namer.reserve(w);
  for (auto& w : d.mathNames()) g.namer.reserve(w);
  for (auto* w : {"arrays", "scalars", "params", "tessel_program", "tessel_entry", "tessel_ipow",
                  "tessel_idiv", "tessel_imod", "tessel_fail", "tessel_toint_f", "tessel_toint_d"})
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
    const size_t stencil = static_cast<size_t>(prog.calls[c].stencil);
    CallLowering cl(prog, static_cast<int>(c), g,
                    stencil < fuseStatements.size() && fuseStatements[stencil]);
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
  entry.params = programTableParams();
  // A program without scalars (or parameters) reads no element of that table.
  entry.params[1].maybeUnused = prog.scalars.empty();
  entry.params[2].maybeUnused = prog.params.empty();
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
