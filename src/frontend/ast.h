// The syntax tree produced by the parser: names are unresolved; sema turns it into the
// Algorithm IR (ir/program.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/program.h"
#include "support/source.h"

namespace tessel::ast {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind { Int, Float, Bool, Name, Index, Unary, Binary, Call } kind;
  SourceLoc loc;
  std::string text;  // Name/Index/Call: the identifier; Int/Float: the literal's spelling
  int64_t ival = 0;
  double fval = 0;
  bool floatSuffix = false;  // 1.0f
  int depth = 1;             // height of the tree below (bounded by the parser)
  Op op = Op::Add;
  std::vector<ExprPtr> args;  // Index: subscripts; Call: arguments; Unary/Binary: operands
};

struct Name {
  std::string text;
  SourceLoc loc;
};

/// One dimension of an array declaration: `E` (lo absent) or `lo:hi` / `lo..hi`.
struct DimDecl {
  ExprPtr lo, hi;
};

/// An inclusive range of a call or statement domain.
struct RangeAst {
  ExprPtr lo, hi;
  SourceLoc loc;
};

struct VarDecl {
  Name name;
  std::vector<DimDecl> dims;  // empty: a scalar
  ExprPtr init;               // initialised local (stencil bodies only)
};

struct Decl {
  ScalarType type;
  SourceLoc loc;
  size_t beforeStmt = 0;  // in a stencil body: how many statements precede it
  std::vector<VarDecl> vars;
};

struct DirectiveClause {
  Name name;
  std::vector<Name> words;
  std::vector<std::pair<double, SourceLoc>> numbers;
  std::vector<std::pair<Name, int64_t>> assignments;  // unroll j=2
  std::vector<Name> list;                             // #assign shmem (a, b)
};

struct Directive {
  std::string kind;  // "pragma" or "assign"
  SourceLoc loc;
  std::vector<DirectiveClause> clauses;
};

struct Placement {
  std::string kind;  // "shmem", "no-shmem", "gmem"
  SourceLoc loc;
  std::vector<Name> names;
};

struct Statement {
  SourceLoc loc;
  std::optional<std::vector<RangeAst>> domain;
  ExprPtr lhs;  // Name or Index
  AssignOp op = AssignOp::Set;
  ExprPtr rhs;
};

struct Formal {
  Name name;
  bool inout = false;
};

struct StencilDef {
  Name name;
  SourceLoc loc;
  std::vector<Formal> formals;
  std::vector<Directive> pragmas;  // preceding #pragma lines
  std::vector<Decl> decls;
  std::vector<Placement> placements;
  std::vector<Directive> assigns;  // #assign lines in the body
  std::vector<Statement> stmts;
};

struct Call {
  Name name;
  SourceLoc loc;
  std::optional<std::vector<RangeAst>> domain;
  std::vector<Name> args;
};

struct Iterate;

/// A top-level item, in textual order.
struct Item {
  enum class Kind { Params, Iterators, Decl, DataList, Stencil, Call, Iterate } kind;
  SourceLoc loc;
  std::string listKind;  // DataList: copyin/copyout/allocin/constant/coefficient
  std::vector<std::pair<Name, ExprPtr>> params;  // Params: name and optional default
  std::vector<Name> names;                       // Iterators, DataList
  std::unique_ptr<Decl> decl;
  std::unique_ptr<StencilDef> stencil;
  std::unique_ptr<Call> call;
  std::unique_ptr<Iterate> iterate;
};

struct Iterate {
  SourceLoc loc;
  ExprPtr lo, hi;          // bare form `iterate 10`: lo is null
  std::vector<Item> body;  // Call or Iterate items
};

struct File {
  std::vector<Item> items;
};

}  // namespace tessel::ast
