// Pass `contract-fma` (`--fma`): fused multiply-adds in the kernels of stencils that ask for
// them (Schedule::fma), issue 11.
//
// The language computes `a * b + c` as two roundings, as the reference interpreter does, and
// the generated code keeps it so (nvcc -fmad=false, OpenCL FP_CONTRACT OFF, -ffp-contract=off):
// results agree bit for bit. A GPU's DFMA does both in one instruction and one rounding; with
// `--fma` this pass rewrites, in every expression of the kernels, a floating-point
// `a * b + c`, `c + a * b`, `a * b - c` and `c - a * b` (the product of the same type as the
// sum) into `fma(a, b, c)`, `fma(a, b, c)`, `fma(a, b, -c)` and `fma(-a, b, c)`, innermost
// first. The result differs from the reference in the last bits, so `run --verify` compares it
// with a tolerance (driver/run.h). Only the kernels change: the C++ target's plain loop nests
// (`global`) and the host's initialised locals keep the exact operations.
#pragma once

#include "ir/loop_ir.h"
#include "ir/program.h"
#include "lower/lower_gpu.h"
#include "schedule/resolve.h"

namespace tessel::transforms {

/// `e` with its multiply-adds contracted (see above).
ExprPtr contractFma(const ExprPtr& e);

/// `p` with the kernels of stencils whose schedule has fma contracted.
GpuProgram contractFma(const GpuProgram& p, const Program& prog, const ResolvedSchedule& r);

}  // namespace tessel::transforms
