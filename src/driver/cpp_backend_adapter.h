// The C++/OpenMP backend behind the Backend interface.
#pragma once

#include <memory>
#include <vector>

#include "driver/backend.h"

namespace tessel {

/// Generates, compiles (or reuses a cached build of) and loads the program's C++ code.
std::unique_ptr<Backend> makeCppBackend(const Program& prog, const BackendOptions& opts);

/// Per stencil, whether its schedule fuses its statements (fuse_statements under `global`): the
/// C++ loop nests then fuse them too (lower/lower_cpp.h).
std::vector<bool> fusedStencils(const ResolvedSchedule& schedule);

}  // namespace tessel
