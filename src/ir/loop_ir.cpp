#include "ir/loop_ir.h"

#include <algorithm>
#include <stdexcept>

namespace tessel::lir {

std::string statusMessage(int status) {
  switch (static_cast<Status>(status)) {
    case Status::Ok:
      return {};
    case Status::IntDivisionByZero:
      return "integer division by zero";
    case Status::NegativeExponent:
      return "negative exponent in an integer power";
    case Status::IntRemainderByZero:
      return "integer remainder by zero";
  }
  return {};
}

CType ctypeOf(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return CType::Bool;
    case ScalarType::Int:
      return CType::Int32;
    case ScalarType::Float:
      return CType::Float;
    case ScalarType::Double:
      return CType::Double;
  }
  return CType::Double;
}

namespace {

std::shared_ptr<Stmt> node(StmtKind k) {
  auto s = std::make_shared<Stmt>();
  s->kind = k;
  return s;
}

void require(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("loop IR: ") + what);
}

void requireIndex(const ExprPtr& e, const char* what) {
  require(e != nullptr, what);
  require(e->type == ScalarType::Int || e->type == ScalarType::Bool, what);
}

void requireBody(const std::vector<StmtPtr>& body) {
  for (auto& s : body) require(s != nullptr, "null statement in a body");
}

}  // namespace

bool callsStatusHelper(const Expr& e) {
  if (e.kind != ExprKind::Binary || e.type != ScalarType::Int) return false;
  if (e.op == Op::Pow) return true;
  if (e.op != Op::Div && e.op != Op::Mod) return false;
  const Expr& y = *e.args[1];
  return y.kind != ExprKind::IntLit || y.ival == 0 || y.ival == -1;
}

bool usesStatusHelper(const ExprPtr& e) {
  bool found = false;
  visitExpr(e, [&](const ExprPtr& x) { found = found || callsStatusHelper(*x); });
  return found;
}

StmtPtr block(std::vector<StmtPtr> body) {
  requireBody(body);
  auto s = node(StmtKind::Block);
  s->body = std::move(body);
  return s;
}

namespace {

/// A block with one of Stmt's claims for pass insert-barriers set.
StmtPtr claimBlock(std::vector<StmtPtr> body, bool Stmt::*claim) {
  requireBody(body);
  auto s = node(StmtKind::Block);
  s->body = std::move(body);
  (*s).*claim = true;
  return s;
}

}  // namespace

StmtPtr phaseBlock(std::vector<StmtPtr> body) {
  return claimBlock(std::move(body), &Stmt::disjoint);
}

StmtPtr freshBlock(std::vector<StmtPtr> body) { return claimBlock(std::move(body), &Stmt::fresh); }

StmtPtr planeLoad(StmtPtr load, PlaneFetch f) {
  require(load && load->kind == StmtKind::Block, "planeLoad: not a block");
  require(!f.stem.empty() && !f.plane.empty() && f.hasNext, "planeLoad: incomplete");
  auto s = std::make_shared<Stmt>(*load);
  s->fetch = std::make_shared<const PlaneFetch>(std::move(f));
  return s;
}

StmtPtr planeStart(PlaneFetch f) {
  require(!f.stem.empty() && f.first, "planeStart: incomplete");
  auto s = node(StmtKind::Comment);
  s->name = "(Prefetch registers of " + f.input + " here, if pass prefetch-planes makes them.)";
  s->fetch = std::make_shared<const PlaneFetch>(std::move(f));
  return s;
}

StmtPtr forLoop(std::string var, ExprPtr lo, ExprPtr hi, LoopKind kind, std::vector<StmtPtr> body) {
  require(!var.empty(), "for: empty loop variable");
  requireIndex(lo, "for: lower bound must be an integer expression");
  requireIndex(hi, "for: upper bound must be an integer expression");
  requireBody(body);
  auto s = node(StmtKind::For);
  s->name = std::move(var);
  s->lo = std::move(lo);
  s->hi = std::move(hi);
  s->loop = kind;
  s->body = std::move(body);
  return s;
}

StmtPtr forStep(std::string var, ExprPtr lo, ExprPtr hi, ExprPtr step, std::vector<StmtPtr> body) {
  requireIndex(step, "for: step must be an integer expression");
  require(step->kind != ExprKind::IntLit || step->ival > 0, "for: a literal step must be positive");
  auto s = std::const_pointer_cast<Stmt>(
      forLoop(std::move(var), std::move(lo), std::move(hi), LoopKind::Serial, std::move(body)));
  if (step->kind != ExprKind::IntLit || step->ival != 1) s->step = std::move(step);
  return s;
}

