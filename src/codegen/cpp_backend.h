// The C++/OpenMP backend's source: a Program lowered to loop nests (the pipeline's naive-loops)
// and printed as one C++ translation unit. Building, loading and running it: exec/cpp_module.h.
#pragma once

#include <string>

#include "ir/program.h"
#include "lower/pass_log.h"

namespace tessel {

/// The whole generated translation unit for `prog`: the pipeline's naive-loops (lower/lower.h)
/// printed with cppDialect(). `log`: the pass log; null: a silent one.
std::string generateCpp(const Program& prog, PassLog* log = nullptr);

}  // namespace tessel
