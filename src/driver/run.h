// `tessel run`: bind parameters, prepare data, run a backend, verify, report.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>

#include "ir/program.h"
#include "runtime/state.h"
#include "support/diagnostics.h"

namespace tessel {

/// What `run --tuned` runs: the tuning database's fastest variant for the program (tune.h).
struct TunedRun {
  std::string fusion;    // the --fusion-groups value ("none": as written)
  std::string schedule;  // its schedule flags as text
  double seconds = 0;    // what tune measured
  std::string measuredAt;
  std::string db;  // the database's file
};

struct RunOptions {
  std::map<std::string, int64_t> params;
  std::map<std::string, double> scalars;
  std::map<std::string, std::string> inputs;  // array name -> .npy path
  std::string outputDir;                      // write copyout arrays as NAME.npy
  bool verify = false;
  int repeat = 1;
  uint64_t seed = 1;
  bool json = false;      // print the report as JSON (time_s, gstencils_per_s, verification, ...)
  double tolerance = -1;  // < 0: the default for each array's type (1e-12 double, 1e-5 float)
  /// The kernels contract multiply-adds (--fma) or reassociate sums (--retime): the default
  /// tolerance is contractedTolerance.
  bool contracted = false;
  /// The program as written when `prog` is a transformation of it (fusion groups,
  /// analysis/regroup.h: the same arrays first, temporaries after): --verify interprets this
  /// one, on the same inputs, and its results are the arrays compared and written.
  const Program* reference = nullptr;
  /// --verify's reference result, kept by a caller that verifies several variants of one
  /// program (as written) at the same parameters, seed, scalars and inputs (`tessel tune`):
  /// empty, the first verification fills it; filled, the interpreter does not run again.
  std::optional<ProgramState>* referenceCache = nullptr;
  /// `run --tuned`: the variant run, for the JSON report (`tuned`).
  std::optional<TunedRun> tuned;
};

/// --verify's default tolerance for results computed with fused multiply-adds (--fma): 1e-10
/// (double), 1e-4 (float); one rounding fewer per a*b+c moves results by about an ulp per
/// operation, which a stencil's cancellations (a Laplacian's a - 2b + c) magnify.
double contractedTolerance(ScalarType t);

/// Exit statuses of the command line.
enum ExitCode { kExitOk = 0, kExitUserError = 1, kExitVerifyFailed = 2, kExitInternal = 3 };

class Backend;

/// Runs the program on `backend` and prints the report to `out`. User errors go to `diags`.
/// Returns an ExitCode.
int runProgram(const Program& prog, const RunOptions& opts, Backend& backend,
               DiagnosticEngine& diags, std::ostream& out);

}  // namespace tessel
