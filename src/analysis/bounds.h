// Array bounds of statement accesses (language.md 9.13): every element a statement reads or
// writes at any point of its region must lie within the array's extent; never clipped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/regions.h"
#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

/// One element outside an array: along array dimension `dim` the access reaches `index`, and the
/// array has `extent` elements there.
struct AccessViolation {
  int dim = 0;
  int64_t index = 0;
  int64_t extent = 0;
};

/// The first dimension along which `access` (an ArrayRef) leaves `extents` when evaluated over
/// the non-empty box `iter` (one range per iterator dimension); nullopt if it stays inside.
std::optional<AccessViolation> findViolation(const Expr& access, const Box& iter,
                                             const std::vector<int64_t>& extents);

/// "access 'in[k][j][i+1]' reaches index 256 along i, outside 'in' (0..255 along i) in the call
/// at f.tsl:12:3".
std::string violationMessage(const Program& prog, const CallInst& call, const Expr& access,
                             const AccessViolation& v);

/// Evaluated extents of an array (global or the call's local).
std::vector<int64_t> evalExtents(const std::vector<ExprPtr>& extents, const ParamValues& params);

/// Checks every access of every statement of every call (statements with an empty region are
/// skipped) against the arrays' extents for these parameter values; also rejects arrays whose
/// extents evaluate negative. Reports out_of_bounds (one per access site) and bad_extent errors;
/// returns false if it reported any.
bool checkBounds(const Program& prog, const ParamValues& params, DiagnosticEngine& diags);

}  // namespace tessel
