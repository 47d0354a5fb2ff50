// CLikeEmitter: prints loop IR and expressions as C-like source through a Dialect.
//
// One printer for every C-like target: the dialect supplies the spellings. Expressions print with
// the language's exact semantics (language.md 9.9): explicit casts where C's conversions would
// differ, float literals with their suffix, doubles with full precision, `^` as an integer-power
// helper or pow, floating `%` as fmod, bool `&`/`|` as `&&`/`||`, int arithmetic in 64 bits.
// Helpers (integer power, non-trapping division) are emitted once, on demand, before the
// functions that use them, with the error status they record run-time errors in (lir::Status)
// where the module uses it.
#pragma once

#include <string>

#include "codegen/dialect.h"
#include "ir/expr.h"
#include "ir/loop_ir.h"

namespace tessel {

class CLikeEmitter {
 public:
  explicit CLikeEmitter(Dialect d) : d_(std::move(d)) {}

  const Dialect& dialect() const { return d_; }

  /// A whole translation unit: header comment, prelude, helpers, functions.
  std::string emitModule(const lir::Module& m) const;
  /// One function definition (helpers and the error status it needs are not included).
  std::string emitFunction(const lir::Function& f) const;
  /// One statement at the given indentation level (two spaces per level).
  std::string emitStmt(const lir::StmtPtr& s, int indent = 0) const;
  /// One expression (language semantics; language ints are 64-bit values, see loop_ir.h).
  std::string emitExpr(const ExprPtr& e) const;

 private:
  Dialect d_;
};

}  // namespace tessel
