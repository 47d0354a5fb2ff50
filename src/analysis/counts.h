// Operation and traffic counts, stencil order and halos, dependences (for `tessel info`, for
// GFLOP/s reporting and, later, the performance model).
//
// FLOP counting rule (documented in docs/user-guide.md): per statement, 1 for each binary
// + - * / % ^ whose result type is floating, 1 for each math-function call (select is not one),
// 0 for unary minus and comparisons, and 1 more for a compound assignment to a floating
// left-hand side. Initialised locals are not counted. A stencil's FLOPs per point is the sum
// over its statements.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/regions.h"
#include "ir/program.h"

namespace tessel {

int stmtFlops(const Stmt& s);
int callFlopsPerPoint(const CallInst& c);

/// Halo of one array in one call: the extreme read offsets per dimension (iterator order).
struct ArrayHalo {
  std::string name;
  std::vector<int64_t> lo, hi;  // most negative / most positive offset per iterator (<=0, >=0)
};

struct CallShape {
  int order = 0;                           // max |offset| of any read
  std::vector<ArrayHalo> halos;            // per array read at an offset, in first-use order
  int64_t bytesPerPoint = 0;               // compulsory global traffic: each global array read or
                                           // written counted once per point (element size each way)
  std::vector<std::string> reads, writes;  // global arrays, first-use order
};

CallShape callShape(const Program& prog, const CallInst& c);

/// A dependence between two statements of a call, or between two calls.
struct Dependence {
  int from, to;
  std::string kind;  // "RAW", "WAR", "WAW"
  std::string via;   // the array or scalar
};

std::vector<Dependence> statementDependences(const Program& prog, const CallInst& c);
/// The dependences between calls, in program order (one iteration of each loop): the nearest
/// ones, each read on the last call that wrote the array (RAW), each write on the last writer
/// (WAW) and on the calls that read the array since it (WAR); the others follow through them.
std::vector<Dependence> callDependences(const Program& prog);

/// Work of one run of the whole program at given parameter values.
struct Work {
  double stencilPoints = 0;  // sum over executed calls of the call domain's points
  double flops = 0;          // sum over executed statements of flops * region points
  int64_t callsExecuted = 0;
  /// Per call (Program::calls order) and statement: its points summed over every execution of
  /// the call in one run (the point-updates a kernel computing it performs).
  std::vector<std::vector<double>> updates;
  /// Per call: how many times it executes in one run.
  std::vector<double> executions;
};

Work programWork(const Program& prog, const ParamValues& params);
/// The same from the calls' regions already analysed (Program::calls order; the model's path,
/// schedule/resolve.h's ResolvedSchedule::regions).
Work programWork(const Program& prog, const ParamValues& params,
                 const std::vector<CallRegions>& regions);

}  // namespace tessel
