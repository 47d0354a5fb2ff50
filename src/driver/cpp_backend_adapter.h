// The C++/OpenMP backend behind the Backend interface.
#pragma once

#include <memory>

#include "driver/backend.h"

namespace tessel {

/// Generates, compiles (or reuses a cached build of) and loads the program's C++ code.
std::unique_ptr<Backend> makeCppBackend(const Program& prog, const BackendOptions& opts);

}  // namespace tessel
