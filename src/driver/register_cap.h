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
  std::string line;  // the one line that says what was chosen and why
  /// `line` where the cap is the CUDA default (no --max-registers given): a note that says so
  /// and how to keep the launch bounds.
  std::string defaultLine() const;
};

/// Whether a stencil of `prog` sets its register cap (the `max_registers` clause).
bool registerCapNamed(const Program& prog);

/// `flags` with --max-registers auto; `params` as --param gave them. Nullopt after an error
/// reported through `diags` (bad flags or parameters). Without nvcc the launch bounds stay and
/// the line says so.
std::optional<RegisterCapChoice> chooseRegisterCap(const Program& prog,
                                                   std::map<std::string, std::string> flags,
                                                   const std::map<std::string, int64_t>& params,
                                                   DiagnosticEngine& diags);

}  // namespace tessel
