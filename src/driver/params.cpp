#include "driver/params.h"

#include <stdexcept>

namespace tessel {

std::optional<ParamValues> bindParams(const Program& prog,
                                      const std::map<std::string, int64_t>& given,
                                      DiagnosticEngine& diags) {
  std::vector<std::string> names;
  for (auto& p : prog.params) names.push_back(p.name);
  bool ok = true;
  for (auto& [n, v] : given) {
    if (prog.findParam(n) < 0) {
      std::string hint = "this program's parameters: ";
      for (size_t i = 0; i < names.size(); ++i) hint += (i ? ", " : "") + names[i];
      if (names.empty()) hint = "this program has no parameters";
      if (auto best = closestName(n, names)) hint = fmt::format("did you mean '{}'?", *best);
      diags.report(DiagId::unknown_parameter, {},
                   fmt::format("--param {}: the program has no parameter '{}'", n, n), hint);
      ok = false;
    }
  }
  ParamValues vals(prog.params.size(), 0);
  for (size_t i = 0; i < prog.params.size(); ++i) {
    const Param& p = prog.params[i];
    if (auto it = given.find(p.name); it != given.end()) {
      vals[i] = it->second;
    } else if (p.defaultValue) {
      try {
        vals[i] = evalInt(p.defaultValue, vals);
      } catch (const std::exception& e) {
        // With values given on the command line, the default may fail because of them.
        diags.report(
            given.empty() ? DiagId::bad_parameter_default : DiagId::bad_parameter_value,
            p.defaultValue->loc,
            fmt::format("default of parameter '{}' cannot be evaluated: {}", p.name, e.what()));
        ok = false;
      }
    } else {
      diags.report(DiagId::missing_parameter, p.loc,
                   fmt::format("parameter '{}' has no default and no value was given", p.name),
                   fmt::format("pass --param {}=VALUE", p.name));
      ok = false;
    }
  }
  // Extents must be positive.
  int k = 0;
  for (size_t i = 0; i < prog.params.size() && ok; ++i) {
    if (prog.params[i].fromIterate) continue;
    if (k++ < prog.dims() && vals[i] < 1) {
      // A bad default is the program's fault (located); a bad --param value the user's.
      const Param& p = prog.params[i];
      bool fromDefault = !given.count(p.name);
      diags.report(fromDefault ? DiagId::bad_parameter_default : DiagId::bad_parameter_value,
                   fromDefault ? p.defaultValue->loc : p.loc,
                   fmt::format("parameter '{}' = {} is the extent of iterator '{}' and must be at "
                               "least 1",
                               prog.params[i].name, vals[i], prog.iterators[k - 1].name));
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return vals;
}

std::optional<ParamValues> defaultParams(const Program& prog) {
  ParamValues vals(prog.params.size(), 0);
  for (size_t i = 0; i < prog.params.size(); ++i) {
    if (!prog.params[i].defaultValue) return std::nullopt;
    try {
      vals[i] = evalInt(prog.params[i].defaultValue, vals);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return vals;
}

CheckParams paramsForCheck(const Program& prog, const std::map<std::string, int64_t>& given,
                           DiagnosticEngine& diags) {
  CheckParams out;
  bool complete = true;
  for (auto& p : prog.params) complete = complete && (p.defaultValue || given.count(p.name));
  if (!complete && given.empty()) return out;
  out.values = bindParams(prog, given, diags);
  out.ok = out.values.has_value();
  return out;
}

}  // namespace tessel
