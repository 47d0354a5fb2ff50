// The `tessel` command line: check, info, emit, run, resources.
//
// Exit statuses: 0 success, 1 user error (bad program or options), 2 verification failure,
// 3 internal error (a bug in Tessel).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <regex>

#include "analysis/bounds.h"
#include "analysis/dag.h"
#include "analysis/greedy_fusion.h"
#include "analysis/regroup.h"
#include "driver/analyze.h"
#include "driver/backend.h"
#include "driver/deep_tune.h"
#include "driver/emit.h"
#include "driver/fusion_choices.h"
#include "driver/fusion_groups.h"
#include "driver/fusion_plan.h"
#include "driver/info.h"
#include "driver/info_overlapped.h"
#include "driver/kernel_report.h"
#include "driver/load.h"
#include "driver/machines.h"
#include "driver/params.h"
#include "driver/register_cap.h"
#include "driver/resources.h"
#include "driver/roofline_svg.h"
#include "driver/run.h"
#include "driver/split.h"
#include "driver/tune.h"
#include "exec/build_util.h"
#include "exec/gpu_module.h"
#include "lower/lower.h"
#include "runtime/errors.h"
#include "schedule/resolve.h"
#include "support/pass_log.h"

namespace {

using namespace tessel;

// `NAME=VALUE` options into maps, with a clear error for a malformed one.
template <typename T, typename Parse>
bool parsePairs(const std::vector<std::string>& items, const char* opt,
                std::map<std::string, T>& out, Parse parse, DiagnosticEngine& diags) {
  for (auto& s : items) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      diags.report(DiagId::bad_parameter_value, {},
                   fmt::format("{} '{}': expected NAME=VALUE", opt, s));
      return false;
    }
    try {
      size_t used = 0;
      out[s.substr(0, eq)] = parse(s.substr(eq + 1), used);
      if (used != s.size() - eq - 1) throw std::invalid_argument("trailing characters");
    } catch (const std::exception&) {
      diags.report(DiagId::bad_parameter_value, {},
                   fmt::format("{} '{}': '{}' is not a valid value", opt, s, s.substr(eq + 1)));
      return false;
    }
  }
  return true;
}

const char* scheduleHelp(const std::string& flag) {
  if (flag == "--schedule")
    return "schedule family: global, global-stream, shared, stream or overlapped (GPU backends), "
           "or auto (the one the performance model ranks first)";
  if (flag == "--block") return "thread-block shape X[,Y[,Z]], e.g. 32,8";
  if (flag == "--stream") return "stream along this iterator, each block a chunk of planes";
  if (flag == "--full-stream") return "stream along this iterator, one block sweeps it all";
  if (flag == "--unroll") return "points per thread, e.g. j=2,i=1[,blocked|cyclic]";
  if (flag == "--time-tile") return "time steps fused per kernel";
  if (flag == "--chunk") return "planes per block of a chunked stream (stream family), default 16";
  if (flag == "--dead-stores")
    return "fused kernels (overlapped, stream + time_tile): drop (the default) leaves out the "
           "write-back of arrays no later kernel reads; keep writes every array back";
  if (flag == "--spare-plane")
    return "stream + time_tile, and stream --retime: on (the default) gives each input ring a "
           "spare plane, so that the next plane loads while the current ones are read (T "
           "barriers per plane instead of T + 1; retimed: 1 instead of 2); off saves that plane "
           "of shared memory. The default turns off by itself where the spare plane would not "
           "fit the machine";
  if (flag == "--register-values")
    return "overlapped family: on computes a local array or per-point scalar that one later "
           "statement reads, only at its centre, in that statement's loop, in a register (no "
           "shared tile, no barrier: STENCILGEN's placement rule); off (the default, the kernels "
           "the model is calibrated on) gives every value a shared tile";
  if (flag == "--index-bits")
    return "width of the kernels' index arithmetic: auto (the default: 32 bits where the sizes "
           "of a run allow it, else a 64-bit copy of the kernel runs), 32 or 64";
  if (flag == "--max-registers")
    return "register cap per thread of the CUDA kernels (__maxnreg__ N instead of the launch "
           "bounds; 16 to the machine's 255, N x threads within a block's registers), auto: "
           "the cap the performance model chooses from ptxas's figures (needs nvcc; the default "
           "of emit --target cuda, run --backend cuda and resources), or bounds: the family's "
           "launch bounds";
  if (flag == "--retime")
    return "stream (also with --time-tile) and global-stream families: each statement's kernel "
           "(or fused stage) retimes its sum (the terms that read plane k+o accumulated while "
           "plane k+o is streamed in; paper 000 III-B2): 2r+1 accumulators per thread, each plane "
           "read once; results differ from the reference in the last bits (reassociated), so "
           "--verify uses the --fma tolerance";
  if (flag == "--prefetch")
    return "stream family (also with --time-tile): each thread loads its elements of the next "
           "shared plane into registers while the current plane is computed, and stores them "
           "when the sweep gets there (paper 000 III-A4): the loads' latency hides behind the "
           "computation";
  if (flag == "--perspective")
    return "shared family: output (the default: a block of threads per output tile, the halo "
           "loaded by loops), input (a thread per element of the input tile: each loads one, "
           "those of the halo compute nothing) or mixed (input along x, output along the others; "
           "paper 000 III-B3)";
  if (flag == "--fuse-statements")
    return "global family: a call's consecutive statements share one kernel (one thread per "
           "point runs them in order) where no thread reads or writes an element another "
           "thread writes, local scalars in registers instead of buffers over the call's box; "
           "stream family: each call of several statements is one streamed kernel, each "
           "statement a stage of the sweep (issue 13; tessel info --kernels shows the fused "
           "kernels)";
  if (flag == "--fold")
    return "shared and stream families (also with --time-tile): arrays a statement (or a fused "
           "kernel's statements) only ever combines point-wise (every access a[s] op b[s], the "
           "same subscripts) are staged as their combination, computed once per element as it "
           "is loaded (paper 000 III-B4): one array of shared memory or registers instead of "
           "two";
  if (flag == "--fma")
    return "contract a*b+c in the GPU kernels into fused multiply-adds (fma: one rounding, "
           "faster; results differ from the reference in the last bits, so --verify uses a "
           "tolerance of 1e-10 (double), 1e-4 (float)); default: the exact operations";
  if (flag == "--machine") return "machine description (machines/*.json), default h100";
  return "";
}

int finish(const DiagnosticEngine& diags, int code) {
  diags.print(std::cerr);
  if (code == kExitOk && diags.hasErrors()) return kExitUserError;
  return code;
}

