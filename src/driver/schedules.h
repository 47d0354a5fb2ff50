// Schedules for the command line: the schedule flags, the machine, and one validated Schedule
// per stencil (issue 3). The C++/OpenMP backend does not use them; the GPU backends will.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "model/machine.h"
#include "schedule/schedule.h"
#include "support/diagnostics.h"

namespace tessel {

struct ScheduleSetup {
  MachineDesc machine;
  std::vector<Schedule> schedules;  // one per stencil definition
};

/// `flags` maps option names (scheduleFlags()) to the values given; empty ones are ignored.
/// Reports malformed flags, an unknown machine and impossible schedules; nullopt after an error.
/// `forAnalysis` (tessel info): stream + time_tile kernels beyond the machine's shared memory
/// are reported, not refused.
std::optional<ScheduleSetup> setUpSchedules(const Program& prog,
                                            const std::map<std::string, std::string>& flags,
                                            DiagnosticEngine& diags, bool forAnalysis = false);

}  // namespace tessel
