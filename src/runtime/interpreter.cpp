#include "runtime/interpreter.h"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include "analysis/bounds.h"
#include "analysis/regions.h"
#include "runtime/expr_eval.h"

namespace tessel {

namespace {

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& ext) {
  std::vector<int64_t> s(ext.size(), 1);
  for (int k = static_cast<int>(ext.size()) - 2; k >= 0; --k) s[k] = s[k + 1] * ext[k + 1];
  return s;
}

/// The storage one execution of one call allocates: its local arrays (fresh, or scratch copies of
/// global arrays), its per-point local scalars over the call-domain box, and the values of its
/// initialised locals. CallEnv fills it and addresses it.
class CallStorage {
 protected:
  std::vector<std::vector<int64_t>> localExt_;
  std::vector<std::vector<double>> localData_;
  std::vector<int64_t> domLo_, domHi_;
  int64_t domPoints_ = 0;
  std::vector<double> scalarData_;
  std::vector<double> inits_;
};

/// Storage and addressing for one execution of one call.
class CallEnv final : public CompileEnv, private CallStorage {
 public:
  CallEnv(const Program& prog, const CallInst& call, ProgramState& state,
          const std::vector<std::vector<int64_t>>& globalExt, const std::vector<std::string>& iters)
      : prog_(prog), call_(call), state_(state), globalExt_(globalExt), iters_(iters) {
    const ParamValues& p = state.params;
    for (auto& la : call.localArrays) {
      localExt_.push_back(evalExtents(la.extents, p));
      int64_t n = 1;
      for (int64_t e : localExt_.back()) {
        if (e < 0)
          throw RuntimeError(fmt::format("local array '{}' of '{}' has a negative extent {}",
                                         la.name, call.name, e));
        n *= e;
      }
      if (la.scratchOf >= 0) {
        const auto& src = state.arrays.at(la.scratchOf).values;
        if (static_cast<int64_t>(src.size()) != n)
          throw std::logic_error(fmt::format("scratch copy '{}' does not match the size of '{}'",
                                             la.name, prog.arrays.at(la.scratchOf).name));
        localData_.push_back(src);
      } else {
        localData_.emplace_back(static_cast<size_t>(n), 0.0);
      }
    }
    // Per-point local scalars live over the call-domain box.
    domPoints_ = 1;
    for (auto& r : call.domain) {
      int64_t lo = evalInt(r.lo, p), hi = evalInt(r.hi, p);
      domLo_.push_back(lo);
      domHi_.push_back(hi);
      domPoints_ *= hi >= lo ? hi - lo + 1 : 0;
    }
    if (!call.localScalars.empty())
      scalarData_.assign(static_cast<size_t>(domPoints_) * call.localScalars.size(), 0.0);
    // Initialised locals, once, in declaration order (each may use the earlier ones).
    int64_t origin[kMaxDims] = {};
    for (auto& init : call.inits) {
      NodePtr n = compileExpr(init.value, *this);
      inits_.push_back(toHeld(init.value->type, init.type, n->eval(origin)));
    }
  }

  Addr arrayAddr(const Expr& ref) const override {
    double* base;
    const std::vector<int64_t>* ext;
    if (ref.array.local) {
      base = const_cast<double*>(localData_.at(ref.array.index).data());
      ext = &localExt_.at(ref.array.index);
    } else {
      base = state_.arrays.at(ref.array.index).values.data();
      ext = &globalExt_.at(ref.array.index);
    }
    if (ref.subs.size() != ext->size() || ref.subs.size() > static_cast<size_t>(kMaxDims))
      throw std::logic_error(fmt::format("access to '{}' has {} subscripts for {} dimensions",
                                         ref.name, ref.subs.size(), ext->size()));
    std::vector<int64_t> strides = rowMajorStrides(*ext);
    Addr a;
    a.base = base;
    for (size_t k = 0; k < ref.subs.size(); ++k) {
      a.offset += ref.subs[k].offset * strides[k];
      if (ref.subs[k].fixed()) continue;
      a.iter[a.n] = ref.subs[k].iter;
      a.stride[a.n] = strides[k];
      ++a.n;
    }
    return a;
  }

  Addr localScalarAddr(int index) const override {
    Addr a;
    a.base = const_cast<double*>(scalarData_.data()) + static_cast<int64_t>(index) * domPoints_;
    int64_t stride = 1;
    for (int d = static_cast<int>(domLo_.size()) - 1; d >= 0; --d) {
      a.iter[a.n] = d;
      a.stride[a.n] = stride;
      a.offset -= domLo_[d] * stride;
      ++a.n;
      stride *= domHi_[d] - domLo_[d] + 1;
    }
    return a;
  }

  double scalarValue(ScalarKind kind, int index) const override {
    if (kind == ScalarKind::Init) return inits_.at(index);
    return state_.scalars.at(index);
  }
  int64_t paramValue(int index) const override { return state_.params.at(index); }
  const std::vector<std::string>& iterNames() const override { return iters_; }

