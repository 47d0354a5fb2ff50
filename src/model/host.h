// The host CPU as a machine: measured at first use (its caches from the operating system, a short
// STREAM-like copy run in DRAM and in L2, and a multiply-add run on every core), cached in
// $XDG_CACHE_HOME/tessel/host.json (else ~/.cache/tessel/host.json) and measured again when the CPU
// the cache describes is not this one. `tessel machines` lists it; the hierarchical model takes it
// as a two-level CPU hierarchy (modesto/hierarchy.h, cpuTwoLevel). Measured figures, on whatever
// else the machine was doing at the time: the run takes about a second.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tessel {

struct HostMachine {
  std::string cpu;  // /proc/cpuinfo "model name" ("unknown CPU" without one)
  int cores = 0;    // hardware threads the run used
  int64_t l1dBytes = 0, l2Bytes = 0, l3Bytes = 0;  // per cache, 0 where the system says nothing
  double dramCopyBandwidth = 0;  // bytes read + written per second, copying arrays of 4x the LLC
  double l2CopyBandwidth = 0;    // the same over arrays that fit one core's L2, every core
  double fp64FlopRate = 0;       // multiply-adds (2 FLOPs) per second, independent chains, all
                                 // cores, as this build compiles them (not the vector peak)
  std::string measuredAt;        // UTC date and time of the measurement
  std::string cacheFile;         // where it is cached ("" if it could not be written)
  bool fromCache = false;

  nlohmann::json toJson() const;
  static std::optional<HostMachine> fromJson(const nlohmann::json& j);
};

/// This machine's CPU: the cached measurement when it describes this CPU, else a new one (then
/// cached). `remeasure` ignores the cache.
HostMachine hostMachine(bool remeasure = false);

/// Measures now, without the cache.
HostMachine measureHost();

}  // namespace tessel
