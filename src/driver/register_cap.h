// `--max-registers auto`: the register cap the performance model chooses from ptxas's figures
// (issue 11). The program is compiled with nvcc (ptxas -v, cached) under its schedule with the
// launch bounds, then under the largest caps with which the occupancy calculator, on the
// machine's register file, lets one or two more blocks of a kernel reside per SM; each is
// predicted with its registers and occupancy (perf/predict.h),
// a cap that makes any kernel spill more than the launch bounds do is refused, and the fastest
// prediction wins (by more than the model resolves, kChoiceMargin; else the launch bounds stay).
#pragma once

#include <map>
#include <string>

#include "ir/program.h"
#include "support/diagnostics.h"

namespace tessel {

struct RegisterCapChoice {
  int cap = 0;  // 0: the launch bounds (no cap)
  /// The schedule flags to use: --max-registers N, or none.
  std::map<std::string, std::string> flags;
  std::string reason;  // what was chosen and why ("the model chose 32 (ptxas: ...); ...")
  /// The one line that says so: `--max-registers auto: REASON`, or, where the cap is the CUDA
  /// default (`byDefault`), a note that says that too and how to keep the launch bounds.
  std::string line(bool byDefault) const;
};

/// Who asks for the model's cap: nobody, `--max-registers auto`, or the CUDA default.
enum class CapRequest { None, Asked, Default };

/// Whether the model chooses the register cap for `prog` under `flags`: where --max-registers
/// says auto, and, for CUDA code (`cudaCode`), where neither --max-registers nor a stencil's
/// `max_registers` clause sets one.
CapRequest capRequest(const Program& prog, const std::map<std::string, std::string>& flags,
                      bool cudaCode);

/// `flags` with --max-registers auto; `params` as --param gave them. Nullopt after an error
/// reported through `diags` (bad flags or parameters). Without nvcc the launch bounds stay and
/// the line says so.
std::optional<RegisterCapChoice> chooseRegisterCap(const Program& prog,
                                                   std::map<std::string, std::string> flags,
                                                   const std::map<std::string, int64_t>& params,
                                                   DiagnosticEngine& diags);

}  // namespace tessel
