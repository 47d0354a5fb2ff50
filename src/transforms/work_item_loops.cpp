// Pass `work-item-loops` (work_item_loops.h): a kernel's threads become loops, its barriers the
// ends of those loops, its blocks an OpenMP-parallel loop.
#include "transforms/work_item_loops.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <stdexcept>

#include "ir/loop_ir_varying.h"
#include "ir/loop_ir_walk.h"

namespace tessel::transforms {

using namespace lir;

namespace {

constexpr const char* kLocal[3] = {"tessel_local_x", "tessel_local_y", "tessel_local_z"};
constexpr const char* kGroup[3] = {"tessel_group_x", "tessel_group_y", "tessel_group_z"};
constexpr const char* kTid = "tessel_tid";
constexpr const char* kThreads = "tessel_threads";
constexpr const char* kBlockIndex = "tessel_group";

[[noreturn]] void internal(const std::string& kernel, const std::string& what) {
  throw std::logic_error("internal error: work-item loops of kernel '" + kernel + "': " + what);
}

ExprPtr ivar(const char* name) { return var(name, ScalarType::Int); }

bool hasBarrier(const StmtPtr& s) {
  if (s->kind == StmtKind::Barrier) return true;
  for (auto& b : s->body)
    if (hasBarrier(b)) return true;
  for (auto& b : s->orElse)
    if (hasBarrier(b)) return true;
  return false;
}

/// Thread and block indices become the thread loops' variables and the grid parameters (the
/// same arithmetic as the GPU's: group * block size + local index).
ExprPtr replaceIntrinsics(const ExprPtr& e) {
  return rewriteExpr(e, [](const ExprPtr& x) -> ExprPtr {
    if (x->kind != ExprKind::Intrinsic) return x;
    int d = x->index;
    switch (static_cast<Intrinsic>(x->ival)) {
      case Intrinsic::LocalId:
        return ivar(kLocal[d]);
      case Intrinsic::GroupId:
        return ivar(kGroup[d]);
      case Intrinsic::LocalSize:
        return ivar(kCpuBlockParam[d]);
      case Intrinsic::NumGroups:
        return ivar(kCpuGroupsParam[d]);
      case Intrinsic::GlobalId:
        return binary(Op::Add, binary(Op::Mul, ivar(kGroup[d]), ivar(kCpuBlockParam[d])),
                      ivar(kLocal[d]));
      case Intrinsic::GlobalSize:
        return binary(Op::Mul, ivar(kCpuGroupsParam[d]), ivar(kCpuBlockParam[d]));
    }
    return x;
  });
}

bool uses(const std::vector<StmtPtr>& body, const std::string& name) {
  return namesUsed(body).count(name) > 0;
}

/// Which variables live across a barrier: declared at the top level of one phase (a run of
/// statements without a barrier) and used in another phase or in the bounds or condition of a
/// loop or if that holds a barrier. Phases are numbered in the order list() meets them.
class PhaseScan {
 public:
  explicit PhaseScan(std::string kernel) : kernel_(std::move(kernel)) {}

  void scan(const std::vector<StmtPtr>& list) {
    int phase = -1;
    for (auto& s : list) {
      if (!hasBarrier(s)) {
        if (phase < 0) phase = next_++;
        if (s->kind == StmtKind::LocalDecl) {
          declaredIn_[s->name] = phase;
          types_[s->name] = s->type;
        }
        for (auto& n : namesUsed(s)) usedIn_[n].insert(phase);
        countDecls(s);
        continue;
      }
      phase = -1;
      std::set<std::string> header;
      for (auto* e : {&s->lo, &s->hi, &s->step, &s->value})
        if (*e)
          tessel::visitExpr(*e, [&](const ExprPtr& x) {
            if (x->kind == ExprKind::Var) header.insert(x->name);
          });
      for (auto& n : header) usedIn_[n].insert(-1);
      scan(s->body);
      scan(s->orElse);
    }
  }

