// Lowering of a checked Program to loop IR for the C++/OpenMP target.
//
// The module holds, in order:
//   - one internal function per call, `call<N>_<stencil>`, taking the global arrays it uses
//     (typed pointers), the global scalars it uses and the parameters it uses (int64_t). It
//     evaluates the initialised locals, allocates the local arrays (zero-filled, or copied from the
//     global array for a scratch copy) and a buffer per local scalar over the call-domain box, then
//     runs each statement as a loop nest over its region (analysis/regions.h): outermost loop `omp
//     parallel for`, innermost `omp simd` (a 1-D nest: `parallel for simd`);
//   - `tessel_program(...)`: one typed parameter per global array, scalar and parameter, in
//     Program order; runs Program::body (iterate loops become serial host loops);
//   - `extern "C" int32_t tessel_entry(void* const* arrays, const double* scalars,
//     const int64_t* params)`: arrays[i] points at global array i (element type as declared:
//     double, float, int32_t, bool; row-major), scalars[i] holds scalar i as a double, params[i]
//     is parameter i; it clears the error status, unpacks them, calls tessel_program and returns
//     the error status (a lir::Status: 0, or the first integer division or remainder by zero or
//     negative integer exponent the program met; generated code does not trap on these).
#pragma once

#include <string>
#include <vector>

#include "ir/loop_ir.h"
#include "ir/program.h"

namespace tessel {

/// Compiler flags the generated C++ is meant for (after the compiler name, before the files):
/// C++17, -O3 -march=native, OpenMP, no FMA contraction (exact agreement with the reference),
/// wrapping signed arithmetic (the language's ints wrap), a position-independent shared library.
std::vector<std::string> cppCompileFlags();

/// Name of the source file and shared library the C++ backend writes (for the header comment).
inline constexpr const char* kCppSourceName = "tessel_program.cpp";
inline constexpr const char* kCppLibraryName = "libtessel_program.so";

/// Lowers `prog` to one C++ translation unit (see the file comment for its functions).
/// The C++ target's loop nests: per call, each statement a parallel loop nest over its region,
/// in order; for the stencils `fuseStatements` marks (indexed by stencil; missing: false), each
/// group of analysis/stmt_fusion.h one loop nest over the bounding box of its statements'
/// regions, each statement where its own region holds, its local scalars in registers.
lir::Module lowerToCpp(const Program& prog, const std::vector<bool>& fuseStatements = {});

}  // namespace tessel
