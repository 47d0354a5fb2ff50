// The execution backends behind `tessel run`, one interface.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/program.h"
#include "lower/lower_gpu.h"
#include "runtime/state.h"
#include "schedule/resolve.h"
#include "support/pass_log.h"

namespace tessel {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// A line about where the backend runs (threads, device).
  virtual std::string description() const = 0;
  /// Runs the whole program on `state`, in place. Returns the seconds the computation took,
  /// excluding code generation and compilation.
  virtual double run(ProgramState& state) = 0;
  /// Where generated code was written, if any.
  virtual std::string generatedCode() const { return {}; }
};

struct BackendOptions {
  std::string workDir;  // where generated code goes; empty: a per-user cache directory
  /// The resolved schedule (schedule/resolve.h) the GPU kernels follow (opencl, cuda, and cpp
  /// when a stencil's family is not `global`); unset (no grids): every stencil `global`.
  ResolvedSchedule schedule;
  PassLog* passLog = nullptr;  // the pipeline's pass log (--print-ir-after-all, --time-passes)
};

/// Names accepted by --backend.
const std::vector<std::string>& backendNames();
/// Creates (and for compiled backends, builds) a backend. Throws std::runtime_error on failure.
std::unique_ptr<Backend> makeBackend(const std::string& name, const Program& prog,
                                     const BackendOptions& opts);

}  // namespace tessel