/// A number option's check, worded for a person (CLI11's PositiveNumber says "not in range 0 to
/// 1.8e308"): `positive` wants more than 0, else at least 0.
CLI::Validator numberAbove(bool positive) {
  return CLI::Validator(
      [positive](std::string& v) -> std::string {
        size_t used = 0;
        double x = 0;
        try {
          x = std::stod(v, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != v.size()) return "'" + v + "' is not a number";
        if (!std::isfinite(x)) return "'" + v + "' is not a finite number";
        if (positive ? x > 0 : x >= 0) return "";
        return "'" + v + (positive ? "' must be greater than 0" : "' must not be negative");
      },
      positive ? "POSITIVE" : "NONNEGATIVE");
}

/// A seed: a whole number from 0 to 2^64 - 1 (CLI11 would wrap -1 and larger numbers around).
CLI::Validator seedValue() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        const bool digits = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        });
        if (!digits) return "'" + v + "' is not a whole number from 0 to 18446744073709551615";
        try {
          (void)std::stoull(v);
        } catch (const std::exception&) {
          return "'" + v + "' is larger than 18446744073709551615";
        }
        return "";
      },
      "SEED");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Tessel: a compiler for stencil programs (ARTEMIS / STENCILGEN language)\n"
      "Exit statuses: 0 ok, 1 user error, 2 verification failure, 3 internal error."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tessel 0.1");

  std::string file;
  // check
  auto* check = app.add_subcommand("check", "Parse and check a program; print diagnostics only");
  check->add_option("FILE", file, "stencil program (.sten)")->required();
  std::vector<std::string> checkParams;
  check->add_option("--param", checkParams,
                    "NAME=VALUE parameter values for the bounds check (default: the defaults)");

  // info
  auto* info = app.add_subcommand("info", "Describe a program: arrays, stencils, regions, FLOPs");
  info->add_option("FILE", file, "stencil program (.sten)")->required();
  std::vector<std::string> infoParams;
  bool json = false;
  info->add_option("--param", infoParams, "NAME=VALUE to evaluate regions at");
  info->add_flag("--json", json, "print JSON instead of text");
  bool infoKernels = false, noPtxas = false;
  info->add_flag("--kernels", infoKernels,
                 "also report each GPU kernel (block, tile, footprint, shared memory, redundancy, "
                 "loads and stores per point, ptxas registers); implied by any schedule flag");
  info->add_flag("--no-ptxas", noPtxas, "with the kernel report: do not run nvcc for registers");
  bool infoDag = false;
  std::string dotFile;
  info->add_flag("--dag", infoDag,
                 "also print the stencil DAG: statements as nodes, flow, anti and output "
                 "dependences with their offsets (JSON: \"dag\")");
  info->add_option("--dot", dotFile,
                   "write the stencil DAG to this file in Graphviz's dot language (dot -Tsvg)");
  bool infoFusionPlan = false;
  GreedyFusionOptions fusionOpt;
  info->add_flag("--fusion-plan", infoFusionPlan,
                 "also print STENCILGEN's greedy resource-driven fusion of each call: the resource "
                 "maps, each fusion with its metrics, the kernels (JSON: \"fusion_plan\")");
  info->add_option("--fusion-rules", fusionOpt.rules,
                   "with --fusion-plan: the sort's rule order, a permutation of abcdefgh "
                   "(a: data movement first, the default; bcd...: resources first)")
      ->capture_default_str();
  info->add_option("--fusion-max-order", fusionOpt.maxOrder,
                   "with --fusion-plan: the highest stencil order a fused kernel may have "
                   "(default: max(4, the highest order of one statement))")
      ->check(numberAbove(false));
  info->add_option("--fusion-tile", fusionOpt.tile,
                   "with --fusion-plan: the block's tile in the plane, outer to inner (default 32 "
                   "each), for the shared buffers' size")
      ->delimiter(',')
      ->check(numberAbove(true))
      ->check(CLI::Range(1, 1 << 20));

  // emit
  auto* emit = app.add_subcommand("emit", "Write the generated code for a target");
  emit->add_option("FILE", file, "stencil program (.sten)")->required();
  EmitOptions eo;
  emit->add_option("--target", eo.target,
                   "code to generate: cpp (C++/OpenMP), cuda (kernels and host code in one .cu), "
                   "opencl (kernels .cl and host code .cpp)")
      ->capture_default_str()
      ->check(CLI::IsMember(emitTargets()));
  emit->add_option("-o,--output", eo.directory, "directory to write into")->required();
  // A CUDA architecture as nvcc spells it: sm_90, sm_80, compute_90, sm_90a (two or three
  // digits: sm_5 is none).
  const CLI::Validator cudaArch(
      [](std::string& s) {
        static const std::regex re("(sm|compute)_[1-9][0-9]{1,2}[a-z]?");
        return std::regex_match(s, re)
                   ? std::string()
                   : "'" + s + "' is not a CUDA architecture (expected e.g. sm_90 or sm_80)";
      },
      "ARCH");
  std::vector<std::string> emitParams;
  emit->add_option("--param", emitParams,
                   "NAME=VALUE: the parameter values the performance model chooses for (the "
                   "schedule, where a GPU target names none, and the CUDA register cap); the "
                   "generated code takes every parameter at run time (default: defaults)");
  CLI::Option* emitArch =
      emit->add_option("--arch", eo.cudaArch, "cuda: the CMakeLists' default GPU architecture")
          ->capture_default_str()
          ->check(cudaArch);

  // resources
  auto* res = app.add_subcommand(
      "resources",
      "Compile the program's CUDA with nvcc; print registers, shared and local memory and spills "
      "per kernel as ptxas reports them (needs nvcc, not a GPU)");
  res->add_option("FILE", file, "stencil program (.sten)")->required();
  std::string arch = "sm_90";
  bool resJson = false;
  res->add_option("--arch", arch, "GPU architecture for nvcc -arch")
      ->capture_default_str()
      ->check(cudaArch);
  res->add_flag("--json", resJson, "print JSON instead of a table");
  std::vector<std::string> resParams;
  res->add_option("--param", resParams,
                  "NAME=VALUE: the parameter values the model's register cap is chosen for "
                  "(default: defaults)");

  // analyze
  auto* analyze = app.add_subcommand(
      "analyze",
      "Predict each kernel's time on a machine with the performance model (a roofline with a "
      "latency bound, calibrated per family where the machine file has factors: a prediction, "
      "not a measurement): bound, traffic per level, occupancy, hints, the predicted effect of "
      "the optimisations given");
  analyze->add_option("FILE", file, "stencil program (.sten)")->required();
  AnalyzeOptions ao;
  std::vector<std::string> analyzeParams;
  bool analyzeJson = false, analyzeNoPtxas = false;
  analyze->add_option("--param", analyzeParams, "NAME=VALUE parameter value (default: defaults)");
  analyze->add_flag("--compare", ao.compare,
                    "also rank the schedule families and time tiles for the program");
  analyze->add_flag("--fusion-choices", ao.fusionChoices,
                    "also rank the program as written and its fission and fusion variants "
                    "(trivial-fission, maxfuse, recompute-fission, the greedy plan's groups) "
                    "under each of those schedules");
  analyze
      ->add_option("--measure", ao.measureBackend,
                   "with --fusion-choices: also run the first rows of the ranking on this "
                   "backend, each verified, and say which was fastest measured")
      ->check(CLI::IsMember({"cuda", "opencl", "cpp"}));
  analyze->add_option("--repeat", ao.repeat, "with --measure: timed runs per row (median)")
      ->check(numberAbove(true));
  analyze
      ->add_option("--measure-top", ao.measureTop,
                   "with --measure: how many rows of the ranking to run (default 5)")
      ->check(numberAbove(true));
  analyze->add_flag(
      "--defaults-effect", ao.defaultsEffect,
      "also predict the program with each kernel change Tessel applies by default turned off in "
      "turn (32-bit indices: --index-bits 64; dead stores left out: --dead-stores keep; a spare "
      "plane per input ring: --spare-plane off), where a kernel applies it and no flag sets it: "
      "one prediction more each (with ptxas, one nvcc run more each)");
  analyze->add_flag("--json", analyzeJson, "print JSON instead of text");
  analyze->add_flag("--no-ptxas", analyzeNoPtxas, "do not run nvcc for registers");
  std::string analyzePlot;
  analyze->add_option("--plot", analyzePlot,
                      "also write the kernels as a roofline chart (SVG) to this file");

  // deep-tune
  auto* deep = app.add_subcommand(
      "deep-tune",
      "Choose how many time steps each kernel fuses for a run of T steps (paper 000 VI-A): "
      "predict one kernel fusing 1, 2, ... steps while it stays bandwidth-bound, then the "
      "composition that runs T steps fastest, opt(T); predictions, and with --measure the "
      "versions' measured times on a backend");
  deep->add_option("FILE", file, "stencil program (.sten)")->required();
  DeepTuneOptions dto;
  std::vector<std::string> deepParams;
  bool deepJson = false;
  deep->add_option("--steps", dto.steps,
                   "time steps to compose (executions of calls; default: the run's, at the "
                   "parameter values)");
  deep->add_option("-o,--output", dto.outputDir,
                   "also write the composition as a program into this directory "
                   "(FILE-deep-tuned.sten: the run's calls unrolled, each part's time tile in "
                   "#pragma lines)");
  deep->add_option("--composition", dto.composition,
                   "with -o: write this composition (e.g. '4x1 + 3x3') instead of the chosen one");
  deep->add_option("--max-fuse", dto.maxFuse, "the most steps one kernel fuses (default 8)");
  deep->add_option("--param", deepParams, "NAME=VALUE parameter value (default: defaults)");
  deep->add_flag("--json", deepJson, "print JSON instead of text");
  deep->add_flag("--ptxas", dto.ptxas, "registers from nvcc for every version (slower)");
  deep->add_option("--measure", dto.measureBackend,
                   "also run every version on this backend and compose the measured times")
      ->check(CLI::IsMember({"cuda", "opencl", "cpp"}));
  deep->add_option("--repeat", dto.repeat, "with --measure: timed runs per version (median)")
      ->check(numberAbove(true));
  deep->add_flag("--verify", dto.verify,
                 "with --measure: check every version against the reference interpreter");

  // tune
  auto* tune = app.add_subcommand(
      "tune",
      "Autotune: run the model's first variants (fusion choices x schedules, ranked as analyze "
      "--fusion-choices ranks them) on a backend, each verified, and remember the measurements "
      "in the tuning database (SQLite), so that a later tune reuses them and run --tuned runs "
      "the fastest");
  tune->add_option("FILE", file, "stencil program (.sten)")->required();
  TuneOptions tuneOpts;
  tuneOpts.backend = "cpp";  // as run's
  std::vector<std::string> tuneParams;
  std::string tuneDb;
  bool tuneJson = false;
  tune->add_option("--backend", tuneOpts.backend, "where to measure (default cpp, as run's)")
      ->check(CLI::IsMember({"cuda", "opencl", "cpp"}));
  tune->add_option("--top", tuneOpts.top, "variants measured: the model's first N (default 5)")
      ->check(numberAbove(true));
  tune->add_option("--blocks", tuneOpts.blocks,
                   "also measure each of those variants under these blocks, where its family "
                   "takes them (e.g. --blocks 32,8 64,4 128,2)");
  tune->add_option("--also", tuneOpts.also,
                   "also measure each of those variants under this set of schedule options, "
                   "where its family takes them (repeatable; e.g. --also '--retime' --also "
                   "'--unroll i=2')");
  tune->add_option("--repeat", tuneOpts.repeat, "timed runs per variant, median (default 3)")
      ->check(numberAbove(true));
  tune->add_option("--param", tuneParams, "NAME=VALUE parameter value (default: defaults)");
  tune->add_option("--db", tuneDb,
                   "the tuning database (default: $TESSEL_TUNING_DB, else "
                   "$XDG_CACHE_HOME/tessel/tuning.db or ~/.cache/tessel/tuning.db)");
  tune->add_flag("--remeasure", tuneOpts.remeasure,
                 "measure every variant again, replacing what the database has");
  bool tuneShow = false;
  tune->add_flag("--show", tuneShow,
                 "print what the database has for the program at these parameters on this "
                 "backend, host and build, fastest first, and measure nothing");
  tune->add_flag("--json", tuneJson, "print JSON instead of text");

  // split
  auto* split = app.add_subcommand(
      "split",
      "Write the program with its calls fused or split into kernels (paper 000 VI-B) as a new "
      "program in the language, to read, check and tune");
  split->add_option("FILE", file, "stencil program (.sten)")->required();
  std::string splitMode = "trivial-fission", splitDir;
  split
      ->add_option("--mode", splitMode,
                   "trivial-fission (the default: a kernel per global array a call writes, with "
                   "the temporaries it needs, shared ones replicated), maxfuse (consecutive "
                   "calls of one domain fused into one stencil where that computes the same), "
                   "recompute-fission (a call's statements split where a kernel's recomputation "
                   "halo would exceed max(4, r)), greedy (STENCILGEN's plan), modesto (MODESTO's "
                   "grouping) or groups (--groups); the last four regroup each call's statements, "
                   "temporaries that cross going through global memory")
      ->check(CLI::IsMember(
          {"trivial-fission", "maxfuse", "recompute-fission", "greedy", "modesto", "groups"}));
  split->add_option("-o,--output", splitDir, "directory to write FILE-MODE.sten into")->required();
  // greedy, modesto, groups: each call's statements regrouped into kernels (fusion groups).
  std::vector<std::string> splitGroups;
  split->add_option("--groups", splitGroups,
                    "with --mode groups: a call's kernels, [CALL:]G|G|..., each G statement "
                    "numbers or ranges separated by commas (s0,s1|s2-3); CALL defaults to 0; "
                    "repeat for other calls");
  split->add_option("--fusion-rules", fusionOpt.rules,
                    "with --mode greedy: the sort's rule order (as tessel info --fusion-plan)");
  split
      ->add_option("--fusion-max-order", fusionOpt.maxOrder,
                   "with --mode greedy: the highest stencil order a fused kernel may have")
      ->check(numberAbove(false));
  split
      ->add_option("--fusion-tile", fusionOpt.tile,
                   "with --mode greedy: the block's tile in the plane, outer to inner")
      ->delimiter(',')
      ->check(numberAbove(true))
      ->check(CLI::Range(1, 1 << 20));
  std::string splitMachine = "h100";
  split
      ->add_option("--machine", splitMachine,
                   "with --mode greedy or modesto: the machine whose shared memory (greedy) or "
                   "bandwidths and block memory (modesto) decide")
      ->capture_default_str();
  ModestoGroupingOptions modestoOpt;
  split
      ->add_option("--modesto-tile", modestoOpt.tile,
                   "with --mode modesto: the block's tile per iterator, outer to inner (default "
                   "1,...,8,32)")
      ->delimiter(',')
      ->check(numberAbove(true));
  split
      ->add_option("--modesto-orders", modestoOpt.orderLimit,
                   "with --mode modesto: the topological orders of a call's statements searched")
      ->capture_default_str()
      ->check(numberAbove(true));
  split
      ->add_option("--modesto-capacity", modestoOpt.capacity,
                   "with --mode modesto: the block memory's capacity in values (default: the "
                   "machine's 48 KiB per block)")
      ->check(numberAbove(true));

  // machines
  auto* machines = app.add_subcommand(
      "machines",
      "List the machine descriptions (machines/*.json, $TESSEL_MACHINES) --machine takes");
  bool machinesJsonFlag = false;
  machines->add_flag("--json", machinesJsonFlag, "print every figure with its source, as JSON");

  // run
  auto* run = app.add_subcommand("run", "Compile and run a program, optionally verify it");
  run->add_option("FILE", file, "stencil program (.sten)")->required();
  RunOptions ro;
  std::string backendName = "cpp";
  BackendOptions bo;
  std::vector<std::string> runParams, runScalars, runInputs;
  run->add_option("--backend", backendName,
                  "cpp (generated C++/OpenMP), opencl (generated OpenCL on the default OpenCL "
                  "device; $TESSEL_OPENCL_DEVICE picks another), cuda (generated CUDA; needs a "
                  "CUDA device) or reference (the interpreter)")
      ->capture_default_str()
      ->check(CLI::IsMember(backendNames()));
  run->add_option("--param", runParams, "NAME=VALUE parameter value (repeatable)");
  run->add_option("--scalar", runScalars, "NAME=VALUE scalar value (default: seeded random)");
  run->add_option("--input", runInputs, "NAME=FILE.npy initial contents of an array");
  run->add_option("--output", ro.outputDir,
                  "write the results to DIR/NAME.npy: the copyout arrays, or every array the "
                  "program writes when it has no copyout list");
  run->add_option("--seed", ro.seed, "seed of the random inputs")
      ->capture_default_str()
      ->check(seedValue());
  run->add_option("--repeat", ro.repeat,
                  "timed runs, after one untimed warm-up run (the median is reported)")
      ->capture_default_str();
  run->add_flag("--verify", ro.verify,
                "compare with the reference interpreter; exit 2 on a mismatch");
  run->add_option("--tolerance", ro.tolerance,
                  "relative tolerance for --verify (default 1e-12 double, 1e-5 float)")
      ->check(numberAbove(false));
  run->add_flag("--json", ro.json,
                "print the report as JSON (program, parameters, backend, time_s, min_time_s, "
                "gstencils_per_s, gflops_per_s, verification, ...)");
  run->add_option("--work-dir", bo.workDir, "where generated code is written (default: a cache)");
  bool runTuned = false;
  std::string runTunedDb;
  run->add_flag("--tuned", runTuned,
                "run the fastest variant tessel tune measured for this program, parameters and "
                "backend on this host (its fusion choice and schedule flags)");
  run->add_option("--tuning-db", runTunedDb, "with --tuned: the tuning database (as tune --db)");

  // Schedule flags (language.md section 8; the command line overrides the file's #pragma).
  std::map<std::string, std::string> scheduleValues;
  for (CLI::App* sub : {check, info, emit, run, res, analyze, deep, tune})
    for (const std::string& flag : scheduleFlags()) {
      if (scheduleSwitch(flag)) {  // a flag: on when given
        sub->add_flag_callback(
            flag, [&scheduleValues, flag] { scheduleValues[flag] = "on"; }, scheduleHelp(flag));
        continue;
      }
      sub->add_option(flag, scheduleValues[flag], scheduleHelp(flag));
    }

  // Fusion groups (analysis/regroup.h): each call's statements regrouped into kernels before
  // the schedules are set up, the pipeline's first pass.
  std::string fusionGroupsValue;
  for (CLI::App* sub : {check, info, emit, run, res, analyze})
    sub->add_option("--fusion-groups", fusionGroupsValue,
                    "run the program's calls as this fusion choice makes them (each kernel a "
                    "call of its own, temporaries that cross through global memory): none (as "
                    "written), trivial-fission, maxfuse, recompute-fission, greedy (STENCILGEN's "
                    "plan), modesto (MODESTO's grouping), [CALL:]G|G|... per call separated by "
                    "';' (statement numbers as tessel info shows them; see tessel split), or auto "
                    "(the one the model predicts fastest)");

  // The lowering pipeline's pass log (lower/lower.h), in the style of MLIR's pass manager.
  PassOptions passOpts;
  std::vector<std::string> printAfter;
  for (CLI::App* sub : {info, emit, run, analyze}) {
    sub->add_flag("--print-ir-after-all", passOpts.printAfterAll,
                  "print the IR after each pass of the lowering pipeline (to stderr)");
    sub->add_option("--print-ir-after", printAfter,
                    "print the IR after this pass (repeatable; to stderr): " +
                        fmt::format("{}", fmt::join(passNames(), ", ")))
        ->check(CLI::IsMember(passNames()));
    sub->add_flag("--time-passes", passOpts.timePasses,
                  "print each pipeline pass's wall time at the end (to stderr)");
  }

  // A first word that names no command (CLI11 would only say that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const auto best = closestName(argv[1], names);
      std::cerr << fmt::format("tessel: error: '{}' is not a tessel command\n  hint: {}\n", argv[1],
                               best ? fmt::format("did you mean '{}'?", *best)
                                    : fmt::format("the commands: {}", fmt::join(names, ", ")));
      return kExitUserError;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitUserError;
  }
  // An option given an empty value (`--block ''`, `-o ''`) is an error, not the option left
  // out (a schedule flag's empty value would otherwise mean "not given").
  for (const CLI::App* sub : app.get_subcommands())
    for (const CLI::Option* o : sub->get_options())
      if (o->count() > 0 && o->get_type_size_max() > 0)
        for (const std::string& r : o->results())
          if (r.empty()) {
            std::cerr << fmt::format(
                "tessel: error: {} was given an empty value\n  hint: {} (tessel {} --help)\n",
                o->get_name(),
                o->get_description().empty() ? "give it a value" : o->get_description(),
                sub->get_name());
            return kExitUserError;
          }
  // A directory option that names an existing file: said before any work is done (the
  // filesystem's own message came after a whole run).
  for (const CLI::App* sub : app.get_subcommands())
    for (const char* name : {"--output", "--work-dir"}) {
      const CLI::Option* o = sub->get_option_no_throw(name);
      if (!o || o->count() == 0) continue;
      const std::string dir = o->results().front();
      std::error_code ec;
      if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
        std::cerr << fmt::format(
            "tessel: error: {} '{}' is a file, not a directory\n  hint: give a directory (it is "
            "created if it does not exist)\n",
            o->get_name(), dir);
        return kExitUserError;
      }
      // An existing directory Tessel cannot write (permissions, a read-only or immutable
      // file system): said now, not after a whole run.
      if (std::filesystem::is_directory(dir, ec))
        if (std::string why; !directoryWritable(dir, why)) {
          std::cerr << fmt::format(
              "tessel: error: {} '{}': cannot write in it ({})\n  hint: give a directory "
              "Tessel can write\n",
              o->get_name(), dir, why);
          return kExitUserError;
        }
    }
  // emit writes its target's files into -o DIR: never over a file Tessel did not write there;
  // the files of an earlier emit for another target stay, and a note says so.
  EmitDirectory emitDir;
  if (emit->parsed()) {
    emitDir = inspectEmitDirectory(eo.target, eo.directory);
    if (!emitDir.foreign.empty()) {
      std::cerr << fmt::format(
          "tessel: error: --output '{}' holds {} that Tessel did not write, and emit would "
          "overwrite {}\n  hint: emit into another directory (a new or empty one), or move {} "
          "away\n",
          eo.directory, fmt::join(emitDir.foreign, " and "),
          emitDir.foreign.size() == 1 ? "it" : "them", emitDir.foreign.size() == 1 ? "it" : "them");
      return kExitUserError;
    }
  }
  if (emit->parsed() && emitArch->count() > 0 && eo.target != "cuda") {
    std::cerr << "tessel: error: --arch applies to --target cuda only (the target is '" << eo.target
              << "')\n";
    return kExitUserError;
  }

  passOpts.printAfter.insert(printAfter.begin(), printAfter.end());
  PassLog passLog(passOpts, std::cerr);
  // Prints the --time-passes report once the command has run (whatever its outcome).
  struct TimingAtExit {
    const PassLog& log;
    ~TimingAtExit() {
      if (log.timePasses()) std::cerr << log.timingReport();
    }
  } timingAtExit{passLog};

  DiagnosticEngine diags;
  // Declared before the try: the diagnostics' locations point into its source file, and the
  // handlers below print them.
  LoadedProgram lp;
  if (machines->parsed()) {
    std::cout << (machinesJsonFlag ? machinesJson(diags).dump(2) + "\n" : machinesText(diags));
    return finish(diags, kExitOk);
  }
  try {
    lp = loadProgram(file, diags);
    if (!lp.program) return finish(diags, kExitUserError);
    auto i64 = [](const std::string& s, size_t& used) {
      return static_cast<int64_t>(std::stoll(s, &used));
    };
    auto f64 = [](const std::string& s, size_t& used) { return std::stod(s, &used); };
    auto str = [](const std::string& s, size_t& used) {
      used = s.size();
      return s;
    };
    const std::vector<std::string> noParams;
    const std::vector<std::string>& commandParams = run->parsed()       ? runParams
                                                    : analyze->parsed() ? analyzeParams
                                                    : info->parsed()    ? infoParams
                                                    : check->parsed()   ? checkParams
                                                    : emit->parsed()    ? emitParams
                                                    : res->parsed()     ? resParams
                                                                        : noParams;
    // Every command checks the bounds and extents as `check` does (language.md 9.13) where every
    // parameter has a value (the defaults and the command's --param): an impossible region or
    // extent (a division by zero in a call's domain, an access out of its array) is the
    // program's error, located, before any command meets it deep inside. `check` and `info` do
    // it below with their own parameters; a malformed --param is the command's to report.
    if (!check->parsed() && !info->parsed()) {
      const std::vector<std::string>& given = deep->parsed()   ? deepParams
                                              : tune->parsed() ? tuneParams
                                                               : commandParams;
      std::map<std::string, int64_t> values;
      DiagnosticEngine unparsed;
      if (parsePairs(given, "--param", values, i64, unparsed)) {
        CheckParams cp = paramsForCheck(*lp.program, values, diags);
        if (!cp.ok || (cp.values && !checkBounds(*lp.program, *cp.values, diags)))
          return finish(diags, kExitUserError);
      }
      // So is a `#pragma` schedule `check` refuses (a block of too many threads, a stream
      // along the unit-stride iterator): where the command line gives no schedule flag, the
      // file's schedules are what `check` validates, and a command must not run (or let the
      // model's choice replace) a schedule the file got wrong. Flags are validated where the
      // command applies them.
      const bool flagsGiven =
          std::any_of(scheduleValues.begin(), scheduleValues.end(),
                      [](const auto& kv) { return !kv.second.empty() && kv.first != "--machine"; });
      if (!flagsGiven && fusionGroupsValue.empty() &&
          !setUpSchedules(*lp.program, scheduleValues, diags, false, nullptr))
        return finish(diags, kExitUserError);
    }
    if (tune->parsed()) {
      // What tune searches cannot also be given: it would be overridden by every variant.
      for (const std::string& searched : tuneSearchedFlags())
        if (!scheduleValues[searched].empty()) {
          std::cerr << fmt::format(
              "tessel: error: tune searches the families and time tiles (each variant sets "
              "them), and {} {} was given\n  hint: drop it; to time one schedule, use tessel "
              "run --schedule ... --repeat N\n",
              searched, scheduleValues[searched]);
          return kExitUserError;
        }
      if (!parsePairs(tuneParams, "--param", tuneOpts.params, i64, diags))
        return finish(diags, kExitUserError);
      tuneOpts.db = tuneDb.empty() ? defaultTuningDbPath() : std::filesystem::path(tuneDb);
      tuneOpts.programFile = file;
      if (tuneShow) {
        // --show measures nothing: what only a measurement uses is refused, not ignored.
        std::vector<std::string> unused;
        for (const char* o : {"--top", "--repeat", "--blocks", "--also", "--remeasure"})
          if (tune->count(o) > 0) unused.push_back(o);
        if (!unused.empty()) {
          std::cerr << fmt::format(
              "tessel: error: tune --show lists what the database has and measures nothing; {} "
              "given as well\n  hint: drop {} (or drop --show to tune)\n",
              fmt::join(unused, ", "), unused.size() == 1 ? "it" : "them");
          return kExitUserError;
        }
        auto shown =
            tunedRecords(*lp.program, file, tuneOpts.backend, tuneOpts.params, tuneOpts.db, diags);
        if (!shown) return finish(diags, kExitUserError);
        std::cout << (tuneJson ? shown->dump(2) + "\n" : tunedRecordsText(*shown));
        return kExitOk;
      }
      tuneOpts.progress = [](const std::string& m) { std::cerr << "tune: " << m << "\n"; };
      auto t = tuneProgram(*lp.program, scheduleValues, tuneOpts, diags);
      if (!t) return finish(diags, kExitUserError);
      diags.print(std::cerr);
      std::cout << (tuneJson ? t->dump(2) + "\n" : tuneText(*t));
      return kExitOk;
    }
    if (run->parsed() && run->count("--tolerance") > 0 && !ro.verify) {
      std::cerr << "tessel: error: --tolerance is the tolerance of --verify, and --verify is "
                   "missing\n  hint: give --verify too\n";
      return kExitUserError;
    }
    if (run->parsed() && !runTuned && !runTunedDb.empty()) {
      std::cerr << "tessel: error: --tuning-db names the database --tuned reads, and --tuned is "
                   "missing\n  hint: give --tuned too\n";
      return kExitUserError;
    }
    // --tuned: the fastest variant tune measured replaces the fusion choice and schedule flags.
    if (run->parsed() && runTuned) {
      std::vector<std::string> given;
      for (const auto& [flag, value] : scheduleValues)
        if (!value.empty()) given.push_back(flag);
      if (!fusionGroupsValue.empty()) given.push_back("--fusion-groups");
      if (!given.empty()) {
        std::cerr << fmt::format(
            "tessel: error: --tuned runs the variant tessel tune measured fastest, with its own "
            "schedule and fusion choice; {} given as well\n  hint: drop {} (or drop --tuned to "
            "run the schedule given)\n",
            fmt::join(given, ", "), given.size() == 1 ? "it" : "them");
        return kExitUserError;
      }
      std::map<std::string, int64_t> given64;
      if (!parsePairs(runParams, "--param", given64, i64, diags))
        return finish(diags, kExitUserError);
      const std::filesystem::path db =
          runTunedDb.empty() ? defaultTuningDbPath() : std::filesystem::path(runTunedDb);
      auto rec = tunedVariant(*lp.program, file, backendName, given64, db, diags);
      if (!rec) return finish(diags, kExitUserError);
      std::cerr << tunedLine(*rec, db) << "\n";
      ro.tuned = TunedRun{rec->fusion, rec->schedule, rec->seconds, rec->measuredAt, db.string()};
      for (const auto& [flag, value] : rec->flags)
        if (flag != "--fusion-groups") scheduleValues[flag] = value;
      if (rec->fusion != "none") fusionGroupsValue = rec->fusion;
    } else if (run->parsed()) {
      // A program tessel tune measured here: one line says so (the run is as asked).
      std::map<std::string, int64_t> given64;
      DiagnosticEngine quiet;
      if (parsePairs(runParams, "--param", given64, i64, quiet))
        if (auto hint = tunedHint(*lp.program, file, backendName, given64, defaultTuningDbPath()))
          std::cerr << *hint << "\n";
    }
    // A CUDA run without a device stops here, before the model's choices and the register cap
    // compile anything with nvcc (GpuModule checks again before it builds).
    if (run->parsed() && backendName == "cuda")
      if (std::string why; !cudaDeviceAvailable(&why))
        throw EnvironmentError("no CUDA device: " + why);
    // Where the performance model picks the schedule: --schedule auto, or a GPU run or emission
    // that names no family.
    const bool gpuCommand = (run->parsed() && (backendName == "opencl" || backendName == "cuda")) ||
                            (emit->parsed() && (eo.target == "opencl" || eo.target == "cuda"));
    const bool cppCommand =
        (run->parsed() && backendName == "cpp") || (emit->parsed() && eo.target == "cpp");
    // --fusion-groups: the program every later step sees is the regrouped one; `run --verify`
    // still checks against the program as written. `auto`: the model's choice (with the
    // schedule, where the model picks that too).
    std::optional<Program> regrouped;
    if (!fusionGroupsValue.empty()) {
      std::vector<std::string> notes;
      const std::string machine = scheduleValues["--machine"];
      std::string value = fusionGroupsValue;
      if (value == "auto") {
        if (cppCommand) {
          std::cerr << "tessel: error: --fusion-groups auto chooses with the GPU performance "
                       "model\n  hint: run it with --backend opencl or cuda, or name a fusion "
                       "choice (none, trivial-fission, maxfuse, recompute-fission, greedy) for "
                       "the C++ backend\n";
          return kExitUserError;
        }
        std::map<std::string, int64_t> given;
        if (!parsePairs(commandParams, "--param", given, i64, diags))
          return finish(diags, kExitUserError);
        const bool withSchedule = scheduleValues["--schedule"] == "auto" ||
                                  (gpuCommand && !scheduleNamed(*lp.program, scheduleValues));
        auto choice = chooseFusion(*lp.program, scheduleValues, given, withSchedule, diags);
        if (!choice) return finish(diags, kExitUserError);
        std::cerr << choice->line() << "\n";
        value = choice->value;
        if (choice->schedule) {
          choice->schedule->byDefault = scheduleValues["--schedule"] != "auto";
          scheduleValues = choice->schedule->flags;
          scheduleValues["--schedule-chosen-by"] = choice->schedule->asked();
          std::cerr << choice->schedule->line() << "\n";
        }
      }
      regrouped =
          fusionGroupsPass(*lp.program, value, machine.empty() ? std::string("h100") : machine,
                           diags, passLog, notes);
      if (!regrouped) return finish(diags, kExitUserError);
      for (const std::string& n : notes) std::cerr << "tessel: fusion groups: " << n << "\n";
      // `--machine host` named the CPU for MODESTO's grouping; the C++ backend's own code takes
      // no machine (its GPU kernels on the CPU, and any GPU command, still refuse it below).
      if (machine == "host" && cppCommand && !scheduleNamed(*lp.program, scheduleValues))
        scheduleValues.erase("--machine");
      // Each group one kernel where the family fuses statements on request (global, stream).
      if (value != "none") scheduleValues["--fusion-groups"] = value;
      ro.reference = &*lp.program;
    }
    const Program& prog = regrouped ? *regrouped : *lp.program;

    // What a note that a default choice fell back says to do: the diagnostic's own hint.
    auto hintOf = [](const Diagnostic& d) {
      return d.hint.empty() ? std::string("give --param NAME=VALUE") : d.hint;
    };
    // The performance model's first choice (one line says which), at the command's parameters.
    auto modelChoice = [&](DiagnosticEngine& d) -> std::optional<ModelChoice> {
      std::map<std::string, int64_t> given;
      if (!parsePairs(commandParams, "--param", given, i64, d)) return std::nullopt;
      return chooseSchedule(prog, scheduleValues, given, d);
    };
    // --schedule auto: the choice replaces it.
    // (deep-tune's auto composes under each family that fuses steps: driver/deep_tune.h.)
    if (scheduleValues["--schedule"] == "auto" && !deep->parsed()) {
      if (run->parsed() && backendName == "cpp") {
        std::cerr << "tessel: error: --schedule auto chooses among GPU schedules with the GPU "
                     "performance model\n  hint: run it with --backend opencl or cuda, or "
                     "name a schedule for the C++ backend\n";
        return kExitUserError;
      }
      auto choice = modelChoice(diags);
      if (!choice) return finish(diags, kExitUserError);
      scheduleValues = choice->flags;
      scheduleValues["--schedule-chosen-by"] = choice->asked();
      std::cerr << choice->line() << "\n";
    } else if (gpuCommand && !scheduleNamed(prog, scheduleValues)) {
      // No family named for a GPU: the model's choice (docs/model.md, "The model's choice"). If
      // it cannot choose (bad parameters, say), the program's own default goes on to report why.
      DiagnosticEngine quiet;
      if (auto choice = modelChoice(quiet)) {
        choice->byDefault = true;
        scheduleValues = choice->flags;
        scheduleValues["--schedule-chosen-by"] = choice->asked();
        std::cerr << choice->line() << "\n";
      } else if (emit->parsed() && !quiet.diagnostics().empty()) {
        // `run` goes on to report it as an error; the code `emit` writes needs no values.
        std::cerr << fmt::format(
            "tessel: note: no schedule named, and the performance model cannot choose one ({}): "
            "the program's own default is emitted\n  hint: {}, or name a schedule "
            "(--schedule)\n",
            quiet.diagnostics().front().message, hintOf(quiet.diagnostics().front()));
      }
    }
    // CUDA code takes the model's register cap by default (issue 11): where neither the
    // command line nor a `#pragma` sets one, --max-registers auto (--max-registers bounds keeps
    // the launch bounds).
    // --max-registers auto: the model's cap from ptxas's figures replaces it (one line says
    // which).
    // `analyze` with ptxas's figures predicts the CUDA kernels that `emit --target cuda` and
    // `run --backend cuda` build, their default cap included; not under --compare,
    // --fusion-choices or --defaults-effect, whose rows are other schedules.
    const bool analyzesCuda = analyze->parsed() && !analyzeNoPtxas && !ao.compare &&
                              !ao.fusionChoices && !ao.defaultsEffect &&
                              machineOf(scheduleValues) != "host";
    const bool cudaCode = (run->parsed() && backendName == "cuda") ||
                          (emit->parsed() && eo.target == "cuda") || res->parsed() || analyzesCuda;
    if (const CapRequest asked = capRequest(prog, scheduleValues, cudaCode);
        asked != CapRequest::None) {
      std::map<std::string, int64_t> given;
      if (!parsePairs(commandParams, "--param", given, i64, diags))
        return finish(diags, kExitUserError);
      // By default (not asked for), emit and resources, whose output needs no parameter values,
      // keep the launch bounds where the model has no values to predict with.
      DiagnosticEngine unbound;
      if (asked == CapRequest::Default && (emit->parsed() || res->parsed()) &&
          !bindParams(prog, given, unbound)) {
        std::cerr << fmt::format(
            "tessel: note: the CUDA kernels keep their launch bounds: the model's register cap "
            "(--max-registers auto, the default) needs a value of every parameter ({})\n  hint: "
            "{} for the model's cap, or --max-registers bounds to keep the launch bounds without "
            "this note\n",
            unbound.diagnostics().front().message, hintOf(unbound.diagnostics().front()));
        scheduleValues["--max-registers"] = "bounds";
      } else if (auto cap = chooseRegisterCap(prog, scheduleValues, given, diags); !cap) {
        return finish(diags, kExitUserError);
      } else {
        scheduleValues = cap->flags;
        std::cerr << cap->line(asked == CapRequest::Default) << "\n";
      }
    }
    if (analyze->parsed()) {
      if (!parsePairs(analyzeParams, "--param", ao.params, i64, diags))
        return finish(diags, kExitUserError);
      ao.scheduleFlags = scheduleValues;
      ao.ptxas = !analyzeNoPtxas;
      if (!ao.measureBackend.empty() && !ao.fusionChoices) {
        std::cerr << "tessel: error: --measure runs the rows of the fusion choices' ranking, and "
                     "--fusion-choices is missing\n  hint: give --fusion-choices (tessel run "
                     "measures one schedule)\n";
        return kExitUserError;
      }
      auto a = analyzeProgram(prog, ao, diags, &passLog);
      if (!a) return finish(diags, kExitUserError);
      diags.print(std::cerr);
      if (!analyzePlot.empty()) {
        std::ofstream svg(analyzePlot);
        svg << rooflineSvg(*a);
        svg.close();
        if (!svg) {
          std::cerr << "tessel: error: cannot write the roofline chart to '" << analyzePlot
                    << "'\n  hint: give a path in a directory that exists and is writable\n";
          return kExitUserError;
        }
        for (const std::string& n : rooflineLeftOut(*a))
          std::cerr << "tessel: note: --plot: " << n << "\n";
      }
      std::cout << (analyzeJson ? a->dump(2) + "\n" : analyzeText(*a));
      return kExitOk;
    }
    if (split->parsed()) {
      // A flag of another mode would be ignored: refused, naming the modes that take it.
      const std::vector<std::pair<std::string, std::vector<std::string>>> modeFlags = {
          {"--groups", {"groups"}},
          {"--fusion-rules", {"greedy"}},
          {"--fusion-max-order", {"greedy"}},
          {"--fusion-tile", {"greedy"}},
          {"--machine", {"greedy", "modesto"}},
          {"--modesto-tile", {"modesto"}},
          {"--modesto-orders", {"modesto"}},
          {"--modesto-capacity", {"modesto"}}};
      for (const auto& [flag, modes] : modeFlags)
        if (split->count(flag) > 0 &&
            std::find(modes.begin(), modes.end(), splitMode) == modes.end()) {
          const std::string forModes = fmt::format("--mode {}", fmt::join(modes, " or "));
          diags.report(
              DiagId::bad_schedule, {},
              fmt::format("{} is for {}, not {} (it would be ignored)", flag, forModes, splitMode),
              fmt::format("drop {}, or use {} instead of {}", flag, forModes, splitMode));
          return finish(diags, kExitUserError);
        }
      SplitResult r;
      if (splitMode == "maxfuse" || splitMode == "trivial-fission") {
        r = writeSplit(prog, file,
                       splitMode == "maxfuse" ? FissionMode::MaxFuse : FissionMode::TrivialFission,
                       splitDir);
      } else {
        modestoOpt.progress = [](const std::string& m) {
          std::cerr << "tessel: MODESTO's grouping of " << m << "\n";
        };
        auto g = splitGroupings(prog, splitMode, splitGroups, splitMachine, fusionOpt, modestoOpt,
                                diags);
        if (!g) return finish(diags, kExitUserError);
        std::vector<std::string> notes = g->notes;
        const Program out = regroupProgram(prog, g->groups, notes);
        r = writeSplitProgram(out, file, splitMode, splitDir, std::move(notes));
      }
      if (!r.error.empty()) {
        std::cerr << "tessel: error: " << r.error << "\n  hint: " << r.hint << "\n";
        return kExitUserError;
      }
      diags.print(std::cerr);
      for (const std::string& n : r.notes) std::cout << n << "\n";
      std::cout << fmt::format("wrote {} ({} call{})\n", r.path, r.calls, r.calls == 1 ? "" : "s");
      return kExitOk;
    }
    if (deep->parsed()) {
      for (const char* flag : {"--repeat", "--verify"})
        if (deep->count(flag) > 0 && dto.measureBackend.empty()) {
          diags.report(DiagId::bad_schedule, {},
                       fmt::format("deep-tune: {} is for --measure, which is missing (nothing is "
                                   "run without it: it would be ignored)",
                                   flag),
                       fmt::format("give --measure cuda|opencl|cpp, or drop {}", flag));
          return finish(diags, kExitUserError);
        }
      if (!parsePairs(deepParams, "--param", dto.params, i64, diags))
        return finish(diags, kExitUserError);
      dto.scheduleFlags = scheduleValues;
      dto.file = file;
      auto r = deepTune(prog, dto, diags);
      if (!r) return finish(diags, kExitUserError);
      diags.print(std::cerr);
      std::cout << (deepJson ? r->dump(2) + "\n" : deepTuneText(*r));
      return kExitOk;
    }
    if (check->parsed() || info->parsed()) {
      std::map<std::string, int64_t> given;
      if (!parsePairs(check->parsed() ? checkParams : infoParams, "--param", given, i64, diags))
        return finish(diags, kExitUserError);
      // Bounds are checked at compile time when every parameter has a value (9.13).
      CheckParams cp = paramsForCheck(prog, given, diags);
      if (!cp.ok) return finish(diags, kExitUserError);
      const std::optional<ParamValues>& vals = cp.values;
      if (vals && !checkBounds(prog, *vals, diags)) return finish(diags, kExitUserError);
      auto setup = setUpSchedules(prog, scheduleValues, diags, info->parsed(), &passLog);
      if (!setup) return finish(diags, kExitUserError);
      if (info->parsed()) {
        auto j = infoJson(prog, vals);
        j["machine"] = setup->machine.name;
        for (size_t s = 0; s < setup->schedules.size(); ++s)
          j["stencils"][s]["schedule"] = toString(setup->schedules[s]);
        bool anyScheduleFlag = std::any_of(scheduleValues.begin(), scheduleValues.end(),
                                           [](auto& kv) { return !kv.second.empty(); });
        std::string kernelText;
        if (infoKernels || anyScheduleFlag) {
          KernelReportSet ks =
              reportKernels(prog, setup->resolved, setup->machine, !noPtxas, &passLog);
          for (auto& n : setup->resolved.scheduleNotes) ks.notes.push_back(n);
          for (auto& n : occupancyTargetNotes(prog, setup->schedules, ks.reports))
            ks.notes.push_back(n);
          j["kernels"] = kernelReportsJson(ks.reports);
          j["kernel_notes"] = ks.notes;
          kernelText = kernelReportsText(ks.reports, setup->machine.name, ks.ptxasNote);
          for (auto& n : ks.notes) kernelText += "note: " + n + "\n";
        }
        auto fused = fusedKernelsJson(prog, setup->resolved, setup->machine);
        if (!fused.empty()) j["fused_kernels"] = fused;
        std::string dagOut;
        if (infoDag) {
          j["dag"] = dagJson(prog);
          dagOut = dagText(buildDag(prog), prog);
        }
        std::string fusionOut;
        if (infoFusionPlan) {
          fusionOpt.sharedLimit = setup->machine.sharedPerBlockMax();
          try {
            FusionPlanReport fr = fusionPlanReport(prog, fusionOpt);
            j["fusion_plan"] = fr.json;
            fusionOut = fr.text;
          } catch (const std::invalid_argument& e) {
            std::cerr << "tessel: error: " << e.what()
                      << "\n  hint: --fusion-rules takes each of the letters a to h once, most "
                         "significant first (abcdefgh minimises data movement)\n";
            return kExitUserError;
          }
        }
        if (!dotFile.empty()) {
          std::ofstream dot(dotFile);
          dot << dagDot(buildDag(prog), prog);
          dot.close();
          if (!dot) {
            std::cerr << "tessel: error: cannot write the stencil DAG to '" << dotFile
                      << "'\n  hint: give a path in a directory that exists and is writable\n";
            return kExitUserError;
          }
        }
        diags.print(std::cerr);  // once: the warnings, before the report (as for `check`)
        std::cout << (json ? j.dump(2) + "\n"
                           : infoText(j) + kernelText + fusedKernelsText(fused) + dagOut +
                                 fusionOut);
        return kExitOk;
      } else {
        diags.print(std::cerr);
        std::cout << fmt::format(
            "{}: OK ({} stencil{}, {} call{}{})\n", file, prog.stencils.size(),
            prog.stencils.size() == 1 ? "" : "s", prog.calls.size(),
            prog.calls.size() == 1 ? "" : "s",
            vals ? "" : "; bounds are checked at run time, when every parameter has a value");
        return kExitOk;
      }
    }
    auto setup = setUpSchedules(prog, scheduleValues, diags, false, &passLog);
    if (!setup) return finish(diags, kExitUserError);
    const std::vector<std::string>& planNotes = setup->resolved.scheduleNotes;
    if (emit->parsed()) {
      eo.schedule = setup->resolved;
      eo.commandLine = "tessel";
      for (int a = 1; a < argc; ++a) eo.commandLine += " " + shellQuoted(argv[a]);
      eo.passLog = &passLog;
      std::string written = emitProgram(prog, eo);
      diags.print(std::cerr);
      std::cout << written;
      if (!emitDir.otherTargets.empty())
        std::cerr << fmt::format(
            "tessel: note: {} also holds {} from an earlier emit for another target; the "
            "CMakeLists.txt written now builds the {} files only\n",
            eo.directory, fmt::join(emitDir.otherTargets, ", "), eo.target);
      return kExitOk;
    }
    if (res->parsed()) {
      ResourcesResult r = programResources(prog, setup->resolved, arch);
      r.notes.insert(r.notes.end(), planNotes.begin(), planNotes.end());
      diags.print(std::cerr);
      std::cout << (resJson ? resourcesJson(r).dump(2) + "\n" : resourcesText(r));
      return kExitOk;
    }
    bo.schedule = setup->resolved;
    bo.passLog = &passLog;
    // A family a `#pragma` names for the GPU has the C++ backend run the GPU kernels on the CPU:
    // verified, but not tuned for a CPU (heat's `stream`: 20x slower than its loop nests on this
    // project's 2-core machine). Said once per stencil, with the way back to the loop nests.
    if (backendName == "cpp" && bo.schedule.runsKernels())
      for (size_t s = 0; s < prog.stencils.size() && s < setup->schedules.size(); ++s) {
        const auto& family = setup->schedules[s].family;
        if (family.origin.kind == Origin::Kind::File && family.value != ScheduleFamily::Global)
          bo.schedule.scheduleNotes.push_back(fmt::format(
              "stencil '{}': the `#pragma` at {} names the {} family, so the C++ backend runs "
              "its GPU kernels on the CPU (verified, not tuned for a CPU); --schedule global runs "
              "plain loop nests, usually much faster on a CPU",
              prog.stencils[s].name, describe(family.origin), familyName(family.value)));
      }
    ro.contracted = std::any_of(bo.schedule.grids.begin(), bo.schedule.grids.end(),
                                [](const GridShape& g) { return g.fma || g.retime; });
    if (!parsePairs(runParams, "--param", ro.params, i64, diags) ||
        !parsePairs(runScalars, "--scalar", ro.scalars, f64, diags) ||
        !parsePairs(runInputs, "--input", ro.inputs, str, diags))
      return finish(diags, kExitUserError);
    // Parameters and bounds are checked before anything is compiled.
    auto bound = bindParams(prog, ro.params, diags);
    if (!bound || !checkBounds(prog, *bound, diags)) return finish(diags, kExitUserError);
    std::unique_ptr<Backend> backend = makeBackend(backendName, prog, bo);
    int code = runProgram(prog, ro, *backend, diags, std::cout);
    return finish(diags, code);
  } catch (const std::filesystem::filesystem_error& e) {
    // A directory or file Tessel was told to write (-o, --output, --work-dir) or read: the path
    // and the system's reason, not the library's text.
    diags.print(std::cerr);
    std::cerr << fmt::format(
        "tessel: error: {}{}\n  hint: check the paths given to -o, --output and --work-dir "
        "(a directory Tessel can create and write)\n",
        e.path1().empty() ? std::string(e.what()) : "'" + e.path1().string() + "': ",
        e.path1().empty() ? std::string() : e.code().message());
    return kExitUserError;
  } catch (const EnvironmentError& e) {
    diags.print(std::cerr);
    std::cerr << "tessel: error: " << e.what() << "\n";
    return kExitUserError;
  } catch (const RuntimeError& e) {
    // Errors of the program's run-time values (integer division by zero, ...): user errors.
    diags.print(std::cerr);
    std::cerr << "tessel: error: " << e.what() << "\n";
    return kExitUserError;
  } catch (const std::bad_alloc&) {
    diags.print(std::cerr);
    std::cerr << "tessel: error: out of memory\n  hint: smaller sizes (--param) need less; "
                 "tessel info shows each array's extents\n";
    return kExitUserError;
  } catch (const std::exception& e) {
    diags.print(std::cerr);
    std::cerr << "tessel: internal error: " << e.what()
              << "\n  this is a bug in Tessel; please report it with the program that caused it\n";
    return kExitInternal;
  }
}
