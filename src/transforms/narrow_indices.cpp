// Pass narrow-indices (narrow_indices.h).
#include "transforms/narrow_indices.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "analysis/int_arithmetic.h"
#include "ir/loop_ir_walk.h"

namespace tessel::transforms {

namespace {

using lir::CType;
using lir::StmtKind;
using lir::StmtPtr;

constexpr int64_t kParamLimit = int64_t{1} << 30;
constexpr int64_t kIndexLimit = std::numeric_limits<int32_t>::max();
/// How far beyond an extent a coordinate may stray besides the literals: a block's threads.
constexpr int64_t kThreadsMargin = 2048;
/// The host's Bool that says one launch's int arguments fit.
constexpr const char* kLaunchFitVar = "tessel_fits32";

/// The largest int literal of a kernel's expressions, in magnitude.
class LargestLiteral : public lir::StmtVisitor {
 public:
  int64_t most = 0;

 protected:
  void visitExpr(const ExprPtr& e) override {
    if (!e) return;
    tessel::visitExpr(e, [&](const ExprPtr& x) {
      if (x->kind != ExprKind::IntLit) return;
      most = std::max(most, x->ival == std::numeric_limits<int64_t>::min()
                                ? std::numeric_limits<int64_t>::max()
                                : (x->ival < 0 ? -x->ival : x->ival));
    });
  }
};

int64_t maxLiteral(const std::vector<StmtPtr>& body) {
  LargestLiteral v;
  v.visitAll(body);
  return v.most;
}

CType narrowType(CType t) { return t == CType::Int64 ? CType::Int32 : t; }

std::vector<lir::Param> narrowParams(std::vector<lir::Param> ps) {
  for (lir::Param& p : ps)
    if (!p.pointer && !p.slots && p.opaqueType.empty()) p.type = narrowType(p.type);
  return ps;
}

/// Int64 locals as Int32 (the kernel's other ints follow Function::intBits).
class NarrowLocals : public lir::StmtMutator {
 protected:
  StmtPtr mutateLeaf(const StmtPtr& s) override {
    if (s->kind != StmtKind::LocalDecl || s->pointer || s->type != CType::Int64) return s;
    auto c = std::make_shared<lir::Stmt>(*s);
    c->type = CType::Int32;
    return c;
  }
};

ExprPtr allOf(const std::vector<ExprPtr>& conditions) {
  ExprPtr out;
  for (const ExprPtr& c : conditions) out = out ? binary(Op::And, out, c) : c;
  return out ? out : boolLit(true);
}

/// lo <= v && v <= hi.
ExprPtr within(const ExprPtr& v, int64_t lo, int64_t hi) {
  return binary(Op::And, binary(Op::Le, intLit(lo), v), binary(Op::Le, v, intLit(hi)));
}

/// `e` with each ParamRef replaced by the host variable holding it.
ExprPtr paramsToVars(const ExprPtr& e, const std::map<int, std::string>& names) {
  if (e->kind == ExprKind::ParamRef) return var(names.at(e->index), ScalarType::Int);
  if (e->args.empty()) return e;
  auto c = std::make_shared<Expr>(*e);
  for (ExprPtr& a : c->args) a = paramsToVars(a, names);
  return c;
}

/// Why kernel `k` keeps 64-bit ints ("" when it may be narrowed).
std::string wideReason(const GpuKernelInfo& k, const lir::Function& f, const Program& prog) {
  std::vector<int> calls = k.fusedCalls.empty() ? std::vector<int>{k.call} : k.fusedCalls;
  for (int c : calls)
    for (const Stmt& s : prog.calls.at(static_cast<size_t>(c)).stmts)
      if (computesWithInts(s.rhs))
        return fmt::format("the statement at line {} computes with ints", s.loc.line());
  if (int64_t lit = maxLiteral(f.body->body); lit > kMaxLiteral)
    return fmt::format("it holds the literal {} (beyond {})", lit, kMaxLiteral);
  return "";
}

/// The host side: what each launch of a narrowed kernel becomes.
struct HostRewrite {
  const GpuProgram& in;
  std::set<std::string> paramVars;  // the host variables of the parameters (tested once a run)
  std::set<std::string> needy;      // host functions that take (or define) the fit test

  bool narrowed(int id) const {
    return id >= 0 && id < static_cast<int>(in.kernels.size()) && in.kernels[id].indexBits == 32;
  }

  bool needs(const std::vector<StmtPtr>& body) const {
    struct Finds : lir::StmtVisitor {
      const HostRewrite& h;
      bool found = false;
      explicit Finds(const HostRewrite& owner) : h(owner) {}
      void visitLeaf(const lir::Stmt& s) override {
        found = found ||
                (s.kind == StmtKind::Launch && h.narrowed(static_cast<int>(s.value->ival))) ||
                (s.kind == StmtKind::Call && h.needy.count(s.name) > 0);
      }
    } f(*this);
    f.visitAll(body);
    return f.found;
  }