  /// The variables that need one element per thread, with their types.
  std::map<std::string, CType> privatized() const {
    std::map<std::string, CType> out;
    for (auto& [name, phase] : declaredIn_) {
      auto it = usedIn_.find(name);
      if (it == usedIn_.end()) continue;
      bool crosses = false;
      for (int p : it->second) crosses = crosses || p != phase;
      if (!crosses) continue;
      if (decls_.at(name) > 1)
        internal(kernel_, "'" + name + "' lives across a barrier and is declared twice");
      out[name] = types_.at(name);
    }
    return out;
  }

 private:
  std::string kernel_;
  int next_ = 0;
  std::map<std::string, int> declaredIn_, decls_;
  std::map<std::string, CType> types_;
  std::map<std::string, std::set<int>> usedIn_;

  void countDecls(const StmtPtr& s) {
    if (s->kind == StmtKind::LocalDecl) ++decls_[s->name];
    for (auto& b : s->body) countDecls(b);
    for (auto& b : s->orElse) countDecls(b);
  }
};

/// Whether `s` opens a phase as a constant the same for every thread of the block (a const
/// declaration whose value and name are uniform: `const int64_t slot_in = (k - first) % 2 * 340`).
bool uniformConst(const StmtPtr& s, const VaryingValues& vary) {
  return s->kind == StmtKind::LocalDecl && s->isConst && s->value && !vary.varying(s->value) &&
         !vary.varying(var(s->name, ScalarType::Int));
}

/// The variables declared by the uniform constants that open a phase (uniformConst, comments
/// between them): each is computed once per block before the phase's thread loops, a scalar
/// instead of one element per thread.
void uniformOpeners(const std::vector<StmtPtr>& list, const VaryingValues& vary,
                    std::set<std::string>& out) {
  bool opening = true;  // at the start of a phase
  for (const StmtPtr& s : list) {
    if (hasBarrier(s)) {
      uniformOpeners(s->body, vary, out);
      uniformOpeners(s->orElse, vary, out);
      opening = true;
      continue;
    }
    if (!opening || s->kind == StmtKind::Comment) continue;
    if (uniformConst(s, vary))
      out.insert(s->name);
    else
      opening = false;
  }
}

/// The statements of one phase, as run by one thread: intrinsics replaced, the variables that
/// live across barriers read and written at the thread's element.
class PhaseRewriter : public StmtMutator {
 public:
  explicit PhaseRewriter(const std::map<std::string, CType>& priv) : priv_(priv) {}

 protected:
  ExprPtr mutateExpr(const ExprPtr& e) override {
    if (!e) return e;
    return rewriteExpr(replaceIntrinsics(e), [&](const ExprPtr& x) -> ExprPtr {
      if (x->kind == ExprKind::Var && priv_.count(x->name))
        return load(x->name, ivar(kTid), x->type);
      return x;
    });
  }
  StmtPtr mutateLeaf(const StmtPtr& s) override {
    bool decl = s->kind == StmtKind::LocalDecl, set = s->kind == StmtKind::Assign;
    if ((decl || set) && priv_.count(s->name)) {
      if (!s->value) return comment(fmt::format("'{}': one element per thread", s->name));
      return store(s->name, ivar(kTid), mutateExpr(s->value));
    }
    return StmtMutator::mutateLeaf(s);
  }

 private:
  const std::map<std::string, CType>& priv_;
};

class Translator {
 public:
  /// `hoisted`: the uniform constants that open a phase (uniformOpeners), computed once before
  /// its thread loops.
  Translator(std::string kernel, std::map<std::string, CType> priv, std::set<std::string> hoisted)
      : kernel_(std::move(kernel)),
        priv_(std::move(priv)),
        hoisted_(std::move(hoisted)),
        rewrite_(priv_) {}

  const std::map<std::string, CType>& privatized() const { return priv_; }

