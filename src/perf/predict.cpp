// The roofline prediction of kernels and programs (predict.h).
#include "perf/predict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/regions.h"

namespace tessel {

namespace {

/// Shared memory (and, from compute capability 7.0, the unified L1) moves 128 bytes per clock
/// per SM: 32 banks of 4 bytes (CUDA C++ Programming Guide, "Shared Memory"). Kepler (compute
/// capability 3.x) has 8-byte banks for 64-bit accesses: 256 bytes per clock for double
/// precision (NVIDIA Kepler GK110 whitepaper: "shared memory bandwidth for 64b and larger load
/// operations is doubled compared to Fermi, to 256B per core clock").
double sharedBytesPerClock(const MachineDesc& m, bool fp64) {
  return m.compute.ccMajor == 3 && fp64 ? 256 : 128;
}

/// `level` with its time, intensity and ridge filled in from its amount and rate.
LevelTime level(std::string name, double amount, double rate, std::string source, double flops,
                double peak) {
  LevelTime l{std::move(name), amount, rate, 0, 0, 0, std::move(source)};
  if (rate > 0) l.seconds = amount / rate;
  if (l.level != "compute" && amount > 0) l.intensity = flops / amount;
  if (l.level != "compute" && rate > 0) l.ridge = peak / rate;
  return l;
}

/// ARTEMIS's hints (paper 000, section IV), each with the figures that triggered it.
std::vector<std::string> hintsFor(const KernelReport& r, const Prediction& p,
                                  const LevelTime& bound, const HintContext& context) {
  std::vector<std::string> out;
  // Latency-bound: the remedies its figures leave open, first; the bandwidth level's hint then
  // says what binds once the latency is hidden.
  std::string lead;
  if (p.bound == "latency") {
    std::vector<std::string> remedies;
    if (r.occupancy && r.occupancy->fraction < 1) {
      // Limited by registers under the launch bounds: the model's register cap (measured
      // 1.07x to 2.27x faster where it chose one on an H200, docs/performance.md).
      const bool capIt = (r.occupancy->limitedBy & kLimitRegisters) && r.info.maxRegisters == 0;
      remedies.push_back(fmt::format(
          "raise the occupancy ({:.0f}%, limited by {}{})", 100 * r.occupancy->fraction,
          r.occupancy->limitText(),
          capIt ? ": on CUDA, --max-registers auto caps them where the model predicts a gain"
                : ""));
    }
    if (p.latency.barriersPerRound > 0)
      remedies.push_back(
          fmt::format("pass fewer than {} barriers per round", p.latency.barriersPerRound));
    remedies.push_back("give each thread more updates per round (unrolling, more fused steps)");
    out.push_back(
        fmt::format("latency-bound ({}): {}", p.latency.source, fmt::join(remedies, "; ")));
    lead = "behind the latency bound, ";
  }
  const bool fused = !r.info.fusedCalls.empty();
  const bool global =
      r.info.family == ScheduleFamily::Global || r.info.family == ScheduleFamily::GlobalStream;
  auto oi = [&](const LevelTime& l) {
    return fmt::format("{:.3g} FLOP/B against a ridge of {:.3g}", l.intensity, l.ridge);
  };
  if (bound.level == "DRAM" && !fused && !context.oneStep && !context.leftover)
    out.push_back(lead + fmt::format("DRAM-bound ({}): fuse time steps (--schedule overlapped, or "
                                     "stream --time-tile T) to divide DRAM traffic by T",
                                     oi(bound)));
  // The calls left over after the last full time tile run per statement (the schedule fuses
  // the others already).
  if (bound.level == "DRAM" && !fused && context.leftover)
    out.push_back(lead + fmt::format("DRAM-bound ({}): it runs the calls left over after the last "
                                     "full time tile, per statement; a time tile that divides "
                                     "the run's steps fuses them too",
                                     oi(bound)));
  // A run of one call has no time steps to fuse: what is left is fusing its statements.
  if (bound.level == "DRAM" && !fused && context.oneStep)
    out.push_back(lead +
                  fmt::format("DRAM-bound ({}) in a run of one call (no time steps to fuse): {}",
                              oi(bound),
                              context.statementsToFuse && r.info.fusedStmts.empty()
                                  ? "fuse the call's statements so that their intermediates "
                                    "stay on chip (--fuse-statements: under global where no "
                                    "statement reads another's result at an offset, under stream "
                                    "all of them; or --fusion-groups)"
                                  : "its DRAM traffic is the compulsory reads and writes"));
  if (bound.level == "DRAM" && fused && r.traffic.steps > 1)
    out.push_back(lead + fmt::format("DRAM-bound ({}) at {} fused steps: more steps would cut DRAM "
                                     "traffic further, at the cost of more redundant work",
                                     oi(bound), r.traffic.steps));
  if (bound.level == "DRAM" && fused && r.traffic.steps <= 1)
    out.push_back(
        lead +
        fmt::format("DRAM-bound ({}) with its statements fused in one kernel: where the "
                    "program iterates, a time tile above 1 would divide DRAM traffic further",
                    oi(bound)));
  if (bound.level == "L1" && global)
    out.push_back(lead +
                  fmt::format("bound by load instructions ({}): every thread loads each of "
                              "its taps; stage the reused values on chip (--schedule shared or "
                              "stream)",
                              oi(bound)));
  if (bound.level == "shared memory") {
    // ARTEMIS's register optimisations where shared memory binds: streaming (its planes in
    // registers), then retiming (a plane's neighbourhood read once for every output around it;
    // j3d27pt's 27 shared loads per point become 9).
    const std::string how =
        r.info.streamIter < 0
            ? "keep more values in registers (--schedule stream keeps the planes along the "
              "swept dimension there; --retime then reads each plane's neighbourhood once)"
        : r.info.retimed == 0
            ? "retime it (--retime: each plane's neighbourhood read once for all the outputs "
              "around it, where `tessel info` says the statement is retimable)"
            : "it is retimed already: a larger block (fewer halo loads per point) or fewer "
              "fused steps";
    out.push_back(lead + fmt::format("shared-memory-bound ({}): {}", oi(bound), how));
  }
  if (bound.level == "compute" && r.redundancyPercent > 25)
    out.push_back(lead + fmt::format("compute-bound with {:.0f}% of the computed points redundant: "
                                     "fuse fewer steps or stream one dimension "
                                     "(--schedule stream --time-tile T)",
                                     r.redundancyPercent));
  // Values an overlapped kernel could compute in their readers' loops (gpu.md section 11), where
  // shared memory or its barriers are what bind.
  const bool sharedBinds =
      p.bound == "latency" || bound.level == "shared memory" ||
      (r.occupancy && r.occupancy->fraction < 1 && (r.occupancy->limitedBy & kLimitSharedMemory));
  if (!r.info.registerCandidates.empty() && sharedBinds)
    out.push_back(fmt::format(
        "{} read once, at the centre, by one later stage: --register-values on computes them in "
        "that stage's loop, in registers ({} B of shared memory fewer, and their stages' "
        "barriers)",
        r.info.registerCandidates, r.info.registerCandidateBytes));
  if (r.occupancy && !r.occupancyBound() && r.occupancy->fraction < 0.25)
    out.push_back(fmt::format(
        "occupancy {:.0f}% ({} blocks per SM, limited by {}): too few "
        "warps to hide memory latency; the prediction is optimistic",
        100 * r.occupancy->fraction, r.occupancy->blocksPerSm, r.occupancy->limitText()));
  const int64_t spilled = r.ptxas ? r.ptxas->spillStores + r.ptxas->spillLoads : 0;
  if (spilled > 0)
    out.push_back(fmt::format("{} B of register spills: unroll less or split the kernel", spilled));
  // ARTEMIS's first hint (paper 000 IV): unrolling off under register pressure. Each unrolled
  // point keeps its own values in registers; where they limit the occupancy, the unrolling is
  // what to give back first (ptxas's registers, else the estimate, says which).
  const int points = r.info.unroll[0] * r.info.unroll[1] * r.info.unroll[2];
  if (points > 1 && spilled == 0 && r.occupancy && !r.occupancyBound() &&
      (r.occupancy->limitedBy & kLimitRegisters) && r.occupancy->fraction < 1)
    out.push_back(fmt::format(
        "register pressure under unrolling ({} points per thread, {} registers{}: occupancy "
        "{:.0f}%, limited by registers): unroll less (--unroll), or cap the registers "
        "(--max-registers)",
        points, r.registers(), r.ptxas ? " (ptxas)" : " (estimated)", 100 * r.occupancy->fraction));
  if (p.waveEfficiency < 0.75) {
    // Under global-stream a thread sweeps its whole column: the launch has the blocks of the
    // other dimensions only (a 2-D program's one). Measured on an H200: 12x to 21x slower than
    // `global` on the 2-D benchmarks (docs/performance.md).
    const bool sweeps = r.info.family == ScheduleFamily::GlobalStream;
    out.push_back(fmt::format(
        "{} blocks fill {:.0f}% of the last wave: {}", p.blocks, 100 * p.waveEfficiency,
        sweeps ? "global-stream gives each thread a whole column of the streamed dimension, so "
                 "only the other dimensions make blocks; --schedule stream (chunked) or global "
                 "spreads the work over more blocks"
               : "a smaller tile or a larger problem evens the waves"));
  }
  return out;
}

/// The latency bound of kernel `r` over `blocks` blocks (predict.h): Little's law over the
/// resident threads, a round being the whole kernel or, for a kernel that sweeps a dimension,
/// one plane.
LatencyBound latencyBound(const KernelReport& r, const MachineDesc& m, int64_t blocks,
                          double launchUpdates) {
  const GpuKernelInfo& k = r.info;
  LatencyBound b;
  const int64_t threads = static_cast<int64_t>(k.block[0]) * k.block[1] * k.block[2];
  const int perSm = r.occupancy ? std::max(1, r.occupancy->blocksPerSm) : 1;
  b.residentThreads =
      std::min<int64_t>(std::max<int64_t>(blocks, 1), int64_t{m.compute.sms} * perSm) * threads;
  const bool sweeps = k.streamIter >= 0;
  if (!k.fusedCalls.empty()) {
    double points = 1;  // the output tile's points per block (per plane when it sweeps)
    for (size_t d = 0; d < k.tile.size(); ++d)
      if (static_cast<int>(d) != k.streamIter) points *= static_cast<double>(k.tile[d]);
    b.updatesPerThread = points * std::max(1, r.traffic.steps) / static_cast<double>(threads);
  } else {
    b.updatesPerThread = static_cast<double>(k.unroll[0]) * k.unroll[1] * k.unroll[2];
  }
  // Only the threads with work wait, and each of them performs a round's updates at least: a
  // launch of fewer point-updates than its resident threads perform in one round (a domain of a
  // few points) has at most its updates over a thread's (a thread per point, at least one).
  bool fewer = false;
  if (launchUpdates > 0 && b.updatesPerThread > 0) {
    const int64_t working =
        std::max<int64_t>(1, static_cast<int64_t>(std::ceil(launchUpdates / b.updatesPerThread)));
    if (working < b.residentThreads) {
      fewer = true;
      b.residentThreads = working;
      b.updatesPerThread =
          std::min(b.updatesPerThread, launchUpdates / static_cast<double>(working));
    }
  }
  b.barriersPerRound = sweeps ? r.barriersPerPlane : r.barriersOnce;
  // Both latencies make the bound; say which the machine file lacks.
  if (!m.memory.dramLatency && !m.memory.barrierLatency) {
    b.source = "unknown (no DRAM and barrier latencies in the machine file)";
    return b;
  }
  if (!m.memory.dramLatency || !m.memory.barrierLatency) {
    b.source = m.memory.dramLatency
                   ? "unknown (no barrier latency in the machine file: barrier_latency_s is null)"
                   : "unknown (no DRAM latency in the machine file: dram_latency_s is null)";
    return b;
  }
  b.roundSeconds = *m.memory.dramLatency + b.barriersPerRound * *m.memory.barrierLatency;
  b.seconds = b.roundSeconds / (static_cast<double>(b.residentThreads) * b.updatesPerThread);
  b.source = fmt::format(
      "{} resident threads{} x {:.3g} update(s) per round of {:.3g} ns (DRAM {:.3g} ns + {} "
      "barrier(s) x {:.3g} ns)",
      b.residentThreads,
      fewer ? fmt::format(" with work (the launch's {:.3g} point-update(s))", launchUpdates)
            : std::string(),
      b.updatesPerThread, b.roundSeconds * 1e9, *m.memory.dramLatency * 1e9, b.barriersPerRound,
      *m.memory.barrierLatency * 1e9);
  return b;
}

}  // namespace

Prediction predictKernel(const KernelReport& r, const MachineDesc& m, int64_t blocks,
                         double launchUpdates, double updates, const HintContext& context) {
  const Traffic& t = r.traffic;
  const double peak = t.fp64 ? m.compute.peakFp64 : m.compute.peakFp32;
  Prediction p;
  p.blocks = blocks;
  p.updates = updates;
  p.levels.push_back(level("compute", t.flops, peak,
                           t.fp64 ? "FP64 peak (datasheet)" : "FP32 peak (datasheet)", t.flops,
                           peak));
  const bool measured = m.memory.measuredDramBandwidth.has_value();
  p.levels.push_back(level("DRAM", t.dramBytes,
                           measured ? *m.memory.measuredDramBandwidth : m.memory.dramBandwidth,
                           measured ? "measured copy bandwidth" : "datasheet", t.flops, peak));
  p.levels.push_back(level("L2", t.l2Bytes, m.memory.l2Bandwidth.value_or(0),
                           m.memory.l2Bandwidth ? "machine file" : "unknown (no published figure)",
                           t.flops, peak));
  const double perClock = sharedBytesPerClock(m, t.fp64);
  const double onChip =
      m.compute.smClock ? static_cast<double>(m.compute.sms) * perClock * *m.compute.smClock : 0;
  const std::string derived = m.compute.smClock
                                  ? fmt::format("derived: {} SMs x {} B x {:.3g} GHz",
                                                m.compute.sms, perClock, *m.compute.smClock / 1e9)
                                  : std::string("unknown (no clock in the machine file)");
  // Register spills (ptxas's figures): local memory, through L1. An estimate: each byte of
  // ptxas's spill stores and loads moves once per point a thread computes (per copy of an
  // unrolled thread's points, per fused step).
  const int copies = std::max(1, r.info.unroll[0] * r.info.unroll[1] * r.info.unroll[2]);
  const double spill = r.ptxas ? static_cast<double>(r.ptxas->spillStores + r.ptxas->spillLoads) /
                                     copies / std::max(1, t.steps)
                               : 0.0;
  std::string l1Source = m.compute.ccMajor >= 7 ? derived : "unknown (before the unified L1)";
  if (spill > 0)
    l1Source +=
        fmt::format("; {:.3g} B of it register spills (ptxas's bytes, once per point)", spill);
  p.levels.push_back(
      level("L1", t.l1Bytes + spill, m.compute.ccMajor >= 7 ? onChip : 0, l1Source, t.flops, peak));
  p.levels.push_back(level("shared memory", t.sharedBytes, onChip, derived, t.flops, peak));
  const LevelTime* bound = &p.levels.front();
  for (const LevelTime& l : p.levels)
    if (l.seconds > bound->seconds) bound = &l;
  p.bound = bound->level;
  // Waves: the blocks resident at once on every SM.
  const int perSm = r.occupancy ? r.occupancy->blocksPerSm : 1;
  const double slots = static_cast<double>(m.compute.sms) * std::max(1, perSm);
  const double waves = static_cast<double>(std::max<int64_t>(blocks, 1)) / slots;
  // A launch of less than one wave runs every block at once: its SMs are all busy once there
  // are as many blocks as SMs (fewer warps per SM is the latency bound's business, not the
  // wave's); with fewer blocks than SMs the rest idle.
  p.waveEfficiency =
      waves >= 1 ? waves / std::ceil(waves)
                 : std::min(1.0, static_cast<double>(std::max<int64_t>(blocks, 1)) / m.compute.sms);
  p.bandwidthSecondsPerUpdate = bound->seconds / p.waveEfficiency;
  p.rooflineSecondsPerUpdate = p.bandwidthSecondsPerUpdate;
  p.latency = latencyBound(r, m, blocks, launchUpdates);
  if (p.latency.seconds > p.rooflineSecondsPerUpdate) {
    p.rooflineSecondsPerUpdate = p.latency.seconds;
    p.bound = "latency";
  }
  auto factor = m.calibration.find(familyText(r.info));
  p.calibrated = factor != m.calibration.end();
  if (p.calibrated) p.calibration = factor->second;
  p.secondsPerUpdate = p.rooflineSecondsPerUpdate / p.calibration;
  p.seconds = p.secondsPerUpdate * updates;
  // A kernel that runs no point-update at these parameter values (the calls a time tile fuses
  // all) costs nothing to improve: no hints.
  if (updates > 0) p.hints = hintsFor(r, p, *bound, context);
  return p;
}

namespace {

/// Blocks of one launch of kernel `k` over `box` (its statement's iteration points).
int64_t launchBlocks(const GpuKernelInfo& k, const Box& box) {
  if (box.empty) return 0;
  auto extent = [&](int d) {
    return box.hi[static_cast<size_t>(d)] - box.lo[static_cast<size_t>(d)] + 1;
  };
  int64_t blocks = 1;
  if (!k.fusedCalls.empty()) {
    for (size_t d = 0; d < k.tile.size(); ++d)
      if (static_cast<int>(d) != k.streamIter)
        blocks *= (extent(static_cast<int>(d)) + k.tile[d] - 1) / k.tile[d];
  } else {
    for (size_t gd = 0; gd < k.gridIters.size(); ++gd) {
      const int64_t tile = k.tileAlong(gd);
      blocks *= (extent(k.gridIters[gd]) + tile - 1) / tile;
    }
  }
  if (k.streamIter >= 0 && k.chunk > 0) blocks *= (extent(k.streamIter) + k.chunk - 1) / k.chunk;
  return blocks;
}

/// The point-updates one launch over `box` performs: its points times the fused steps.
double launchUpdates(const Box& box, int steps) {
  if (box.empty) return 0;
  double points = std::max(1, steps);
  for (size_t d = 0; d < box.lo.size(); ++d)
    points *= static_cast<double>(box.hi[d] - box.lo[d] + 1);
  return points;
}

}  // namespace

ProgramPrediction predictProgram(const Program& prog, const ResolvedSchedule& resolved,
                                 const std::vector<KernelReport>& reports, const MachineDesc& m,
                                 const ParamValues& params) {
  const std::vector<CallRegions>& regions = resolved.regions;
  const Work work = programWork(prog, params, regions);
  // A fused kernel's point-update is one point of a call (all its statements) at one step: a
  // call's updates per execution are those of its statement that covers the most points.
  auto perExecution = [&](int c) {
    double u = 0;
    for (double x : work.updates.at(static_cast<size_t>(c))) u = std::max(u, x);
    const double runs = work.executions.at(static_cast<size_t>(c));
    return runs > 0 ? u / runs : 0.0;
  };
  // Per fused group (schedule/resolve.h, FusionGroup): an iterate group's S = n x iterations
  // steps run as floor(S/T) fused launches of T steps, launch g starting at body position
  // (g T) mod n, and the S mod T others per statement; a straight run of k calls the same with
  // S = k, fused whole in one launch when k < T. Per call, the share of its executions that run
  // fused; per variant, the updates its launches perform in one run.
  std::map<int, double> fusedShare;
  std::map<const FusedVariant*, double> variantUpdates;
  for (const FusionGroup& g : resolved.groups) {
    if (g.variants.empty() || g.body.empty()) continue;
    const int64_t n = static_cast<int64_t>(g.body.size());
    const int64_t iterations = g.iterate
                                   ? std::max<int64_t>(0, evalInt(g.iterate->hi, params) -
                                                              evalInt(g.iterate->lo, params) + 1)
                                   : 1;
    const int64_t steps = n * iterations, t = g.timeTile;
    if (steps <= 0) continue;
    const int64_t launches = steps < t ? 1 : steps / t;
    const double share = steps < t ? 1 : static_cast<double>(launches * t) / steps;
    for (int c : g.body) fusedShare[c] = share;
    // How often the group is entered in one run (inside other loops).
    const double entries =
        work.executions.at(static_cast<size_t>(g.body.front())) / static_cast<double>(iterations);
    for (int64_t l = 0; l < launches; ++l) {
      const FusedVariant* v = g.variant(static_cast<int>((l * t) % n));
      if (!v) continue;
      for (int c : v->seq.calls) variantUpdates[v] += entries * perExecution(c);
    }
  }
  // The blocks of a fused launch: tiles over the extents of the arrays it writes back (the host
  // code's grid).
  auto fusedBox = [&](const FusedVariant& v) {
    Box box;
    box.lo.assign(static_cast<size_t>(prog.dims()), 0);
    box.hi.assign(static_cast<size_t>(prog.dims()), -1);
    const std::vector<int>& results = v.analysis.results;
    for (const TileStage& st : v.analysis.stages)
      if (st.writes.kind == TileValue::Kind::Global && !st.region.empty &&
          std::find(results.begin(), results.end(), st.writes.index) != results.end())
        for (int d = 0; d < prog.dims(); ++d)
          box.hi[static_cast<size_t>(d)] =
              std::max(box.hi[static_cast<size_t>(d)],
                       evalInt(prog.arrays.at(static_cast<size_t>(st.writes.index))
                                   .extents.at(static_cast<size_t>(d)),
                               params) -
                           1);
    box.empty = std::any_of(box.hi.begin(), box.hi.end(), [](int64_t h) { return h < 0; });
    return box;
  };
  ProgramPrediction out;
  out.updates = work.stencilPoints;
  out.calibrated = std::all_of(reports.begin(), reports.end(), [&](const KernelReport& r) {
    return m.calibration.count(familyText(r.info)) > 0;
  });
  for (const KernelReport& r : reports) {
    const GpuKernelInfo& k = r.info;
    double updates = 0;
    Box box;
    // A per-statement kernel's share of its call's executions that a time tile fuses (0: none).
    double fusedElsewhere = 0;
    if (k.fusedCalls.empty()) {
      if (auto fused = fusedShare.find(k.call); fused != fusedShare.end())
        fusedElsewhere = fused->second;
      // Fused statements (GpuKernelInfo::fusedStmts): the points of their largest region.
      size_t widest = static_cast<size_t>(k.stmt);
      for (size_t s : k.fusedStmts)
        if (work.updates.at(static_cast<size_t>(k.call)).at(s) >
            work.updates.at(static_cast<size_t>(k.call)).at(widest))
          widest = s;
      updates = work.updates.at(static_cast<size_t>(k.call)).at(widest) * (1 - fusedElsewhere);
      box = evalIter(regions.at(static_cast<size_t>(k.call)).stmts.at(widest), params);
    } else {
      for (const FusionGroup& g : resolved.groups)
        for (const FusedVariant& v : g.variants)
          if (v.seq.calls == k.fusedCalls && v.tile == k.tile) {
            auto u = variantUpdates.find(&v);
            updates = u == variantUpdates.end() ? 0 : u->second;
            box = fusedBox(v);
          }
    }
    HintContext context;
    context.oneStep = work.callsExecuted <= 1;
    context.leftover = fusedElsewhere > 0;
    context.statementsToFuse = prog.calls.at(static_cast<size_t>(k.call)).stmts.size() > 1;
    out.kernels.push_back(predictKernel(r, m, launchBlocks(k, box),
                                        launchUpdates(box, r.traffic.steps), updates, context));
    out.seconds += out.kernels.back().seconds;
    out.rooflineSeconds += out.kernels.back().rooflineSecondsPerUpdate * updates;
  }
  return out;
}

}  // namespace tessel