SharedArray sharedArray(CType type, std::string name, int64_t count) {
  require(!name.empty(), "shared array: empty name");
  require(count >= 1, "shared array: the element count must be at least 1");
  return {type, std::move(name), count};
}

int byteSize(CType t) {
  switch (t) {
    case CType::Bool:
      return 1;
    case CType::Int32:
    case CType::Float:
      return 4;
    case CType::Int64:
    case CType::Double:
      return 8;
  }
  return 8;
}

StmtPtr cooperativeLoop(std::string var, ExprPtr lo, ExprPtr hi, ExprPtr step,
                        std::vector<StmtPtr> body) {
  auto s = std::make_shared<Stmt>(
      *forStep(std::move(var), std::move(lo), std::move(hi), std::move(step), std::move(body)));
  s->rolled = true;
  return s;
}

StmtPtr store(std::string buffer, ExprPtr index, ExprPtr value) {
  require(!buffer.empty(), "store: empty buffer name");
  requireIndex(index, "store: index must be an integer expression");
  require(value != nullptr, "store: null value");
  auto s = node(StmtKind::Store);
  s->name = std::move(buffer);
  s->index = std::move(index);
  s->value = std::move(value);
  return s;
}

StmtPtr localDecl(CType type, std::string name, ExprPtr init, bool isConst) {
  require(!name.empty(), "local: empty name");
  require(init != nullptr || !isConst, "local: a const local needs an initialiser");
  auto s = node(StmtKind::LocalDecl);
  s->type = type;
  s->name = std::move(name);
  s->value = std::move(init);
  s->isConst = isConst;
  return s;
}

StmtPtr pointerDecl(CType type, std::string name, ExprPtr slot) {
  require(!name.empty(), "pointer: empty name");
  require(slot != nullptr, "pointer: null slot");
  auto s = node(StmtKind::LocalDecl);
  s->type = type;
  s->name = std::move(name);
  s->value = std::move(slot);
  s->pointer = true;
  return s;
}

StmtPtr assign(std::string name, ExprPtr value) {
  require(!name.empty() && value != nullptr, "assign: empty name or null value");
  auto s = node(StmtKind::Assign);
  s->name = std::move(name);
  s->value = std::move(value);
  return s;
}

StmtPtr ifThen(ExprPtr cond, std::vector<StmtPtr> then, std::vector<StmtPtr> orElse) {
  require(cond != nullptr, "if: null condition");
  requireBody(then);
  requireBody(orElse);
  auto s = node(StmtKind::If);
  s->value = std::move(cond);
  s->body = std::move(then);
  s->orElse = std::move(orElse);
  return s;
}

StmtPtr comment(std::string text) {
  auto s = node(StmtKind::Comment);
  s->name = std::move(text);
  return s;
}

StmtPtr alloc(CType type, std::string buffer, ExprPtr count) {
  require(!buffer.empty(), "alloc: empty buffer name");
  requireIndex(count, "alloc: count must be an integer expression");
  auto s = node(StmtKind::Alloc);
  s->type = type;
  s->name = std::move(buffer);
  s->value = std::move(count);
  return s;
}

StmtPtr copy(CType type, std::string dst, std::string src, ExprPtr count) {
  require(!dst.empty() && !src.empty(), "copy: empty buffer name");
  requireIndex(count, "copy: count must be an integer expression");
  auto s = node(StmtKind::Copy);
  s->type = type;
  s->name = std::move(dst);
  s->source = std::move(src);
  s->value = std::move(count);
  return s;
}

StmtPtr callFn(std::string function, std::vector<ExprPtr> args) {
  require(!function.empty(), "call: empty function name");
  for (auto& a : args) require(a != nullptr, "call: null argument");
  auto s = node(StmtKind::Call);
  s->name = std::move(function);
  s->args = std::move(args);
  return s;
}

StmtPtr resetStatus() { return node(StmtKind::ResetStatus); }

StmtPtr returnValue(ExprPtr value) {
  auto s = node(StmtKind::Return);
  s->value = std::move(value);
  return s;
}

StmtPtr returnStatus() {
  auto s = node(StmtKind::Return);
  s->status = true;
  return s;
}

StmtPtr barrier() { return node(StmtKind::Barrier); }

StmtPtr launch(std::string kernel, int id, std::vector<ExprPtr> grid, std::vector<ExprPtr> block,
               std::vector<Param> params, std::vector<ExprPtr> args) {
  require(!kernel.empty(), "launch: empty kernel name");
  require(!grid.empty() && grid.size() <= 3 && grid.size() == block.size(),
          "launch: grid and block need the same number of dimensions, 1 to 3");
  for (auto& e : grid) requireIndex(e, "launch: grid extents must be integer expressions");
  for (auto& e : block) requireIndex(e, "launch: block extents must be integer expressions");
  require(params.size() == args.size(), "launch: one argument per kernel parameter");
  for (size_t k = 0; k < args.size(); ++k) {
    require(args[k] != nullptr, "launch: null argument");
    require(!params[k].pointer || args[k]->kind == ExprKind::Var,
            "launch: a buffer argument must name the device buffer");
  }
  auto s = node(StmtKind::Launch);
  s->name = std::move(kernel);
  s->value = intLit(id);
  s->grid = std::move(grid);
  s->blockShape = std::move(block);
  s->kernelParams = std::move(params);
  s->args = std::move(args);
  return s;
}

