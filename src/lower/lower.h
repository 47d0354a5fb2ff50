// lower(): the lowering pipeline, one visible recipe (architecture.md principle 3). It reads
// top to bottom as the passes run; each pass is a function from IR to IR in its own file, run
// through the PassLog, which times it and prints the IR after it when asked
// (`--print-ir-after-all`, `--print-ir-after=PASS`, `--time-passes` on emit, run, info and
// analyze).
//
//   resolve-schedule  Schedules -> resolved schedule (schedule/resolve.h): each stencil's grid,
//                     block, streamed iterator, unrolling and time tile, the fused groups of
//                     time steps and their tiles. Run right after validation
//                     (setUpSchedules, schedule/resolve.h) through the same log, because the
//                     `info` reports and the resource checks read the result too; lower()
//                     takes it as its input
//   build-kernels     resolved schedule -> kernel IR: one kernel per statement, or per fused group
//                     of time steps, built by its family (lower/lower_gpu*.cpp), and the host
//                     code that launches them; no barriers
//   unroll-loops      loops marked Unrolled (a thread's points under --unroll) become one copy
//                     of their body per iteration (transforms/unroll_loops.h)
//   contract-fma      --fma: a*b+c in the kernels as fused multiply-adds
//                     (transforms/contract_fma.h); runs only where a stencil asks for it
//   insert-barriers   barriers from the shared arrays each phase of a kernel reads and writes
//                     (transforms/insert_barriers.h)
//   verify-kernels    the kernel verifier (ir/loop_ir_verify.h): barriers every thread reaches,
//                     known buffers, shared accesses in range; changes nothing
//   narrow-indices    GPU only: 32-bit index arithmetic in the kernels where it is exact, with
//                     the host's run-time test of the sizes and a 64-bit copy of each
//                     narrowed kernel (transforms/narrow_indices.h)
//   work-item-loops   CPU only: kernels become OpenMP functions (transforms/work_item_loops.h)
//   naive-loops       the C++ target under `global`: one parallel loop nest per statement, or
//                     per group of fused statements (fuse_statements; lower/lower_cpp.h),
//                     instead of the three above
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu_host_runtime.h"
#include "ir/loop_ir.h"
#include "ir/program.h"
#include "lower/lower_gpu.h"
#include "schedule/resolve.h"
#include "support/pass_log.h"

namespace tessel {

/// The passes of the pipeline in the order they can run, for --print-ir-after.
const std::vector<std::string>& passNames();

/// Lowers `prog` for a GPU API (OpenCL, CUDA) or for the CPU run of the same kernels (Cpu).
/// Throws std::invalid_argument for a schedule resolved for another program (buildKernels) and
/// std::logic_error ("internal error") when a generated kernel fails verification.
GpuProgram lower(const Program& prog, const ResolvedSchedule& resolved, GpuApi api, PassLog& log);

/// The C++ target's plain loop nests (the global family on a CPU); the stencils
/// `fuseStatements` marks (by stencil) fuse their statements (lower/lower_cpp.h).
lir::Module lowerLoops(const Program& prog, PassLog& log,
                       const std::vector<bool>& fuseStatements = {});

/// The IR as the pass log prints it (irDialect): the device module, then the host module.
std::string printIr(const GpuProgram& p);
std::string printIr(const lir::Module& m);

}  // namespace tessel
