// Tessel calls as MODESTO stencil programs (from_program.h).
#include "modesto/from_program.h"

#include <fmt/format.h>

#include <stdexcept>

#include "analysis/accesses.h"
#include "analysis/counts.h"
#include "analysis/regions.h"

namespace tessel::modesto {

StencilProgram fromCall(const Program& prog, const CallInst& call, const ParamValues& params) {
  const int dims = prog.dims();
  auto fail = [&](const Stmt& st, const std::string& why) {
    throw std::invalid_argument(fmt::format("{}:{}: call '{}': {}",
                                            prog.file ? prog.file->name() : "<input>",
                                            st.loc.line(), call.name, why));
  };
  StencilProgram p;
  p.dims = dims;
  if (dims > kMaxDims)
    throw std::invalid_argument(
        fmt::format("call '{}' has {} dimensions; the hierarchical model takes at most {}",
                    call.name, dims, kMaxDims));
  const CallRegions regions = analyzeRegions(prog, call);
  for (size_t si = 0; si < call.stmts.size(); ++si) {
    const Stmt& st = call.stmts[si];
    const StmtAccesses acc = stmtAccesses(st);
    if (acc.write.scalar) fail(st, "a statement writes a per-point scalar");
    Stencil s;
    s.name = prog.arrayName(call, acc.write.array);
    if (p.producer(s.name) >= 0)
      fail(st, fmt::format("'{}' is written by two statements; the hierarchical model computes "
                           "each field once",
                           s.name));
    s.ops = stmtFlops(st);
    for (const Reference& r : acc.reads) {
      if (r.scalar) continue;  // a per-point scalar is read at the thread's own point
      const std::string name = prog.arrayName(call, r.array);
      if (name == s.name) fail(st, fmt::format("the statement reads '{}', which it writes", name));
      if (r.fixedPlane() || static_cast<int>(r.subs.size()) != dims)
        fail(st, fmt::format("'{}' is read at a fixed plane or with fewer subscripts than the "
                             "call has iterators",
                             name));
      Access a{name, std::vector<int64_t>(static_cast<size_t>(dims), 0)};
      for (const Subscript& sub : r.subs) a.offset[static_cast<size_t>(sub.iter)] = sub.offset;
      s.in.push_back(std::move(a));
    }
    const Box box = evalIter(regions.stmts[si], params);
    s.domain = box.empty ? IndexBox{std::vector<int64_t>(static_cast<size_t>(dims), 0),
                                    std::vector<int64_t>(static_cast<size_t>(dims), -1)}
                         : IndexBox{box.lo, box.hi};
    if (!acc.write.array.local) p.outputs.push_back(s.name);
    p.stencils.push_back(std::move(s));
  }
  validate(p);
  return p;
}

}  // namespace tessel::modesto