  /// A statement list: runs without a barrier become thread loops; a barrier ends one; a loop,
  /// if or block that holds a barrier runs once per block around its translated body.
  std::vector<StmtPtr> list(const std::vector<StmtPtr>& in) {
    std::vector<StmtPtr> out, run;
    auto flush = [&] {
      for (auto& s : threadLoops(run)) out.push_back(s);
      run.clear();
    };
    for (auto& s : in) {
      if (!hasBarrier(s)) {
        run.push_back(s);
        continue;
      }
      flush();
      switch (s->kind) {
        case StmtKind::Barrier:
          out.push_back(comment("(barrier: every thread has finished the loop above)"));
          break;
        case StmtKind::For:
          if (s->step)
            out.push_back(
                forStep(s->name, uniform(s->lo), uniform(s->hi), uniform(s->step), list(s->body)));
          else
            out.push_back(
                forLoop(s->name, uniform(s->lo), uniform(s->hi), LoopKind::Serial, list(s->body)));
          break;
        case StmtKind::If:
          out.push_back(ifThen(uniform(s->value), list(s->body), list(s->orElse)));
          break;
        case StmtKind::Block:
          out.push_back(block(list(s->body)));
          break;
        default:
          internal(kernel_, "a barrier inside an unexpected statement");
      }
    }
    flush();
    return out;
  }

 private:
  std::string kernel_;
  std::map<std::string, CType> priv_;
  std::set<std::string> hoisted_;
  PhaseRewriter rewrite_;

  /// The bounds or condition of a statement every thread runs alike: the same for every
  /// thread, so read from thread 0.
  ExprPtr uniform(const ExprPtr& e) {
    ExprPtr r = replaceIntrinsics(e);
    return rewriteExpr(r, [&](const ExprPtr& x) -> ExprPtr {
      if (x->kind != ExprKind::Var) return x;
      for (auto* l : kLocal)
        if (x->name == l) internal(kernel_, "a thread index in control flow around a barrier");
      if (priv_.count(x->name)) return load(x->name, intLit(0), x->type);
      return x;
    });
  }

  /// One phase: the uniform constants that open it, once, then the loops over the block's
  /// threads (z, y, x) around its other statements.
  std::vector<StmtPtr> threadLoops(const std::vector<StmtPtr>& phase) {
    std::vector<StmtPtr> once;
    size_t at = 0;
    for (; at < phase.size(); ++at) {
      const StmtPtr& s = phase[at];
      if (s->kind == StmtKind::LocalDecl && hoisted_.count(s->name))
        once.push_back(localDecl(s->type, s->name, uniform(s->value), true));
      else if (s->kind == StmtKind::Comment)
        once.push_back(s);
      else
        break;
    }
    if (once.empty()) return threadNest(phase);
    std::vector<StmtPtr> out = once;
    for (auto& x : threadNest({phase.begin() + static_cast<std::ptrdiff_t>(at), phase.end()}))
      out.push_back(x);
    return out;
  }

