// `tessel emit`: write generated code for a target into a directory.
#pragma once

#include <string>

#include "ir/program.h"

namespace tessel {

/// Writes the target's files into `dir` (created if needed); returns a human-readable summary
/// of what was written. Throws std::runtime_error on I/O failure.
std::string emitProgram(const Program& prog, const std::string& target, const std::string& dir);

}  // namespace tessel
