// Machine descriptions: what one GPU can hold and how fast it goes, read from a data file
// (machines/<id>.json, one per GPU, every figure with its source). Schedules are validated
// against a MachineDesc and the performance model reads it; it is a plain value, passed around,
// never a global.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/diagnostics.h"

namespace tessel {

/// One GPU. Sizes are in bytes, rates in FLOP/s and bytes/s.
struct MachineDesc {
  std::string id;    // the file's stem: "h100"
  std::string name;  // "NVIDIA H100 SXM5 80GB"
  std::string path;  // the file it was read from

  /// The multiprocessors and how fast they compute.
  struct Compute {
    int ccMajor = 0, ccMinor = 0;  // compute capability
    int64_t sms = 0;
    int64_t warpSize = 0;
    double peakFp32 = 0, peakFp64 = 0;  // non-tensor FLOP/s
    std::optional<double> smClock;      // boost clock, Hz; nullopt: no source read yet
  } compute;

  /// What a launch, a block and a multiprocessor may hold: threads, blocks, registers.
  struct Limits {
    int64_t maxThreadsPerBlock = 0;
    std::array<int64_t, 3> maxBlockDims{};  // x, y, z
    std::array<int64_t, 3> maxGridDims{};   // x, y, z
    int64_t maxThreadsPerSm = 0;
    int64_t maxBlocksPerSm = 0;
    int64_t registersPerSm = 0;
    int64_t maxRegistersPerBlock = 0;
    int64_t maxRegistersPerThread = 0;
  } limits;

  /// Shared memory sizes, and the caches and DRAM.
  struct Memory {
    int64_t sharedPerBlock = 0;       // without opting in
    int64_t sharedPerBlockOptin = 0;  // the most a kernel may opt in to
    int64_t sharedPerSm = 0;
    double dramBandwidth = 0;           // bytes/s
    std::optional<int64_t> l2Bytes;     // nullopt: the vendor publishes no figure
    std::optional<double> l2Bandwidth;  // bytes/s; nullopt: the vendor publishes no figure
    /// A measured copy bandwidth (bytes read plus written per second), kept apart from the
    /// datasheet's; nullopt: none measured in a source read so far.
    std::optional<double> measuredDramBandwidth;
    /// The DRAM latency the model's Little's-law term uses (seconds per round trip); nullopt:
    /// none read or fitted, and the model has no latency term on this machine.
    std::optional<double> dramLatency;
    /// The latency of one barrier with the shared-memory work between barriers (seconds), the
    /// model's second latency term; nullopt as for dramLatency.
    std::optional<double> barrierLatency;
  } memory;

  /// The performance model's factor per schedule family ("global", "overlapped", "stream +
  /// time_tile", ...): measured over predicted throughput, fitted on measured times of this GPU
  /// (docs/model.md); empty where none were measured.
  std::map<std::string, double> calibration;
  /// Per fused family ("overlapped", "stream + time_tile"), the time tiles its factor was fitted
  /// on. On a calibrated machine the model's choice does not extrapolate: it leaves out a fused
  /// schedule whose time tile is not among them (driver/analyze.h, chooseSchedule).
  std::map<std::string, std::set<int>> calibrationTimeTiles;
  std::map<std::string, std::string> sources;  // field name -> where the figure comes from
  std::vector<std::string> notes;

  std::string computeCapability() const;  // "9.0"
  /// The most shared memory one block may use: from compute capability 7.0 the opt-in maximum
  /// (a kernel above the default limit asks for it: dynamic shared memory in CUDA), before it
  /// the default limit.
  int64_t sharedPerBlockMax() const {
    return compute.ccMajor >= 7 ? memory.sharedPerBlockOptin : memory.sharedPerBlock;
  }
};

/// The names a machine file's `calibration` is keyed by, the model's families as
/// perf/kernel_figures.h's familyText gives them: the schedule families (schedule/family.h) and
/// "stream + time_tile" (the streamed fused kernel). Any other key is an error.
std::vector<std::string> calibrationFamilies();
/// Those that fuse time steps: the keys `calibration_time_tiles` may have.
std::vector<std::string> fusedCalibrationFamilies();

/// The machine used when none is named.
inline constexpr const char* kDefaultMachine = "h100";

/// Where machine files are looked for, in order: each directory in $TESSEL_MACHINES
/// (colon-separated), the source tree's machines/ directory (fixed at build time), then
/// machines/ and ../share/tessel/machines/ next to the running executable.
std::vector<std::filesystem::path> machineSearchPath();

/// Reads a machine by id ("h100", case-insensitive: searches `<dir>/<id>.json` along
/// `searchPath`) or by file path (anything containing '/' or ending in ".json"). An unknown id, an
/// unreadable file or an invalid one is reported (bad_machine, naming the file and the field) and
/// gives nullopt.
std::optional<MachineDesc> loadMachine(
    const std::string& nameOrPath, DiagnosticEngine& diags,
    const std::vector<std::filesystem::path>& searchPath = machineSearchPath());

/// Parses and validates the text of a machine file; `fileName` names it in messages and its stem
/// becomes the id.
std::optional<MachineDesc> parseMachine(const std::string& text, const std::string& fileName,
                                        DiagnosticEngine& diags);

/// The ids of every machine file along the search path, sorted, without duplicates.
std::vector<std::string> listMachines(
    const std::vector<std::filesystem::path>& searchPath = machineSearchPath());

}  // namespace tessel
