#include "driver/gpu_plan.h"

namespace tessel {

GpuLaunchPlan gpuLaunchPlan(const Program& prog, const std::vector<Schedule>& schedules) {
  GpuLaunchPlan plan;
  for (const Schedule& s : schedules) {
    GpuLaunchConfig c;
    c.family = s.family.value == ScheduleFamily::GlobalStream ? GpuFamily::GlobalStream
                                                              : GpuFamily::Global;
    auto b = s.blockShape();
    for (size_t d = 0; d < 3; ++d) c.block[d] = static_cast<int>(b[d]);
    c.streamDim = streamDim(s, prog);
    plan.perStencil.push_back(c);
  }
  return plan;
}

}  // namespace tessel
