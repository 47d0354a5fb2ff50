#include "driver/schedules.h"

namespace tessel {

std::optional<ScheduleSetup> setUpSchedules(const Program& prog,
                                            const std::map<std::string, std::string>& flags,
                                            DiagnosticEngine& diags, bool forAnalysis,
                                            PassLog* log) {
  ScheduleOptions opts;
  for (auto& [flag, value] : flags)
    if (!value.empty() && !setScheduleOption(opts, flag, value, diags)) return std::nullopt;
  auto machine = loadMachine(opts.machine.value_or(kDefaultMachine), diags);
  if (!machine) return std::nullopt;
  auto schedules = buildSchedules(prog, opts, *machine, diags, !forAnalysis);
  if (!schedules) return std::nullopt;
  PassLog silent;
  ResolvedSchedule resolved = (log ? *log : silent)
                                  .run(
                                      "resolve-schedule", [&] { return resolve(prog, *schedules); },
                                      [&](const ResolvedSchedule& r) { return describe(prog, r); });
  return ScheduleSetup{*machine, std::move(*schedules), std::move(resolved)};
}

}  // namespace tessel