ExprPtr intrinsic(Intrinsic k, int dim) {
  require(dim >= 0 && dim < 3, "intrinsic: dimension must be 0, 1 or 2");
  static const char* const kNames[] = {"global_id",  "local_id",   "group_id",
                                       "local_size", "num_groups", "global_size"};
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Intrinsic;
  e->type = ScalarType::Int;
  e->ival = static_cast<int64_t>(k);
  e->index = dim;
  e->name = std::string(kNames[static_cast<int>(k)]) + "." + "xyz"[dim];
  return e;
}

// ---- index arithmetic ----------------------------------------------------------------------

static bool isLit(const ExprPtr& e) { return e->kind == ExprKind::IntLit; }

Module eachFunction(const Module& m, Function (*pass)(const Function&)) {
  Module out = m;
  for (Function& f : out.functions) f = pass(f);
  return out;
}

CType valueType(ScalarType t) { return t == ScalarType::Int ? CType::Int64 : ctypeOf(t); }

ExprPtr allOf(ExprPtr acc, ExprPtr x) { return acc && x ? binary(Op::And, acc, x) : acc ? acc : x; }

ExprPtr zeroOf(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return boolLit(false);
    case ScalarType::Int:
      return intLit(0);
    case ScalarType::Float:
    case ScalarType::Double:
      return floatLit(0.0, t);
  }
  return intLit(0);
}

ExprPtr indexAddConst(ExprPtr a, int64_t c) {
  if (c == 0) return a;
  if (isLit(a)) return intLit(a->ival + c);
  // (x + c1) + c2 -> x + (c1 + c2); (x - c1) + c2 likewise.
  if (a->kind == ExprKind::Binary && (a->op == Op::Add || a->op == Op::Sub) && isLit(a->args[1])) {
    int64_t c1 = a->op == Op::Add ? a->args[1]->ival : -a->args[1]->ival;
    return indexAddConst(a->args[0], c1 + c);
  }
  return c > 0 ? binary(Op::Add, std::move(a), intLit(c))
               : binary(Op::Sub, std::move(a), intLit(-c));
}

ExprPtr indexAdd(ExprPtr a, ExprPtr b) {
  if (isLit(b)) return indexAddConst(std::move(a), b->ival);
  if (isLit(a)) return indexAddConst(std::move(b), a->ival);
  return binary(Op::Add, std::move(a), std::move(b));
}

ExprPtr indexSub(ExprPtr a, ExprPtr b) {
  if (isLit(b)) return indexAddConst(std::move(a), -b->ival);
  return binary(Op::Sub, std::move(a), std::move(b));
}

ExprPtr indexMul(ExprPtr a, ExprPtr b) {
  if (isLit(a) && isLit(b)) return intLit(a->ival * b->ival);
  if (isLit(a) && a->ival == 1) return b;
  if (isLit(b) && b->ival == 1) return a;
  if ((isLit(a) && a->ival == 0) || (isLit(b) && b->ival == 0)) return intLit(0);
  return binary(Op::Mul, std::move(a), std::move(b));
}

ExprPtr indexMax(ExprPtr a, ExprPtr b) {
  if (isLit(a) && isLit(b)) return intLit(std::max(a->ival, b->ival));
  return call("max", {std::move(a), std::move(b)});
}

ExprPtr indexMin(ExprPtr a, ExprPtr b) {
  if (isLit(a) && isLit(b)) return intLit(std::min(a->ival, b->ival));
  return call("min", {std::move(a), std::move(b)});
}

ScalarType scalarTypeOf(CType t) {
  switch (t) {
    case CType::Bool:
      return ScalarType::Bool;
    case CType::Int32:
    case CType::Int64:
      return ScalarType::Int;
    case CType::Float:
      return ScalarType::Float;
    case CType::Double:
      return ScalarType::Double;
  }
  return ScalarType::Double;
}

std::vector<ExprPtr> argsNamingParams(const std::vector<Param>& params) {
  std::vector<ExprPtr> args;
  for (auto& p : params)
    args.push_back(var(p.name, p.pointer ? ScalarType::Int : scalarTypeOf(p.type)));
  return args;
}

}  // namespace tessel::lir
