// `tessel analyze --defaults-effect`: the performance model's predicted effect of the kernel
// changes Tessel applies by default (issue 11), each turned off in turn: 32-bit index
// arithmetic (--index-bits 64), dead stores left out (--dead-stores keep), a spare plane per
// streamed input ring (--spare-plane off). Predictions, never measurements.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

/// For each default that some kernel of `with` (predictUnder's JSON of the program under
/// `flags`) applies and `flags` does not set: the program predicted again with it off. Entries:
/// change (what it is), flag (what turns it off), kernels (the names of those that apply it),
/// and seconds_without with speedup (the time without it over the time with it), or refused
/// (why the schedule without it is refused). An empty array where none applies.
nlohmann::json defaultEffects(const Program& prog, const std::map<std::string, std::string>& flags,
                              const ParamValues& params, bool ptxas, DiagnosticEngine& diags,
                              const nlohmann::json& with);

/// The entries as text, one line each, under a "defaults" heading; "" for none.
std::string defaultEffectsText(const nlohmann::json& effects);

}  // namespace tessel