  const std::vector<int64_t>& extents(ArrayId a) const {
    return a.local ? localExt_.at(a.index) : globalExt_.at(a.index);
  }
  bool insideDomain(const Box& b) const {
    for (size_t d = 0; d < domLo_.size(); ++d)
      if (b.lo[d] < domLo_[d] || b.hi[d] > domHi_[d]) return false;
    return true;
  }

 private:
  const Program& prog_;
  const CallInst& call_;
  ProgramState& state_;
  const std::vector<std::vector<int64_t>>& globalExt_;
  const std::vector<std::string>& iters_;
};

/// Evaluates `value` at every point of the box, row-major, storing into dst.
void sweep(const Box& box, int nd, const Node& value, const Addr& dst, HeldFn store) {
  int64_t pt[kMaxDims] = {};
  if (nd == 0) {
    dst.base[dst.at(pt)] = store(value.eval(pt));
    return;
  }
  for (int d = 0; d < nd; ++d) pt[d] = box.lo[d];
  const int last = nd - 1;
  const int64_t lo = box.lo[last], hi = box.hi[last];
  for (;;) {
    for (int64_t i = lo; i <= hi; ++i) {
      pt[last] = i;
      dst.base[dst.at(pt)] = store(value.eval(pt));
    }
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++pt[d] <= box.hi[d]) break;
      pt[d] = box.lo[d];
    }
    if (d < 0) return;
  }
}

class Interpreter {
 public:
  Interpreter(const Program& prog, ProgramState& state)
      : prog_(prog), state_(state), iters_(prog.iteratorNames()), regions_(prog.calls.size()) {
    if (prog.dims() > kMaxDims)
      throw RuntimeError(fmt::format("the interpreter supports at most {} iterators", kMaxDims));
    if (state.params.size() < prog.params.size())
      throw RuntimeError(fmt::format("{} parameter values given, the program has {}",
                                     state.params.size(), prog.params.size()));
    if (state.arrays.size() != prog.arrays.size() || state.scalars.size() != prog.scalars.size())
      throw RuntimeError("the program state does not match the program's declarations");
    for (size_t a = 0; a < prog.arrays.size(); ++a) {
      globalExt_.push_back(evalExtents(prog.arrays[a].extents, state.params));
      int64_t n = 1;
      for (int64_t e : globalExt_.back()) n *= e < 0 ? 0 : e;
      if (static_cast<int64_t>(state.arrays[a].values.size()) != n)
        throw RuntimeError(fmt::format("array '{}' holds {} values, its extents give {}",
                                       prog.arrays[a].name, state.arrays[a].values.size(), n));
    }
  }

  void run(const std::vector<ExecNode>& nodes) {
    for (const ExecNode& n : nodes) {
      if (n.kind == ExecNode::Kind::Call) {
        runCall(n.call);
        continue;
      }
      int64_t lo = evalInt(n.lo, state_.params), hi = evalInt(n.hi, state_.params);
      for (int64_t t = lo; t <= hi; ++t) run(n.body);
    }
  }

 private:
  void runCall(int index) {
    const CallInst& call = prog_.calls.at(index);
    auto& cached = regions_.at(index);
    if (!cached) {
      cached.emplace();
      CallRegions regions = analyzeRegions(prog_, call);
      for (auto& r : regions.stmts) cached->push_back(evalIter(r, state_.params));
    }
    CallEnv env(prog_, call, state_, globalExt_, iters_);
    for (size_t si = 0; si < call.stmts.size(); ++si) {
      const Stmt& st = call.stmts[si];
      const Box& box = cached->at(si);
      if (box.empty) continue;
      checkAccesses(call, st, box, env);
      ExprPtr valueExpr = st.rhs;
      if (st.op != AssignOp::Set) valueExpr = binary(compoundOp(st.op), st.lhs, st.rhs, st.loc);
      NodePtr value = compileExpr(valueExpr, env);
      Addr dst = st.lhsIsScalar() ? env.localScalarAddr(st.lhs->index) : env.arrayAddr(*st.lhs);
      HeldFn store = heldFn(valueExpr->type, st.lhs->type);
      sweep(box, prog_.dims(), *value, dst, store);
    }
  }

  // Memory safety: a statement's accesses must stay inside the arrays (checkBounds reports this
  // at compile time) and its points inside the call domain (where local scalars live).
  void checkAccesses(const CallInst& call, const Stmt& st, const Box& box, const CallEnv& env) {
    if (!env.insideDomain(box))
      throw std::logic_error(
          fmt::format("a statement of '{}' runs outside its call domain", call.name));
    auto check = [&](const Expr& e) {
      if (e.kind != ExprKind::ArrayRef) return;
      if (auto v = findViolation(e, box, env.extents(e.array)))
        throw RuntimeError(violationMessage(prog_, call, e, *v));
    };
    visitExpr(st.rhs, [&](const ExprPtr& e) { check(*e); });
    check(*st.lhs);
  }

  const Program& prog_;
  ProgramState& state_;
  std::vector<std::string> iters_;
  std::vector<std::vector<int64_t>> globalExt_;
  std::vector<std::optional<std::vector<Box>>> regions_;  // per call index
};

}  // namespace

void interpret(const Program& prog, ProgramState& state) {
  Interpreter interp(prog, state);
  interp.run(prog.body);
}

}  // namespace tessel