  StmtPtr launchOf(const lir::Stmt& s) const {
    const int id = static_cast<int>(s.value->ival);
    const GpuKernelInfo& k = in.kernels[static_cast<size_t>(id)];
    auto narrow = std::make_shared<lir::Stmt>(s);
    narrow->kernelParams = narrowParams(s.kernelParams);
    // The run's sizes fit, and so does every other int argument (a bound, a user's scalar).
    std::vector<ExprPtr> fits = {var(kIndexFitVar, ScalarType::Bool)};
    for (size_t a = 0; a < s.args.size(); ++a) {
      const ExprPtr& x = s.args[a];
      bool tested =
          x->kind == ExprKind::IntLit || (x->kind == ExprKind::Var && paramVars.count(x->name) > 0);
      if (!s.kernelParams[a].pointer && s.kernelParams[a].type == CType::Int64 && !tested)
        fits.push_back(within(x, -kParamLimit, kParamLimit));
    }
    std::vector<StmtPtr> otherwise;
    if (k.fallback >= 0) {
      auto wide = std::make_shared<lir::Stmt>(s);
      wide->value = intLit(k.fallback);
      wide->name = in.device.functions.at(static_cast<size_t>(k.fallback)).name;
      otherwise = {lir::comment("The sizes need 64-bit indices: the kernel's 64-bit copy."), wide};
    } else {
      otherwise = {lir::callFn(kIndexRangeFn, {var("rt", ScalarType::Int), intLit(id)})};
    }
    return lir::block({lir::localDecl(CType::Bool, kLaunchFitVar, allOf(fits)),
                       lir::ifThen(var(kLaunchFitVar, ScalarType::Bool), {narrow}, otherwise)});
  }

