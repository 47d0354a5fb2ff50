// Internal state shared by the sema files (declarations, bodies, directives).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel::sema {

struct Symbol {
  enum class Kind { Param, Iterator, Array, Scalar, Stencil } kind;
  int index = -1;
  SourceLoc loc;
};
const char* symbolKindName(Symbol::Kind k);

/// The number of elements of a declared dimension `lo:hi` (hi - lo), with literals folded.
ExprPtr extentOf(const ExprPtr& lo, const ExprPtr& hi);

/// How a formal argument is used in its body: subscripted (an array of some rank) or not.
struct FormalUse {
  enum class Kind { Unused, Array, Scalar } kind = Kind::Unused;
  int rank = 0;
  bool written = false;
  SourceLoc loc;
};

/// What a formal is bound to in one instantiation.
struct Binding {
  enum class Kind { GlobalArray, GlobalScalar, Placeholder } kind = Kind::Placeholder;
  int index = -1;      // global array / scalar id
  std::string actual;  // the actual argument's name
};

/// Context for integer expressions over parameters (extents, domains, defaults, iterate bounds).
enum class IntContext { Extent, Domain, ParamDefault, IterateBound };

/// The core every part of sema works through: the program being built, the table of global
/// names, diagnostics, and integer expressions over parameters (sema.cpp).
class SemaCore {
 public:
  SemaCore(const SourceFile& file, DiagnosticEngine& diags) : file_(file), diags_(diags) {
    prog_.file = &file;
  }

  DiagnosticEngine& diags() { return diags_; }
  Program& prog() { return prog_; }
  const Symbol* lookup(const std::string& name) const;
  std::vector<std::string> visibleNames() const;
  Diagnostic& error(DiagId id, SourceLoc loc, std::string msg, std::string hint = {}) {
    return diags_.report(id, loc, std::move(msg), std::move(hint));
  }
  /// An undeclared-name error with a did-you-mean hint drawn from `candidates`.
  void undeclared(const ast::Name& n, const std::string& what,
                  const std::vector<std::string>& candidates);
  /// Integer expression over parameters; nullptr after reporting an error.
  ExprPtr intExpr(const ast::Expr& e, IntContext ctx);
  int extentParamCount() const;

 protected:
  const SourceFile& file_;
  DiagnosticEngine& diags_;
  Program prog_;
  std::map<std::string, Symbol> globals_;

  bool declare(const std::string& name, Symbol sym);
};

/// What sema records about the stencil definitions, per stencil index, for the body checks.
struct StencilTables {
  std::vector<const ast::StencilDef*> stencilAsts;
  std::vector<std::vector<FormalUse>> formalUses;
  /// Per stencil: the locals its body never uses (warned once, left out of every instance).
  std::vector<std::set<const ast::VarDecl*>> unusedLocals;
  std::vector<bool> stencilOk;
  std::set<std::string> constantNames;  // names in `constant` lists (cannot be written)
};

/// The analysis of a whole file: the top level (sema.cpp), stencil bodies (sema_body*.cpp) and
/// directives (sema_hints.cpp).
class Sema : public SemaCore, public StencilTables {
 public:
  using SemaCore::SemaCore;
  std::optional<Program> run(const ast::File& tree);

  // ---- stencil bodies (sema_body*.cpp) ----
  /// Checks a definition once with placeholder arguments; records how formals are used.
  void checkDefinition(int stencil);
  /// Instantiates a call; returns false if an error was reported.
  bool instantiate(int stencil, const ast::Call& call, const std::vector<Binding>& bindings,
                   CallInst& out);

  // ---- directives (sema_hints.cpp) ----
  Hints checkHints(const ast::StencilDef& def);

 private:
  void params(const ast::Item& it);
  void iterators(const ast::Item& it);
  void declaration(const ast::Decl& d);
  void stencil(const ast::StencilDef& def);
  bool callNode(const ast::Call& c, ExecNode& node);
  bool iterateNode(const ast::Iterate& it, ExecNode& node);
  bool domain(const std::vector<ast::RangeAst>& ranges, SourceLoc loc, Domain& out);
  void dataLists(const ast::File& tree);
  void finalChecks(const ast::File& tree);
};

}  // namespace tessel::sema
