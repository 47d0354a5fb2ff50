// Binding parameter values: defaults, `--param NAME=V` overrides, and the missing ones.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

/// Values for every parameter: given ones override defaults (in declaration order, so defaults
/// may use earlier parameters). Reports unknown names and parameters left without a value.
std::optional<ParamValues> bindParams(const Program& prog,
                                      const std::map<std::string, int64_t>& given,
                                      DiagnosticEngine& diags);

/// Values from defaults only; nullopt when some parameter has no default (no diagnostics).
std::optional<ParamValues> defaultParams(const Program& prog);

}  // namespace tessel
