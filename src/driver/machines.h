// `tessel machines`: every machine description along the search path (model/machine.h), one
// line each, or as JSON with every figure and its source.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "support/diagnostics.h"

namespace tessel {

/// The machines as a table: id, name, compute capability, SMs, FP64 and FP32 peaks, DRAM
/// bandwidth (datasheet, and measured where a source has one), shared memory per SM, L2 and the
/// file; then the host CPU, measured at first use and cached (model/host.h). A file that does not
/// load is reported through `diags` and left out.
std::string machinesText(DiagnosticEngine& diags);

/// The same as JSON: a list of machines with their figures, sources and notes (`kind` "gpu"),
/// the host CPU last (`id` "host", `kind` "cpu").
nlohmann::json machinesJson(DiagnosticEngine& diags);

}  // namespace tessel
