// The translation of a fused variant's expressions into loop IR (host code and kernel code),
// recording the parameters, scalars, initialised locals and arrays they use; and the small
// queries on a FusedContext the parts share.
#include "lower/lower_gpu_fused.h"

namespace tessel::gpu::fused {

const CallInst& callAt(const FusedContext& c, int step) {
  return c.prog.calls.at(static_cast<size_t>(c.v.seq.calls.at(static_cast<size_t>(step))));
}

std::vector<ExprPtr> iterVars(const FusedContext& c) {
  std::vector<ExprPtr> v;
  for (int d = 0; d < c.dims; ++d) v.push_back(ivar(c.g.iters[static_cast<size_t>(d)]));
  return v;
}

std::vector<int> inPlane(const FusedContext& c) {
  std::vector<int> d;
  for (int k = 0; k < c.dims; ++k)
    if (k != c.sd) d.push_back(k);
  return d;
}

ScalarType elementType(const FusedContext& c, const TileValue& v) {
  size_t i = static_cast<size_t>(v.index);
  switch (v.kind) {
    case TileValue::Kind::Global:
      return c.prog.arrays.at(i).type;
    case TileValue::Kind::LocalArray:
      return callAt(c, v.step).localArrays.at(i).type;
    case TileValue::Kind::LocalScalar:
      break;
  }
  return callAt(c, v.step).localScalars.at(i).type;
}

std::string valueStem(const FusedContext& c, const TileValue& v) {
  std::string base = valueName(c.prog, c.v.seq, v);
  return base.substr(0, base.find(' '));
}

std::vector<std::string> callNames(const FusedContext& c) {
  std::vector<std::string> names;
  for (int k : c.v.seq.calls) names.push_back(fmt::format("{} {}", k, c.prog.calls[k].name));
  return names;
}

ExprPtr FusedExprs::param(int p) {
  u_.host.params.insert(p);
  if (u_.inKernel) u_.kernel.params.insert(p);
  return ivar(c_.g.params.at(static_cast<size_t>(p)));
}

ExprPtr FusedExprs::host(const ExprPtr& e, int call) {
  switch (e->kind) {
    case ExprKind::ParamRef:
      return param(e->index);
    case ExprKind::ScalarRef:
      if (e->scalarKind == ScalarKind::Global) {
        u_.host.scalars.insert(e->index);
        return var(c_.g.scalars.at(static_cast<size_t>(e->index)), e->type);
      }
      if (e->scalarKind == ScalarKind::Init) return var(c_.inits.at({call, e->index}), e->type);
      internal("a local scalar in host code");
    case ExprKind::ArrayRef:
    case ExprKind::IterRef:
      internal("an array or iterator in host code");
    default:
      break;
  }
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  for (auto& a : e->args) args.push_back(host(a, call));
  return withArgs(e, std::move(args));
}

ExprPtr FusedExprs::globalIndex(const Expr& ref, const std::vector<ExprPtr>& at) {
  const auto& ext = c_.prog.extents(callAt(c_, step_ < 0 ? 0 : step_), ref.array);
  ExprPtr acc;
  for (size_t d = 0; d < ref.subs.size(); ++d) {
    const Subscript& s = ref.subs[d];
    ExprPtr scaled = d == 0 ? intLit(0) : indexMul(acc, kernel(ext[d]));
    if (!s.fixed()) scaled = indexAdd(scaled, at.at(static_cast<size_t>(s.iter)));
    acc = indexAddConst(scaled, s.offset);
  }
  return acc ? acc : intLit(0);
}

ExprPtr FusedExprs::rowMajor(int array, const std::vector<ExprPtr>& at) {
  ExprPtr gi;
  for (int d = 0; d < c_.dims; ++d)
    gi = d == 0 ? at[0] : indexAdd(indexMul(gi, extent(array, d)), at[static_cast<size_t>(d)]);
  return gi;
}

ExprPtr FusedExprs::element(int array, const ExprPtr& index) {
  u_.array(array);
  const ScalarType t = c_.prog.arrays.at(static_cast<size_t>(array)).type;
  ExprPtr v = load(c_.g.arrays.at(static_cast<size_t>(array)), index, t);
  const Fold* f = foldOf(c_, array);
  if (!f) return v;
  u_.array(f->partner.index);
  return binary(f->op, v, load(c_.g.arrays.at(static_cast<size_t>(f->partner.index)), index, t));
}

ExprPtr FusedExprs::kernel(const ExprPtr& e) {
  switch (e->kind) {
    case ExprKind::ParamRef:
      return param(e->index);
    case ExprKind::IterRef:
      return ivar(c_.g.iters.at(static_cast<size_t>(e->index)));
    case ExprKind::ScalarRef:
      switch (e->scalarKind) {
        case ScalarKind::Global:
          u_.host.scalars.insert(e->index);
          u_.kernel.scalars.insert(e->index);
          return var(c_.g.scalars.at(static_cast<size_t>(e->index)), e->type);
        case ScalarKind::Init: {
          int call = c_.v.seq.calls.at(static_cast<size_t>(step_));
          u_.kernel.inits.insert({call, e->index});
          return var(c_.inits.at({call, e->index}), e->type);
        }
        case ScalarKind::Local:
          return reads_->local({TileValue::Kind::LocalScalar, step_, e->index}, e->type);
      }
      break;
    case ExprKind::ArrayRef: {
      if (ExprPtr r = reads_->array(*e, valueOf(e->array, step_))) return r;
      if (e->array.local) internal("a local array that is not in shared memory");
      return element(e->array.index, globalIndex(*e, iterVars(c_)));
    }
    default:
      break;
  }
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  for (auto& a : e->args) args.push_back(kernel(a));
  ExprPtr r = withArgs(e, std::move(args));
  if (callsStatusHelper(*r)) u_.kernel.status = true;
  return r;
}

ExprPtr streamExtent(const FusedContext& c, FusedExprs& x) {
  ExprPtr ext;
  std::set<std::string> seen;  // arrays of the same extent count once
  auto iters = c.prog.iteratorNames();
  size_t sd = static_cast<size_t>(c.sd);
  for (int a : c.written)
    if (seen.insert(toString(c.prog.arrays.at(static_cast<size_t>(a)).extents.at(sd), iters))
            .second)
      ext = ext ? indexMax(ext, x.extent(a, c.sd)) : x.extent(a, c.sd);
  return ext;
}

}  // namespace tessel::gpu::fused
