// Which values of a kernel differ between the threads of a block (thread-varying), the analysis
// that both the kernel verifier and the barrier placement (transforms/insert_barriers) read.
//
// A variable is thread-varying when its declaration, an assignment to it or (a loop index) its
// bounds use the local or global thread index or another thread-varying variable; computed to a
// fixed point, since an assignment later in a loop reaches the uses before it. Everything else
// (block indices, parameters, constants) is uniform: the same for every thread of a block.
#pragma once

#include <set>
#include <string>

#include "ir/loop_ir.h"

namespace tessel::lir {

class VaryingValues {
 public:
  /// The analysis of kernel body `body` (a Function's body).
  explicit VaryingValues(const StmtPtr& body);
  /// True when `e` may differ between the threads of a block (false for null).
  bool varying(const ExprPtr& e) const;
  /// True when loop `s` (a For) runs a different trip for different threads.
  bool varyingLoop(const Stmt& s) const;

 private:
  std::set<std::string> names_;
};

}  // namespace tessel::lir
