// Registers per thread of a GPU kernel estimated from its loop IR, for when ptxas's figure is not
// at hand (no nvcc, or a search that predicts thousands of variants and cannot compile each):
// the occupancy calculator then works from an estimate instead of leaving registers out.
//
// The estimate is a register-pressure count over the kernel IR, scaled by a linear fit:
//   - named values: every local, loop index and register plane the kernel declares is live from
//     its declaration to its last use, and to the end of every loop that uses it inside (a value
//     a loop reads at each iteration lives through the loop); the most 32-bit registers live at
//     once (double, 64-bit int and pointer locals take two; 32-bit ints, floats and bools one);
//   - loads in flight: ptxas issues the loads of a straight-line stretch of code early to hide
//     their latency, so each stretch (statements between loops, branches and barriers) holds its
//     distinct loaded values at once; in an innermost loop that nvcc unrolls (of unknown trip
//     count, not kept rolled: the overlapped family's stage loops) up to four copies of them,
//     fewer for a large body;
//   - pressure: the largest sum over the kernel's statements of the named values live there and
//     the loads of its stretch, at most 24 registers of them (ptxas issues a long stretch's
//     loads in turns: the global kernels of diffterm and rhs4center, 80 to 90 registers of
//     loads in one statement, get 32 to 40 registers);
// registers = round(intercept of the kernel's family + a x pressure), at least 16 (ptxas's floor
// in our kernels), at most the kernel's cap (its launch bounds, or __maxnreg__): above that
// ptxas spills rather than allocates. One intercept per schedule family (what the pressure does
// not see: the overlapped family's cooperative index arithmetic, stream's ring rotation) and one
// slope are a least-squares fit on ptxas -v for sm_90 over the kernels of half of the
// benchmarks under every family; scripts/register_fit.py refits them and states the error on
// the other half (docs/model.md: mean absolute error 7.9 registers, median 5);
// tests/e2e/test_cli_analyze.cpp checks the constants below are what it fits. An estimate,
// said to be one wherever it is shown.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "ir/loop_ir.h"

namespace tessel {

/// What the estimate counts in one kernel (above), in 32-bit registers.
struct RegisterFeatures {
  int namedPeak = 0;  // the most named values live at once
  int loadsPeak = 0;  // the most distinct loaded values of one straight-line stretch
  int pressure = 0;   // the largest named + loaded (at most 24) at one statement
};

/// The linear fit (above).
struct RegisterFit {
  std::map<std::string, double> intercept;  // per family (kernel_figures.h, familyText)
  double perPressure = 0;
};
/// ptxas for sm_90, fitted by scripts/register_fit.py (docs/model.md gives its error).
RegisterFit sm90RegisterFit();

struct RegisterEstimate {
  RegisterFeatures features;
  int cap = 255;      // the kernel's register cap: launch bounds or __maxnreg__
  int registers = 0;  // the estimate, within [16, cap]
};

/// The features of `kernel` (a Linkage::Kernel function of a device module).
RegisterFeatures registerFeatures(const lir::Function& kernel);

/// The register cap ptxas works under for `kernel` on a multiprocessor of `registersPerSm`
/// registers with at most `maxPerThread` per thread: __maxnreg__ where set, else the launch
/// bounds' registers per SM / (min blocks x threads rounded up to warps), rounded down to 8.
int registerCap(const lir::Function& kernel, int64_t registersPerSm, int maxPerThread);

/// The estimate for `kernel` of schedule family `family` under `fit` (a family the fit lacks
/// takes the mean of its intercepts).
RegisterEstimate estimateRegisters(const lir::Function& kernel, const std::string& family,
                                   const RegisterFit& fit, int64_t registersPerSm,
                                   int maxPerThread);

nlohmann::json registerEstimateJson(const RegisterEstimate& e);

}  // namespace tessel
