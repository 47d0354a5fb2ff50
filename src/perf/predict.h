// Predicted time of a kernel and of a program: a roofline over the traffic counts (traffic.h)
// and the machine's ceilings, with the wave efficiency of the launch, divided by the machine's
// calibration factor for the kernel's schedule family where the machine file has one (fitted on
// measured times, docs/model.md), and the bottleneck with ARTEMIS's hints (paper 000, section
// IV, made static). A prediction, never a measurement; docs/model.md says what it leaves out.
//
// Per point-update, each level's time is its bytes over its bandwidth, compute's the executed
// FLOPs over the peak of the kernel's precision; the kernel's roofline time is the largest of
// these (the bound), divided by the wave efficiency W / ceil(W), W = blocks / (SMs x resident
// blocks per SM; a launch of less than one wave: the share of SMs given a block). Bandwidths: DRAM
// the measured copy bandwidth where the machine file has one, else the datasheet's; shared memory
// and (from 7.0, the unified L1) L1 SMs x 128 bytes per clock where the file has a clock; L2 the
// file's figure. A level without a bandwidth is listed as unknown and cannot be the bound.
//
// The latency bound (Little's law; model-notes.md section 3.5): a thread waits, per round of
// work (the whole kernel, or one plane of a sweep), one DRAM round trip for its loads and one
// barrier latency per barrier it passes, and the resident threads overlap these waits, so
//   seconds per update >= (DRAM latency + barriers per round x barrier latency)
//                         / (resident threads x updates per thread and round).
// Resident threads are the launch's blocks, at most SMs x resident blocks per SM, times the
// block's threads; a thread's updates per round are its block's output points (per plane when it
// sweeps) times the fused steps over the block's threads. Only threads with work count, each with
// a round's updates at least: where the launch performs fewer point-updates (its points times the
// fused steps) than the resident threads do in one round, the resident threads are the launch's
// updates over a thread's (a domain of one point: one thread, one update, a round trip per
// update). Where the machine file has no latencies the bound is unknown and left out.
#pragma once

#include <string>
#include <vector>

#include "analysis/counts.h"
#include "model/machine.h"
#include "perf/kernel_figures.h"

namespace tessel {

struct LevelTime {
  std::string level;       // "compute", "DRAM", "L2", "L1", "shared memory"
  double amount = 0;       // FLOPs or bytes per point-update
  double rate = 0;         // FLOP/s or bytes/s; 0: unknown for this machine
  double seconds = 0;      // per point-update
  double intensity = 0;    // FLOPs per byte at this level (0 for compute)
  double ridge = 0;        // the machine's FLOPs per byte where this level meets compute
  std::string rateSource;  // "measured copy bandwidth", "datasheet", "derived: ..."
};

/// The latency bound of one kernel (above).
struct LatencyBound {
  int64_t residentThreads = 0;  // threads resident at once over the GPU, with work
  double updatesPerThread = 0;  // point-updates per thread and round
  int barriersPerRound = 0;     // barriers per round
  double roundSeconds = 0;      // DRAM latency + barriers x barrier latency; 0: unknown
  double seconds = 0;           // per point-update; 0: unknown
  std::string source;           // where the latencies come from
};

/// The model's choice of a schedule (driver/analyze.h, chooseSchedule) takes a candidate over
/// the one it holds only when the candidate's predicted time is shorter by more than this share:
/// the model does not resolve differences of a few percent (a fuller last wave, say), so near-ties
/// keep the earlier candidate.
inline constexpr double kChoiceMargin = 0.05;

struct Prediction {
  std::vector<LevelTime> levels;
  LatencyBound latency;
  std::string bound;          // the level with the largest time, or "latency"
  double waveEfficiency = 1;  // W / ceil(W)
  int64_t blocks = 0;         // per launch
  /// The machine's calibration factor for the kernel's family (measured over predicted
  /// throughput; 1 where the machine file has none).
  double calibration = 1;
  bool calibrated = false;
  double bandwidthSecondsPerUpdate = 0;  // the largest of the levels' times / wave efficiency
  double rooflineSecondsPerUpdate = 0;   // that, or the latency bound's time where larger
  double secondsPerUpdate = 0;           // the roofline's time / the calibration factor
  double updates = 0;                    // point-updates this kernel performs per run
  double seconds = 0;                    // per run: secondsPerUpdate x updates
  std::vector<std::string> hints;

  double gstencilsPerSecond() const { return secondsPerUpdate > 0 ? 1e-9 / secondsPerUpdate : 0; }
};

/// What the program around a kernel leaves open, for its hints: a run of one call has no time
/// steps to fuse; a call of several statements has statements to fuse.
struct HintContext {
  bool oneStep = false;           // the run executes one call: no time steps to fuse
  bool statementsToFuse = false;  // the kernel's call has several statements
  bool leftover = false;  // a per-statement kernel of a call whose other executions are fused
};

/// The prediction for kernel `r` on `m`, launched over `blocks` blocks that perform
/// `launchUpdates` point-updates per launch (0: not known, no limit on the resident threads),
/// performing `updates` point-updates per run.
Prediction predictKernel(const KernelReport& r, const MachineDesc& m, int64_t blocks,
                         double launchUpdates, double updates, const HintContext& context = {});

struct ProgramPrediction {
  std::vector<Prediction> kernels;  // one per report, in launch order
  double seconds = 0;               // one run at the parameter values
  double rooflineSeconds = 0;       // the same without the calibration factors
  bool calibrated = false;          // every kernel had a calibration factor
  double updates = 0;               // the program's stencil points per run (Work::stencilPoints)
  double gstencilsPerSecond() const { return seconds > 0 ? updates / seconds * 1e-9 : 0; }
  double rooflineGstencilsPerSecond() const {
    return rooflineSeconds > 0 ? updates / rooflineSeconds * 1e-9 : 0;
  }
};

/// Every kernel of `reports` (the lowering of `prog` under `resolved`) predicted at parameter
/// values `params`: each statement's points over the run go to the kernel that computes it (a
/// per-statement kernel's point-update is one point of its statement); each fused launch's
/// points to the fused kernel of its phase (whose point-update is one point of a call at one
/// step), over the blocks of the host code's grid; a group's S mod T remaining steps to the
/// per-statement kernels that run them. The program's GStencil/s counts stencil points: a
/// call's domain points per execution.
ProgramPrediction predictProgram(const Program& prog, const ResolvedSchedule& resolved,
                                 const std::vector<KernelReport>& reports, const MachineDesc& m,
                                 const ParamValues& params);

}  // namespace tessel
