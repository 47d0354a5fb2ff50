// Internal declarations shared by the files that check a stencil body (sema_body*.cpp): what one
// check works on and what it has learned so far, the lookups and error reporting every part
// shares (BodyScope), the checker of expressions and array accesses (ExprChecker), and the
// builder that walks declarations and statements (BodyBuilder). Each layer derives from the one
// before, so the checking functions read the shared state unqualified.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "frontend/sema_internal.h"

namespace tessel::sema {

struct LocalSym {
  enum class Kind { Array, Scalar, Init } kind;
  int index;
  SourceLoc loc;
};

/// What one check of a body works on: the stencil, what its formals are bound to, and the
/// instance being built (a scratch one for the generic check of a definition).
struct BodyInput {
  Sema& S;
  const ast::StencilDef& def;
  int stencilIdx;
  const std::vector<Binding>& bind;
  CallInst& out;
  bool generic;
  SourceLoc callLoc;
};

/// What the check has learned so far.
struct BodyState {
  bool ok = true;
  std::map<std::string, LocalSym> locals;
  std::vector<std::pair<const ast::VarDecl*, LocalSym>> declared;  // in declaration order
  std::map<int, int> scratch;       // global array id -> local array index
  std::map<int, int> placeholders;  // formal index -> local array index (generic mode)
  std::set<int> assignedScalars, writtenLocals;
  std::map<int, std::vector<ExprPtr>> scalarReads;  // per local scalar: its array reads
};

/// Lookups and error reporting shared by every part of a body check (sema_body.cpp).
class BodyScope : protected BodyInput, protected BodyState {
 protected:
  BodyScope(Sema& s, int stencil, const std::vector<Binding>& bindings, CallInst& inst,
            bool isGeneric, SourceLoc call);

  Diagnostic& err(DiagId id, SourceLoc loc, std::string msg, std::string hint = {});
  int formalIndex(const std::string& n) const;
  FormalUse* use(int formal);
  std::vector<std::string> candidates(bool arrays) const;
  void undeclared(const ast::Name& n, const std::string& what);
  std::string iterList() const;
};

/// Expressions of a body: values and initialisers, names (sema_body_expr.cpp), and array
/// accesses with their subscripts (sema_body_arrays.cpp).
class ExprChecker : public BodyScope {
 protected:
  using BodyScope::BodyScope;

  ExprPtr initExpr(const ast::Expr& e);
  ExprPtr value(const ast::Expr& e);
  ExprPtr arrayAccess(const ast::Expr& e, bool isLhs);

 private:
  template <typename Rec>
  ExprPtr exprWith(const ast::Expr& e, Rec rec);
  template <typename Rec>
  ExprPtr callExpr(const ast::Expr& e, Rec rec);
  ExprPtr nameRef(const ast::Expr& e);
  bool resolveArray(const ast::Expr& e, ArrayId& id, ScalarType& type, int& rank, bool& isConstant,
                    bool isLhs);
  bool subscript(const ast::Expr& e, Subscript& out_);
};

/// One check of a body: its declarations in textual order (sema_body.cpp) and its statements
/// with their left-hand sides and the self-dependence rule (sema_body_stmt.cpp).
class BodyBuilder : public ExprChecker {
 public:
  BodyBuilder(Sema& s, int stencil, const std::vector<Binding>& bindings, CallInst& inst,
              bool isGeneric, SourceLoc call)
      : ExprChecker(s, stencil, bindings, inst, isGeneric, call) {}

  bool build();
  void reportUnusedLocals(std::set<const ast::VarDecl*>& unused);

 private:
  void setUpScratch();
  void localDecl(const ast::Decl& d);
  ExprPtr lhs(const ast::Expr& e, AssignOp op);
  void statement(const ast::Statement& st);
  void checkSelfDependence(const Expr& l, const std::vector<ExprPtr>& reads,
                           const std::set<const Expr*>& direct, const ast::Statement& st);
};

}  // namespace tessel::sema
