// Schedules for the command line: the schedule flags, the machine, and one validated Schedule
// per stencil, fitted, validated and resolved (schedule/resolve.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "lower/pass_log.h"
#include "model/machine.h"
#include "schedule/resolve.h"
#include "schedule/schedule.h"
#include "support/diagnostics.h"

namespace tessel {

struct ScheduleSetup {
  MachineDesc machine;
  std::vector<Schedule> schedules;  // one per stencil definition
  ResolvedSchedule resolved;        // resolve(prog, schedules): what everything later reads
};

/// `flags` maps option names (scheduleFlags()) to the values given; empty ones are ignored.
/// Reports malformed flags, an unknown machine and impossible schedules; nullopt after an error.
/// `forAnalysis` (tessel info): stream + time_tile kernels beyond the machine's shared memory
/// are reported, not refused. The schedules are resolved once, as the pipeline's first pass
/// (resolve-schedule, through `log` when given: --print-ir-after, --time-passes).
std::optional<ScheduleSetup> setUpSchedules(const Program& prog,
                                            const std::map<std::string, std::string>& flags,
                                            DiagnosticEngine& diags, bool forAnalysis = false,
                                            PassLog* log = nullptr);

}  // namespace tessel
