// kernelNeeds(): the shared memory and threads of each kernel of a staged family, from the same
// staging analysis the GPU lowering uses (analysis/staging.h).
#include <fmt/format.h>

#include "analysis/staging.h"
#include "schedule/schedule.h"

namespace tessel {

std::vector<KernelNeeds> kernelNeeds(const Schedule& s, const Program& prog) {
  std::vector<KernelNeeds> out;
  ScheduleFamily f = s.family.value;
  if (f != ScheduleFamily::Shared && f != ScheduleFamily::Stream) return out;
  int streamed = f == ScheduleFamily::Stream ? streamDim(s, prog) : -1;
  bool unrolled = f == ScheduleFamily::Shared || streamed < 0;  // `stream` on 1-D runs shared
  // A block's tile per iterator: the block extent of its grid dimension (times the unroll).
  std::vector<int64_t> tile(static_cast<size_t>(prog.dims()), 1);
  std::vector<int> grid = gridDims(s, prog);
  auto block = s.blockShape();
  int64_t threads = 1;
  for (size_t gd = 0; gd < grid.size() && gd < 3; ++gd) {
    int d = grid[gd];
    int64_t u = unrolled ? s.unrollFactor(prog.iterators[d].name) : 1;
    tile[d] = block[gd] * u;
    threads *= block[gd];
  }
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    const CallInst& call = prog.calls[c];
    if (call.stencil != s.stencil) continue;
    for (size_t k = 0; k < call.stmts.size(); ++k) {
      StmtStaging st = planStaging(prog, call, call.stmts[k], tile, streamed);
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
        if (p.kind == StageKind::Planes)
          what = fmt::format("{} planes of {}", p.sharedPlanes(), what);
        n.staged += (n.staged.empty() ? "" : ", ") + what;
      }
      out.push_back(n);
    }
  }
  return out;
}

}  // namespace tessel
