#include "lower/lower.h"

#include <algorithm>
#include <stdexcept>

#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "ir/loop_ir_verify.h"
#include "lower/lower_cpp.h"
#include "transforms/contract_fma.h"
#include "transforms/insert_barriers.h"
#include "transforms/narrow_indices.h"
#include "transforms/prefetch_planes.h"
#include "transforms/unroll_loops.h"
#include "transforms/work_item_loops.h"

namespace tessel {

const std::vector<std::string>& passNames() {
  static const std::vector<std::string> names = {
      "fusion-groups",  "resolve-schedule", "build-kernels",   "prefetch-planes",
      "unroll-loops",   "contract-fma",     "insert-barriers", "verify-kernels",
      "narrow-indices", "work-item-loops",  "naive-loops"};
  return names;
}

GpuProgram lower(const Program& prog, const ResolvedSchedule& resolved, GpuApi api, PassLog& log) {
  auto show = [](const GpuProgram& p) { return printIr(p); };
  // `resolved` (pass resolve-schedule, run by the driver): each stencil's grid and block, the
  // fused groups of time steps and their tiles. Everything below reads this value.
  // Points to threads or tiles, time steps fused, inputs staged on chip, stream planes rotated:
  // today one builder per family does these.
  GpuProgram p = log.run(
      "build-kernels",
      [&] {
        GpuProgram q = buildKernels(prog, resolved);
        // Each kernel takes its stencil's register cap (Schedule::maxRegisters), if any.
        for (size_t k = 0; k < q.kernels.size() && k < q.device.functions.size(); ++k) {
          q.kernels[k].maxRegisters = q.device.functions[k].maxRegisters =
              resolved.gridOfCall(prog, q.kernels[k].call).maxRegisters;
        }
        return q;
      },
      show);
  // A pass from kernels to kernels: the device module changes, the host code stays.
  auto devicePass = [&](const char* name, lir::Module (*pass)(const lir::Module&)) {
    p = log.run(
        name,
        [&] {
          GpuProgram q = p;
          q.device = pass(p.device);
          return q;
        },
        show);
  };
  // --prefetch: the plane loads the stream builders marked, a plane ahead into registers.
  if (std::any_of(resolved.grids.begin(), resolved.grids.end(),
                  [](const GridShape& g) { return g.prefetch; }))
    p = log.run(
        "prefetch-planes", [&] { return transforms::prefetchPlanes(p); }, show);
  // The loops a builder marked Unrolled (a thread's points) become straight-line copies.
  devicePass("unroll-loops", transforms::unrollLoops);
  // --fma: a*b+c as fused multiply-adds in the kernels of the stencils that ask for them.
  if (std::any_of(resolved.grids.begin(), resolved.grids.end(),
                  [](const GridShape& g) { return g.fma; }))
    p = log.run(
        "contract-fma", [&] { return transforms::contractFma(p, prog, resolved); }, show);
  // Barriers between the phases that share memory, from the shared arrays each phase reads
  // and writes (no builder places one).
  devicePass("insert-barriers", transforms::insertBarriers);
  // Every kernel, whichever family built it, before anything is printed or run.
  log.check(
      "verify-kernels",
      [&] {
        for (const lir::Function& f : p.device.functions)
          if (auto problems = lir::verifyKernel(f); !problems.empty())
            throw std::logic_error("internal error: kernel '" + f.name +
                                   "' fails verification: " + problems.front());
      },
      [&] { return printIr(p); });
  // On a GPU, 32-bit index arithmetic where it is exact, the host choosing per launch between
  // a narrowed kernel and its 64-bit copy.
  if (api != GpuApi::Cpu)
    p = log.run(
        "narrow-indices", [&] { return transforms::narrowIndices(p, prog, resolved); }, show);
  // On the CPU the kernels' threads become loops and their blocks OpenMP work.
  if (api == GpuApi::Cpu) devicePass("work-item-loops", transforms::workItemLoops);
  return p;
}

lir::Module lowerLoops(const Program& prog, PassLog& log, const std::vector<bool>& fuseStatements) {
  return log.run(
      "naive-loops", [&] { return lowerToCpp(prog, fuseStatements); },
      [](const lir::Module& m) { return printIr(m); });
}

std::string printIr(const lir::Module& m) { return CLikeEmitter(irDialect()).emitModule(m); }

std::string printIr(const GpuProgram& p) {
  return "// ---- device ----\n" + printIr(p.device) + "\n// ---- host ----\n" + printIr(p.host);
}

}  // namespace tessel
