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

/// The values `check` and `info` evaluate sizes and bounds at: the given ones and the defaults,
/// diagnosed exactly as `run` would, when every parameter then has a value. `values` is empty
/// when some parameter has no value (bounds are then checked at run time); `ok` is false after
/// an error.
struct CheckParams {
  bool ok = true;
  std::optional<ParamValues> values;
};
CheckParams paramsForCheck(const Program& prog, const std::map<std::string, int64_t>& given,
                           DiagnosticEngine& diags);

}  // namespace tessel
