// The C++/OpenMP backend's source: a Program lowered to loop nests (the pipeline's naive-loops)
// and printed as one C++ translation unit. Building, loading and running it: exec/cpp_module.h.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"
#include "support/pass_log.h"

namespace tessel {

/// The whole generated translation unit for `prog`: the pipeline's naive-loops (lower/lower.h)
/// printed with cppDialect(). `log`: the pass log; null: a silent one.
std::string generateCpp(const Program& prog, PassLog* log = nullptr,
                        const std::vector<bool>& fuseStatements = {});

/// The CMakeLists.txt that builds `source` into the shared library the tessel runtime loads,
/// with OpenMP and C++17: the comment `header` first (one "# " line each), then `options` as
/// the compile options (each with a leading space). Shared by the C++ target's loop nests and
/// its CPU run of the GPU kernels.
std::string openmpLibraryCmake(const std::vector<std::string>& header, const std::string& source,
                               const std::string& options);

}  // namespace tessel
