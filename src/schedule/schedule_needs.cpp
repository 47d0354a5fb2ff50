// kernelNeeds(): the shared memory and threads of each kernel of a staged family, from the same
// staging analysis the GPU lowering uses (analysis/staging.h).
#include <fmt/format.h>

#include "analysis/staging.h"
#include "schedule/resolve.h"
#include "schedule/schedule.h"

namespace tessel {

std::vector<KernelNeeds> kernelNeeds(const Schedule& s, const Program& prog) {
  std::vector<KernelNeeds> out;
  const GridShape g = gridOf(s, prog);  // `stream` on a 1-D program runs as `shared`
  if (!g.staged()) return out;
  int64_t threads = 1;
  for (size_t gd = 0; gd < g.iters.size() && gd < 3; ++gd) threads *= g.block[gd];
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    const CallInst& call = prog.calls[c];
    if (call.stencil != s.stencil) continue;
    for (size_t k = 0; k < call.stmts.size(); ++k) {
      StmtStaging st = stageStatement(prog, call, call.stmts[k], g);
      KernelNeeds n;
      n.call = static_cast<int>(c);
      n.stmt = static_cast<int>(k);
      n.sharedBytes = st.sharedBytes;
      n.threads = threads;
      for (auto& p : st.groups) {
        if (p.sharedElements() == 0) continue;
        std::vector<std::string> ext;
        for (size_t q = 0; q < p.extent.size(); ++q)
          if (p.group.iters[q] >= 0 && static_cast<int>(q) != p.streamPos)
            ext.push_back(std::to_string(p.extent[q]));
        std::string what =
            fmt::format("'{}' {} {}", p.group.name, fmt::join(ext, "x"), typeName(p.group.type));
        if (p.kind == StageKind::Planes) what = fmt::format("{} planes of {}", p.ringSlots(), what);
        n.staged += (n.staged.empty() ? "" : ", ") + what;
      }
      out.push_back(n);
    }
  }
  return out;
}

}  // namespace tessel