  std::vector<StmtPtr> body(const std::vector<StmtPtr>& b) const {
    // Launches of narrowed kernels choose their kernel; calls of needy functions pass the test.
    struct Rewrite : lir::StmtMutator {
      const HostRewrite& h;
      explicit Rewrite(const HostRewrite& owner) : h(owner) {}
      StmtPtr mutateLeaf(const StmtPtr& s) override {
        if (s->kind == StmtKind::Launch && h.narrowed(static_cast<int>(s->value->ival)))
          return h.launchOf(*s);
        if (s->kind != StmtKind::Call || !h.needy.count(s->name)) return s;
        auto c = std::make_shared<lir::Stmt>(*s);
        c->args.push_back(var(kIndexFitVar, ScalarType::Bool));
        return c;
      }
    } r(*this);
    bool changed = false;
    return r.mutateAll(b, changed);
  }
};

/// The host variables of the parameters (tessel_program's `const int64_t L = params[0];`), by
/// parameter, and the position after the last of them.
std::map<int, std::string> paramVariables(const std::vector<StmtPtr>& b, const Program& prog,
                                          size_t* after = nullptr) {
  std::map<int, std::string> names;
  for (size_t i = 0; i < b.size(); ++i) {
    const StmtPtr& s = b[i];
    if (s->kind == StmtKind::LocalDecl && s->value && s->value->kind == ExprKind::Load &&
        s->value->name == "params") {
      names[static_cast<int>(s->value->args[0]->ival)] = s->name;
      if (after) *after = i + 1;
    }
  }
  if (names.size() != prog.params.size())
    throw std::logic_error("internal error: narrow-indices: tessel_program's parameters");
  return names;
}

/// tessel_program's body with the fit test defined after the parameters' variables.
std::vector<StmtPtr> withFitTest(const std::vector<StmtPtr>& b, const Program& prog,
                                 int64_t margin) {
  size_t after = 0;
  std::map<int, std::string> names = paramVariables(b, prog, &after);
  std::vector<StmtPtr> out(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(after));
  out.push_back(lir::comment(fmt::format(
      "32-bit index arithmetic is exact when the parameters are at most 2^30 in magnitude and\n"
      "every array has fewer than 2^31 - {} elements (pass narrow-indices).",
      margin)));
  out.push_back(
      lir::localDecl(CType::Bool, kIndexFitVar, paramsToVars(indexFitTest(prog, margin), names)));
  out.insert(out.end(), b.begin() + static_cast<std::ptrdiff_t>(after), b.end());
  return out;
}

}  // namespace

ExprPtr indexFitTest(const Program& prog, int64_t margin) {
  std::vector<ExprPtr> tests;
  for (size_t p = 0; p < prog.params.size(); ++p)
    tests.push_back(
        within(paramRef(static_cast<int>(p), prog.params[p].name), -kParamLimit, kParamLimit));
  std::vector<const std::vector<ExprPtr>*> shapes;
  for (const ArrayDecl& a : prog.arrays) shapes.push_back(&a.extents);
  for (const CallInst& c : prog.calls)
    for (const LocalArray& a : c.localArrays) shapes.push_back(&a.extents);
  std::vector<ExprPtr> products;
  std::set<std::string> seen;  // one test per distinct shape
  for (const auto* extents : shapes) {
    std::string key;
    for (const ExprPtr& e : *extents) key += toString(e, prog.iteratorNames()) + ",";
    if (!seen.insert(key).second) continue;
    ExprPtr product;
    for (const ExprPtr& e : *extents) {
      tests.push_back(within(e, 0, kParamLimit));
      product = product ? lir::indexMul(product, e) : e;
      if (product != e) products.push_back(binary(Op::Le, product, intLit(kIndexLimit - margin)));
    }
    if (extents->size() == 1)
      tests.push_back(binary(Op::Le, extents->front(), intLit(kIndexLimit - margin)));
  }
  // The products last: && evaluates them only once each factor is known to be at most 2^30,
  // so that no partial product (at most 2^31 * 2^30) overflows.
  tests.insert(tests.end(), products.begin(), products.end());
  return allOf(tests);
}

namespace {

/// The kernels narrowed where they can be, their host code with the fit test (below).
GpuProgram narrowKernels(const GpuProgram& p, const Program& prog, const ResolvedSchedule& r);

/// tessel_program without the variables of the parameters nothing reads (a time-step count
/// no loop uses, in a program whose kernels keep 64-bit indices): no unused-variable warning.
void dropUnusedParamVariables(GpuProgram& out, const Program& prog) {
  for (lir::Function& f : out.host.functions) {
    if (f.name != "tessel_program" || !f.body) continue;
    std::vector<StmtPtr> body = f.body->body;
    bool anyKept = false;
    for (size_t i = 0; i < body.size(); ++i) {
      const StmtPtr& s = body[i];
      if (s->kind != StmtKind::LocalDecl || !s->value || s->value->kind != ExprKind::Load ||
          s->value->name != "params")
        continue;
      std::vector<StmtPtr> rest(body.begin() + static_cast<std::ptrdiff_t>(i) + 1, body.end());
      if (namesUsed(rest).count(s->name)) {
        anyKept = true;
        continue;
      }
      const auto k = static_cast<size_t>(s->value->args[0]->ival);
      body[i] = lir::comment(fmt::format("Parameter '{}' (params[{}]): nothing here uses it.",
                                         prog.params.at(k).name, k));
    }
    f.body = lir::block(body);
    if (!anyKept)
      for (lir::Param& prm : f.params)
        if (prm.name == "params") prm.name = "/*params: none used*/";
  }
}

}  // namespace

GpuProgram narrowIndices(const GpuProgram& p, const Program& prog, const ResolvedSchedule& r) {
  GpuProgram out = narrowKernels(p, prog, r);
  dropUnusedParamVariables(out, prog);
  return out;
}

namespace {

GpuProgram narrowKernels(const GpuProgram& p, const Program& prog, const ResolvedSchedule& r) {
  GpuProgram out = p;
  std::set<std::string> names;
  for (const lir::Function& f : p.device.functions) names.insert(f.name);
  int64_t margin = 0;
  bool any = false;
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    GpuKernelInfo& info = out.kernels[k];
    const lir::Function& f = p.device.functions.at(k);
    const int setting = r.gridOfCall(prog, info.call).indexBits;
    info.indexBits = 64;
    if (setting == 64) continue;
    info.wideReason = wideReason(info, f, prog);
    if (!info.wideReason.empty()) continue;
    lir::Function narrow = f;
    narrow.intBits = 32;
    narrow.params = narrowParams(f.params);
    bool changed = false;
    narrow.body = lir::block(NarrowLocals().mutateAll(f.body->body, changed));
    out.device.functions[k] = narrow;
    info.indexBits = 32;
    margin = std::max(margin, maxLiteral(f.body->body) + kThreadsMargin);
    any = true;
    if (setting == 0) {
      lir::Function wide = f;
      wide.name = f.name + "_i64";
      if (!names.insert(wide.name).second)
        throw std::logic_error("internal error: narrow-indices: two kernels " + wide.name);
      wide.comment = f.comment + "\n64-bit copy (pass narrow-indices): launched when the sizes " +
                     "of a run do not fit 32-bit indices.";
      // A register cap is chosen and checked for the kernel that runs: the copy keeps the
      // family's launch bounds, so a cap never makes it spill (its 64-bit indices take more
      // registers than the cap gives the narrowed kernel).
      wide.maxRegisters = 0;
      info.fallback = static_cast<int>(out.device.functions.size());
      out.device.functions.push_back(wide);
    }
  }
  if (!any) return out;
  out.indexMargin = margin;

  HostRewrite h{out, {}, {}};
  for (const lir::Function& f : out.host.functions)
    if (f.name == "tessel_program")
      for (const auto& [index, name] : paramVariables(f.body->body, prog)) h.paramVars.insert(name);
  // The host functions that launch a narrowed kernel, or call one that does (a fixed point).
  for (bool grew = true; grew;) {
    grew = false;
    for (const lir::Function& f : out.host.functions)
      if (f.body && !h.needy.count(f.name) && h.needs(f.body->body))
        grew = h.needy.insert(f.name).second;
  }
  for (lir::Function& f : out.host.functions) {
    if (!f.body || !h.needy.count(f.name)) continue;
    std::vector<StmtPtr> body = h.body(f.body->body);
    if (f.name == "tessel_program")
      body = withFitTest(body, prog, margin);
    else
      f.params.push_back({kIndexFitVar, CType::Bool});
    f.body = lir::block(body);
  }
  return out;
}

}  // namespace

}  // namespace tessel::transforms
