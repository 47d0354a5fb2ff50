// One statement's kernel: its store, thread mapping and parameters (lower_gpu_stmt_kernel.h).
#include "lower/lower_gpu_stmt_kernel.h"

#include <optional>

#include "analysis/retiming.h"
#include "ir/loop_ir_walk.h"
#include "lower/lower_gpu_staged.h"

namespace tessel::gpu {

using namespace lir;

std::string StmtKernel::readBuffer(ArrayId a) {
  if (!a.local) c_.uses.arrays.insert(a.index);
  use_.arrays.emplace(a, false);
  return x_.bufferOf(a);
}

void StmtKernel::uses(const Expr& ref) {
  switch (ref.kind) {
    case ExprKind::ParamRef:
      c_.uses.params.insert(ref.index);
      use_.params.insert(ref.index);
      break;
    case ExprKind::ScalarRef:
      if (ref.scalarKind == ScalarKind::Global) {
        c_.uses.scalars.insert(ref.index);
        use_.scalars.insert(ref.index);
      } else if (ref.scalarKind == ScalarKind::Init) {
        use_.inits.insert(ref.index);
      } else if (!registers_ || registers_->at(static_cast<size_t>(ref.index)).empty()) {
        use_.localScalars.insert(ref.index);
        use_.box = true;
      }
      break;
    case ExprKind::ArrayRef:
      if (!ref.array.local) c_.uses.arrays.insert(ref.array.index);
      use_.arrays.emplace(ref.array, false);
      break;
    default:
      break;
  }
}

ExprPtr StmtKernel::replace(const Expr& ref) {
  if (ref.kind == ExprKind::ScalarRef) {
    if (!registers_) return nullptr;
    const std::string& r = registers_->at(static_cast<size_t>(ref.index));
    return r.empty() ? nullptr : var(r, ref.type);
  }
  return staged_ ? staged_->read(ref) : nullptr;
}

std::vector<StmtPtr> StmtKernel::retimedBody(const tessel::Stmt& st, StagedKernel* staged,
                                             Namer& scope, bool& status, int& accumulators) {
  const int sd = c_.grid.stream;
  Retiming rt = retime(c_.prog, c_.call, st, sd);
  if (!rt.ok) internal("a retimed schedule for a statement that cannot be retimed: " + rt.whyNot);
  // The parts' offsets are relative to the output's plane, which is the iterator's plus the
  // left-hand side's offset (`psi[j-1][i] = ...`: -1); lo and hi: relative to the iterator, the
  // planes the sweep reads around the block's outputs' iterator values.
  const int64_t lhsPlane = rt.lhsPlane;
  const int64_t lo = rt.parts.front().offset + lhsPlane, hi = rt.parts.back().offset + lhsPlane;
  const int copies = c_.grid.copies();
  accumulators = static_cast<int>(rt.accumulators) * copies;
  const std::string& k = c_.g.iters.at(static_cast<size_t>(sd));
  // accs[u][m]: the output of the iterator's plane k - hi + m (k: the plane streamed in) of the
  // thread's point u.
  std::vector<std::vector<std::string>> accs(static_cast<size_t>(copies));
  for (int u = 0; u < copies; ++u)
    for (int64_t m = 0; m < rt.accumulators; ++m)
      accs[static_cast<size_t>(u)].push_back(
          scope.take(copies == 1 ? fmt::format("acc_{}", m) : fmt::format("acc_{}_u{}", m, u)));
  const ScalarType at = planeReads(rt)->type;
  // `e`, lowered at the plane streamed in, moved to the iterator's plane k + `shift` (the
  // constants of the index sums it changes folded: `(k - 1) * M`, not `(k - 1 + 1) * M`).
  auto movedTo = [&](const ExprPtr& e, int64_t shift) {
    return lir::rewriteExpr(e, [&](const ExprPtr& x) -> ExprPtr {
      if (x->kind == ExprKind::Var && x->name == k) return indexAddConst(x, shift);
      if (x->kind == ExprKind::Binary && (x->op == Op::Add || x->op == Op::Sub) &&
          !isFloating(x->type) && x->args[1]->kind == ExprKind::IntLit)
        return indexAddConst(x->args[0], x->op == Op::Add ? x->args[1]->ival : -x->args[1]->ival);
      return x;
    });
  };
  // The outputs a block (stream) or a thread (global-stream) computes: first..last.
  const ExprPtr first = var(staged ? staged->firstPlane() : lo_.at(static_cast<size_t>(sd)),
                            ScalarType::Int),
                last = var(staged ? staged->lastPlane() : hi_.at(static_cast<size_t>(sd)),
                           ScalarType::Int);
  auto within = [&](int64_t shift) {  // plane k + shift is one of them
    ExprPtr plane = indexAddConst(var(k, ScalarType::Int), shift);
    return binary(Op::And, binary(Op::Ge, plane, first), binary(Op::Le, plane, last));
  };
  auto compute = [&](int copy) {
    const std::vector<std::string>& acc_ = accs.at(static_cast<size_t>(copy));
    staged_ = staged;
    std::vector<StmtPtr> c = {comment(fmt::format(
        "Plane {} adds its parts to the outputs on planes {}..{}; the one on {} is complete.", k,
        planeText(k, lhsPlane - hi), planeText(k, lhsPlane - lo), planeText(k, lhsPlane - hi)))};
    for (const RetimedPart& p : rt.parts) {
      const int64_t plane = p.offset + lhsPlane;  // relative to the iterator
      const std::string& acc = acc_.at(static_cast<size_t>(hi - plane));
      ExprPtr v = x_.lower(p.sum);
      status = status || usesStatusHelper(v);
      StmtPtr add = assign(acc, binary(Op::Add, var(acc, at), v));
      // From global memory, a part reads the plane only for outputs of the region (whose reads
      // are in bounds); a staged plane is in shared memory either way, but a local scalar's
      // per-point buffer is read in place (it spans the call's box, not the planes around it).
      bool local = false;
      visitExpr(p.sum, [&](const ExprPtr& x) { local = local || isLocalScalarRef(*x); });
      c.push_back(staged && !local ? add : ifThen(within(-plane), {add}));
    }
    // The output of the iterator's plane k - hi is complete: the store, with the terms that
    // read the array or local scalar the statement writes (from memory, never staged: the
    // neighbouring chunks write the planes around a chunk), lowered at the iterator's plane and
    // moved to k - hi. Stored where it belongs to the block's planes.
    tessel::Stmt done = st;
    done.rhs = var(acc_.front(), at);
    staged_ = nullptr;
    if (rt.atOutput) {
      ExprPtr own = atOutputAt(rt, lhsPlane);  // the statement's own subscripts
      done.rhs = binary(Op::Add, done.rhs, own, own->loc);
    }
    Assignment a = x_.assignment(done);
    a.index = movedTo(a.index, -hi);
    a.value = movedTo(a.value, -hi);
    status = status || usesStatusHelper(a.value) || usesStatusHelper(a.index);
    if (!st.lhsIsScalar()) use_.arrays[st.lhs->array] = true;
    c.push_back(ifThen(within(-hi), {store(a.buffer, a.index, a.value)}));
    c.push_back(comment("Rotate the accumulators: the next output starts from zero."));
    for (size_t m = 0; m + 1 < acc_.size(); ++m) c.push_back(assign(acc_[m], var(acc_[m + 1], at)));
    c.push_back(assign(acc_.back(), zeroOf(at)));
    staged_ = nullptr;
    return c;
  };
  std::vector<StmtPtr> kb = {comment(fmt::format(
      "Retimed (paper 000 III-B2, paper 004 Algorithm 2): {} accumulators per {}, the outputs "
      "on planes {}..{} of the plane streamed in.",
      rt.accumulators, copies == 1 ? "thread" : "point of a thread", planeText(k, lhsPlane - hi),
      planeText(k, lhsPlane - lo)))};
  for (const std::vector<std::string>& point : accs)
    for (const std::string& acc : point)
      kb.push_back(localDecl(valueType(at), acc, zeroOf(at), false));
  if (staged) {
    staged->setSweep(lo, hi);
    for (auto& s : staged->body([&](int, int copy) { return compute(copy); })) kb.push_back(s);
    return kb;
  }
  // global-stream: each thread sweeps the planes of its outputs and the parts' planes around.
  return pointPerThread(compute, std::move(kb), indexAddConst(first, lo), indexAddConst(last, hi));
}

std::vector<lir::Param> StmtKernel::params() const {
  const Program& prog = c_.prog;
  const CallInst& call = c_.call;
  const GlobalNames& g = c_.g;
  const CallNames& n = c_.locals;
  std::vector<lir::Param> ps;
  for (auto& [id, written] : use_.arrays)
    ps.push_back({x_.bufferOf(id), ctypeOf(prog.elementType(call, id)), true, !written});
  for (int s : use_.localScalars)
    ps.push_back({n.localScalars[s], ctypeOf(call.localScalars[s].type), true});
  for (int s : use_.scalars) ps.push_back({g.scalars[s], valueType(prog.scalars[s].type), false});
  for (int i : use_.inits) ps.push_back({n.inits[i], valueType(call.inits[i].type), false});
  for (int p : use_.params) ps.push_back({g.params[p], CType::Int64, false});
  for (size_t d = 0; d < lo_.size(); ++d) {
    ps.push_back({lo_[d], CType::Int64, false});
    ps.push_back({hi_[d], CType::Int64, false});
  }
  for (const lir::Param& p : extraParams_) ps.push_back(p);
  if (use_.box)
    for (size_t d = 0; d < n.boxLo.size(); ++d) {
      ps.push_back({n.boxLo[d], CType::Int64, false});
      if (d > 0) ps.push_back({n.boxN[d], CType::Int64, false});
    }
  return ps;
}

std::vector<StmtPtr> StmtKernel::pointPerThread(
    const std::function<std::vector<StmtPtr>(int copy)>& bodyAt, std::vector<StmtPtr> before,
    const ExprPtr& from, const ExprPtr& to) const {
  const GridShape& grid = c_.grid;
  const std::vector<std::string>& iters = c_.g.iters;
  const int copies = grid.copies();
  auto sweep = [&](std::vector<StmtPtr> b) {
    if (!from) return b;
    return std::vector<StmtPtr>{
        forLoop(iters[static_cast<size_t>(grid.stream)], from, to, LoopKind::Serial, b)};
  };
  // The point of copy u: its iterator variables and its guard.
  auto point = [&](int u, std::vector<StmtPtr>& decls) {
    ExprPtr guard;
    for (size_t gd = 0; gd < grid.iters.size(); ++gd) {
      int it = grid.iters[gd];
      ExprPtr x = copies == 1
                      ? intrinsic(Intrinsic::GlobalId, static_cast<int>(gd))
                      : indexAdd(indexMul(intrinsic(Intrinsic::GroupId, static_cast<int>(gd)),
                                          intLit(grid.tile(gd))),
                                 pointInBlock(grid, gd, u));
      decls.push_back(
          localDecl(CType::Int64, iters[it], indexAdd(var(lo_[it], ScalarType::Int), x)));
      guard = allOf(guard,
                    binary(Op::Le, var(iters[it], ScalarType::Int), var(hi_[it], ScalarType::Int)));
    }
    return guard;
  };
  std::vector<StmtPtr> kb;
  if (copies == 1) {
    ExprPtr guard = point(0, kb);
    kb.push_back(comment("Guard: the grid is rounded up to whole blocks."));
    for (auto& x : sweep(bodyAt(0))) before.push_back(x);
    kb.push_back(ifThen(guard, before));
    return kb;
  }
  kb = std::move(before);
  kb.push_back(comment(fmt::format(
      "Each thread computes {} points ({}), each guarded: the grid is rounded up to whole "
      "blocks.",
      copies, grid.cyclic ? "cyclic: a block apart" : "blocked: consecutive")));
  std::vector<StmtPtr> points;
  for (int u = 0; u < copies; ++u) {
    std::vector<StmtPtr> b;
    ExprPtr guard = point(u, b);
    b.push_back(ifThen(guard, bodyAt(u)));
    points.push_back(block(std::move(b)));
  }
  for (auto& x : sweep(std::move(points))) kb.push_back(x);
  return kb;
}

Function StmtKernel::build(size_t k, const std::string& name, std::string text, Namer& scope,
                           GpuKernelInfo& info) {
  // Folded (analysis/folding.h): the statement with each folded combination one reference.
  const bool folded = c_.grid.staged() && c_.staging.at(k).computes.has_value();
  const tessel::Stmt& st = folded ? *c_.staging.at(k).computes : c_.call.stmts[k];
  std::optional<StagedKernel> staged;
  if (c_.grid.staged())
    staged.emplace(c_.prog, c_.call, c_.staging.at(k), c_.g, c_.grid, lo_, hi_, scope, *this);
  staged_ = staged ? &*staged : nullptr;
  // The store: converted to the left-hand side's type; compound forms read the left side.
  if (st.lhsIsScalar()) {
    use_.localScalars.insert(st.lhs->index);
    use_.box = true;
  } else if (!st.lhs->array.local) {
    c_.uses.arrays.insert(st.lhs->array.index);
  }
  const bool retimed = c_.grid.retime && c_.grid.stream >= 0;
  Assignment a;
  std::vector<StmtPtr> body;
  if (!retimed) {
    a = x_.assignment(st);
    if (!st.lhsIsScalar()) use_.arrays[st.lhs->array] = true;  // after the reads: written wins
    body = {store(a.buffer, a.index, a.value)};
  }
  staged_ = nullptr;

  Function f;
  std::vector<StmtPtr> kb;
  bool status = false;  // the body calls a helper that sets the error status
  if (retimed) {
    kb = retimedBody(st, staged ? &*staged : nullptr, scope, status, info.retimed);
  } else if (staged) {
    // Staged families: the builder maps threads, stages, synchronises and guards; a streamed
    // sweep asks for one copy of the store per phase of its rings (their slots differ).
    kb = staged->body([&](int phase, int copy) {
      if (phase == 0 && copy == 0) return body;
      staged_ = &*staged;
      Assignment again = x_.assignment(st);
      staged_ = nullptr;
      return std::vector<StmtPtr>{store(again.buffer, again.index, again.value)};
    });
  } else {
    const int s = c_.grid.stream;
    kb = pointPerThread(
        [&](int copy) {
          if (copy == 0) return body;
          Assignment again = x_.assignment(st);
          return std::vector<StmtPtr>{store(again.buffer, again.index, again.value)};
        },
        {}, s >= 0 ? var(lo_[static_cast<size_t>(s)], ScalarType::Int) : nullptr,
        s >= 0 ? var(hi_[static_cast<size_t>(s)], ScalarType::Int) : nullptr);
  }
  if (staged) {
    std::string how = staged->describe();
    if (!how.empty()) text += "\n" + how;
    staged->declare(f);
    info.sharedBytes = staged->staging().sharedBytes;
    info.sweepCopies = staged->sweepCopies();
    for (const StagePlan& p : staged->staging().groups)
      info.sparePlane = info.sparePlane || (p.rolledRing && p.spareSlots > 0);
    std::vector<std::string> folds;
    for (const StagePlan& p : staged->staging().groups)
      if (p.foldPartner) folds.push_back(p.foldText);
    info.folded = fmt::format("{}", fmt::join(folds, ", "));
    info.staging = how;
  }

  f.name = name;
  f.linkage = Linkage::Kernel;
  f.comment = std::move(text);
  f.params = params();
  f.params.push_back({kDeviceStatusParam, CType::Int32, true});
  f.params.back().maybeUnused =
      retimed ? !status : !usesStatusHelper(a.value) && !usesStatusHelper(a.index);
  f.body = block(std::move(kb));
  return f;
}

Function StmtKernel::buildFused(const std::vector<size_t>& ks,
                                const std::vector<std::vector<std::string>>& stmtLo,
                                const std::vector<std::vector<std::string>>& stmtHi,
                                const std::vector<std::string>& registers, const std::string& name,
                                std::string text, GpuKernelInfo& info) {
  if (c_.grid.staged() || c_.grid.stream >= 0 || c_.grid.retime)
    internal("statement fusion outside the global family");
  registers_ = &registers;
  const Program& prog = c_.prog;
  const CallInst& call = c_.call;
  for (size_t n = 0; n < ks.size(); ++n)
    for (size_t d = 0; d < stmtLo[n].size(); ++d) {
      extraParams_.push_back({stmtLo[n][d], CType::Int64, false});
      extraParams_.push_back({stmtHi[n][d], CType::Int64, false});
    }
  // The local scalars this kernel keeps in registers, in declaration order.
  std::vector<size_t> held;
  std::set<int> usedScalars;
  for (size_t k : ks) {
    const tessel::Stmt& st = call.stmts[k];
    if (st.lhsIsScalar()) usedScalars.insert(st.lhs->index);
  }
  // A register nothing reads (a local scalar only assigned: sema warns) is not kept, nor are
  // its statements computed, unless they can fail at run time (an integer division).
  std::set<int> readScalars;
  for (size_t k : ks)
    visitExpr(call.stmts[k].rhs, [&](const ExprPtr& x) {
      if (isLocalScalarRef(*x)) readScalars.insert(x->index);
    });
  auto unread = [&](const tessel::Stmt& st) {
    return st.lhsIsScalar() && !registers.at(static_cast<size_t>(st.lhs->index)).empty() &&
           !readScalars.count(st.lhs->index) && !usesStatusHelper(st.rhs);
  };
  for (size_t k : ks)
    if (unread(call.stmts[k])) usedScalars.erase(call.stmts[k].lhs->index);
  for (size_t k : ks)  // a statement of it that can fail keeps the register
    if (call.stmts[k].lhsIsScalar() && !unread(call.stmts[k]) &&
        !registers.at(static_cast<size_t>(call.stmts[k].lhs->index)).empty())
      usedScalars.insert(call.stmts[k].lhs->index);
  for (int s : usedScalars)
    if (!registers.at(static_cast<size_t>(s)).empty()) held.push_back(static_cast<size_t>(s));
  bool status = false;
  auto bodyAt = [&](int) {
    std::vector<StmtPtr> b;
    for (size_t s : held)
      b.push_back(localDecl(valueType(call.localScalars[s].type), registers[s],
                            zeroOf(call.localScalars[s].type), false));
    for (size_t n = 0; n < ks.size(); ++n) {
      const tessel::Stmt& st = call.stmts[ks[n]];
      ExprPtr guard;
      for (size_t d = 0; d < stmtLo[n].size(); ++d) {
        ExprPtr it = var(c_.g.iters[d], ScalarType::Int);
        guard = allOf(guard, binary(Op::Ge, it, var(stmtLo[n][d], ScalarType::Int)));
        guard = allOf(guard, binary(Op::Le, it, var(stmtHi[n][d], ScalarType::Int)));
      }
      if (unread(st) && !usedScalars.count(st.lhs->index)) {
        b.push_back(comment(fmt::format("Statement {}: {}: left out (nothing reads '{}')",
                                        ks[n] + 1, statementText(prog, call, st),
                                        call.localScalars.at(st.lhs->index).name)));
        continue;
      }
      if (st.lhsIsScalar() && registers.at(static_cast<size_t>(st.lhs->index)).empty()) {
        use_.localScalars.insert(st.lhs->index);
        use_.box = true;
      } else if (!st.lhsIsScalar() && !st.lhs->array.local) {
        c_.uses.arrays.insert(st.lhs->array.index);
      }
      Assignment a = x_.assignment(st);
      if (!st.lhsIsScalar()) use_.arrays[st.lhs->array] = true;  // after the reads: written wins
      status = status || usesStatusHelper(a.value) || (!a.registerVar && usesStatusHelper(a.index));
      StmtPtr set =
          a.registerVar ? assign(a.registerVar->name, a.value) : store(a.buffer, a.index, a.value);
      b.push_back(
          comment(fmt::format("Statement {}: {}", ks[n] + 1, statementText(prog, call, st))));
      b.push_back(guard ? ifThen(guard, {set}) : set);
    }
    return b;
  };
  std::vector<StmtPtr> kb = pointPerThread(bodyAt);
  registers_ = nullptr;
  info.fusedStmts.assign(ks.begin(), ks.end());
  Function f;
  f.name = name;
  f.linkage = Linkage::Kernel;
  f.comment = std::move(text);
  f.params = params();
  f.params.push_back({kDeviceStatusParam, CType::Int32, true});
  f.params.back().maybeUnused = !status;
  f.body = block(std::move(kb));
  return f;
}

}  // namespace tessel::gpu
