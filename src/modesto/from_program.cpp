// Tessel calls as MODESTO stencil programs (from_program.h).
#include "modesto/from_program.h"

#include <fmt/format.h>

#include <map>
#include <set>
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
  // Each write makes a new version of its field (static single assignment): a per-point scalar
  // or an array written by several statements is a field per write, `name` for the first and
  // `name#2`, `name#3`, ... after it, and a read takes the version written last before it (the
  // statements of a call run one after the other over their regions, language.md 9.1). An array
  // read before its first write is an input under its own name, and its writes are `name#1`, ...
  auto fieldOf = [&](const Reference& r) {
    return r.scalar ? call.localScalars.at(static_cast<size_t>(r.index)).name
                    : prog.arrayName(call, r.array);
  };
  std::set<std::string> readFirst, written;
  for (const Stmt& st : call.stmts) {
    const StmtAccesses acc = stmtAccesses(st);
    for (const Reference& r : acc.reads)
      if (!written.count(fieldOf(r))) readFirst.insert(fieldOf(r));
    written.insert(fieldOf(acc.write));
  }
  // Where each subscript of an input array lies among the key's coordinates (Access::absolute):
  // along its iterator, a full-rank array's fixed plane along the iterator of its place, and a
  // lower-rank array's along the iterator the array's reads name at that place (the first
  // that does; right-aligned, as `strx[i]` follows the innermost iterator, where none does).
  // An array read along different iterators at one place (`c[i]`, `c[j]`) counts its elements
  // once per iterator: the counts stay exact per read, a little high for the field.
  std::map<std::string, std::vector<int>> placeDim;  // per input array, per place: a dimension
  for (const Stmt& st : call.stmts)
    for (const Reference& r : stmtAccesses(st).reads) {
      if (r.scalar) continue;
      std::vector<int>& dimsOf = placeDim[fieldOf(r)];
      const int rank = static_cast<int>(r.subs.size());
      if (dimsOf.empty())
        for (int q = 0; q < rank; ++q) dimsOf.push_back(rank == dims ? q : -1);
      for (int q = 0; q < rank && q < static_cast<int>(dimsOf.size()); ++q)
        if (dimsOf[static_cast<size_t>(q)] < 0 && !r.subs[static_cast<size_t>(q)].fixed())
          dimsOf[static_cast<size_t>(q)] = r.subs[static_cast<size_t>(q)].iter;
    }
  for (auto& [name, dimsOf] : placeDim)
    for (size_t q = 0; q < dimsOf.size(); ++q)
      if (dimsOf[q] < 0) dimsOf[q] = dims - static_cast<int>(dimsOf.size()) + static_cast<int>(q);
  std::map<std::string, int> versions;        // writes so far, per field
  std::map<std::string, std::string> latest;  // the version a read takes, per written field
  for (size_t si = 0; si < call.stmts.size(); ++si) {
    const Stmt& st = call.stmts[si];
    const StmtAccesses acc = stmtAccesses(st);
    Stencil s;
    const std::string field = fieldOf(acc.write);
    const int version = ++versions[field];
    s.name = version == 1 && !readFirst.count(field) ? field : fmt::format("{}#{}", field, version);
    s.ops = stmtFlops(st);
    for (const Reference& r : acc.reads) {
      const std::string name = fieldOf(r);
      auto at = latest.find(name);
      const std::string read = at == latest.end() ? name : at->second;
      // A per-point scalar is read at the evaluation point; a statement reads the array it
      // writes only there (language.md 5.8), the version before it.
      Access a{read, std::vector<int64_t>(static_cast<size_t>(dims), 0), {}};
      const bool partial = !r.scalar && (r.fixedPlane() || static_cast<int>(r.subs.size()) != dims);
      if (partial && at != latest.end())
        fail(st, fmt::format("'{}' is read at a fixed plane after a statement of the call writes "
                             "it: the hierarchical model tiles by constant-offset dependences",
                             name));
      if (partial) {
        // An input read at absolute coordinates: every coordinate its subscripts leave out is 0.
        a.absolute.assign(static_cast<size_t>(dims), true);
        const std::vector<int>& dimsOf = placeDim.at(name);
        for (size_t q = 0; q < r.subs.size(); ++q) {
          const Subscript& sub = r.subs[q];
          const auto d = static_cast<size_t>(sub.fixed() ? dimsOf.at(q) : sub.iter);
          if (!sub.fixed() && !a.absolute[d])
            fail(st, fmt::format("'{}' is read with two subscripts along one iterator", name));
          a.absolute[d] = sub.fixed();
          a.offset[d] = sub.offset;
        }
        for (size_t q = 0; q < r.subs.size(); ++q)
          if (r.subs[q].fixed() && !a.absolute[static_cast<size_t>(dimsOf.at(q))])
            fail(st, fmt::format("'{}' is read at a fixed plane along the iterator another of "
                                 "its subscripts follows: the hierarchical model cannot place it",
                                 name));
      } else if (!r.scalar) {
        for (const Subscript& sub : r.subs) a.offset[static_cast<size_t>(sub.iter)] = sub.offset;
      }
      s.in.push_back(std::move(a));
    }
    latest[field] = s.name;
    const Box box = evalIter(regions.stmts[si], params);
    s.domain = box.empty ? IndexBox{std::vector<int64_t>(static_cast<size_t>(dims), 0),
                                    std::vector<int64_t>(static_cast<size_t>(dims), -1)}
                         : IndexBox{box.lo, box.hi};
    // Every version of an array the caller sees leaves the program (a later write may cover
    // only part of an earlier one's region).
    if (!acc.write.scalar && !acc.write.array.local) p.outputs.push_back(s.name);
    p.stencils.push_back(std::move(s));
  }
  validate(p);
  return p;
}

}  // namespace tessel::modesto