  /// The loops over the block's threads (z, y, x) around the statements of a phase.
  std::vector<StmtPtr> threadNest(const std::vector<StmtPtr>& run) {
    if (run.empty()) return {};
    bool code = false;
    for (auto& s : run) code = code || s->kind != StmtKind::Comment;
    if (!code) return run;
    std::vector<StmtPtr> body;
    bool changed = false;
    body = rewrite_.mutateAll(run, changed);
    if (uses(body, kTid)) {
      ExprPtr tid =
          binary(Op::Add,
                 binary(Op::Mul,
                        binary(Op::Add, binary(Op::Mul, ivar(kLocal[2]), ivar(kCpuBlockParam[1])),
                               ivar(kLocal[1])),
                        ivar(kCpuBlockParam[0])),
                 ivar(kLocal[0]));
      body.insert(body.begin(), localDecl(CType::Int64, kTid, tid));
    }
    // The x threads of a phase are independent (a kernel does not race between barriers), so
    // the innermost loop is vectorised: lanes in lockstep, one of the orders a GPU's warps use.
    StmtPtr nest = forLoop(kLocal[0], intLit(0), indexAddConst(ivar(kCpuBlockParam[0]), -1),
                           LoopKind::Simd, body);
    for (int d = 1; d < 3; ++d)
      nest = forLoop(kLocal[d], intLit(0), indexAddConst(ivar(kCpuBlockParam[d]), -1),
                     LoopKind::Serial, {nest});
    return {comment("Each thread of the block in turn, up to the next barrier."), nest};
  }
};

}  // namespace

Function workItemLoops(const Function& k) {
  if (k.linkage != Linkage::Kernel) return k;
  PhaseScan scan(k.name);
  scan.scan(k.body->body);
  // A uniform constant that opens a phase and lives across a barrier is computed once per block
  // (a scalar, not one element per thread): a retimed kernel's ring slot, a block's origin.
  const VaryingValues vary(k.body);
  std::set<std::string> openers, hoisted;
  uniformOpeners(k.body->body, vary, openers);
  std::map<std::string, CType> priv = scan.privatized();
  for (const std::string& name : openers)
    if (priv.erase(name)) hoisted.insert(name);
  Translator t(k.name, std::move(priv), std::move(hoisted));
  std::vector<StmtPtr> inner = t.list(k.body->body);

  std::vector<StmtPtr> blockBody;
  ExprPtr g = ivar(kBlockIndex), gx = ivar(kCpuGroupsParam[0]), gy = ivar(kCpuGroupsParam[1]);
  ExprPtr group[3] = {binary(Op::Mod, g, gx), binary(Op::Mod, binary(Op::Div, g, gx), gy),
                      binary(Op::Div, g, binary(Op::Mul, gx, gy))};
  for (int d = 0; d < 3; ++d)
    if (uses(inner, kGroup[d])) blockBody.push_back(localDecl(CType::Int64, kGroup[d], group[d]));
  if (!k.shared.empty())
    blockBody.push_back(comment("The block's shared memory (uninitialised, as on the GPU)."));
  for (auto& a : k.shared) blockBody.push_back(alloc(a.type, a.name, intLit(a.count)));
  if (!t.privatized().empty())
    blockBody.push_back(comment("Variables that live across a barrier: one element per thread."));
  for (auto& [name, type] : t.privatized()) blockBody.push_back(alloc(type, name, ivar(kThreads)));
  for (auto& s : inner) blockBody.push_back(s);

  Function f;
  f.name = k.name;
  f.comment = k.comment + (k.comment.empty() ? "" : "\n") +
              "On the CPU: each block is run by one OpenMP thread, its threads in loops that end "
              "at\neach barrier (pass work-item-loops).";
  f.linkage = Linkage::Internal;
  for (auto* n : kCpuGroupsParam) f.params.push_back({n, CType::Int64});
  for (auto* n : kCpuBlockParam) f.params.push_back({n, CType::Int64});
  for (auto& p : k.params) f.params.push_back(p);
  ExprPtr threads =
      binary(Op::Mul, binary(Op::Mul, ivar(kCpuBlockParam[0]), ivar(kCpuBlockParam[1])),
             ivar(kCpuBlockParam[2]));
  ExprPtr blocks = binary(Op::Mul, binary(Op::Mul, gx, gy), ivar(kCpuGroupsParam[2]));
  std::vector<StmtPtr> body;
  if (uses(blockBody, kThreads)) body.push_back(localDecl(CType::Int64, kThreads, threads));
  body.push_back(comment("Blocks are independent: the OpenMP threads share them out."));
  body.push_back(
      forLoop(kBlockIndex, intLit(0), indexAddConst(blocks, -1), LoopKind::Parallel, blockBody));
  f.body = block(std::move(body));
  return f;
}

Module workItemLoops(const Module& device) { return eachFunction(device, workItemLoops); }

}  // namespace tessel::transforms
