#include "driver/machines.h"

#include <fmt/format.h>

#include <vector>

#include "model/host.h"
#include "model/machine.h"

namespace tessel {

namespace {

std::vector<MachineDesc> loadAll(DiagnosticEngine& diags) {
  std::vector<MachineDesc> out;
  for (const std::string& id : listMachines())
    if (auto m = loadMachine(id, diags)) out.push_back(std::move(*m));
  return out;
}

std::string bandwidth(double bytesPerS) { return fmt::format("{:.3g} TB/s", bytesPerS / 1e12); }

}  // namespace

std::string machinesText(DiagnosticEngine& diags) {
  std::string out =
      fmt::format("{:<6} {:<28} {:>3} {:>4} {:>9} {:>9} {:>22} {:>9} {:>7}  {}\n", "id", "name",
                  "cc", "SMs", "FP64", "FP32", "DRAM (measured)", "smem/SM", "L2", "file");
  for (const MachineDesc& m : loadAll(diags)) {
    std::string dram = bandwidth(m.memory.dramBandwidth);
    if (m.memory.measuredDramBandwidth)
      dram += fmt::format(" ({})", bandwidth(*m.memory.measuredDramBandwidth));
    out +=
        fmt::format("{:<6} {:<28} {:>3} {:>4} {:>6.3g} TF {:>6.3g} TF {:>22} {:>5} KiB {:>7}  {}\n",
                    m.id, m.name, m.computeCapability(), m.compute.sms, m.compute.peakFp64 / 1e12,
                    m.compute.peakFp32 / 1e12, dram, m.memory.sharedPerSm / 1024,
                    m.memory.l2Bytes ? fmt::format("{:g} MiB", *m.memory.l2Bytes / 1048576.0)
                                     : std::string("-"),
                    m.path);
  }
  const HostMachine h = hostMachine();
  out += fmt::format(
      "host   {} ({} cores; L1d {} KiB, L2 {} KiB, L3 {} MiB): DRAM copy {:.3g} GB/s, L2 copy "
      "{:.3g} GB/s, {:.3g} GFLOP/s FP64 multiply-add, all measured {} ({})\n",
      h.cpu, h.cores, h.l1dBytes / 1024, h.l2Bytes / 1024, h.l3Bytes / 1048576.0,
      h.dramCopyBandwidth / 1e9, h.l2CopyBandwidth / 1e9, h.fp64FlopRate / 1e9, h.measuredAt,
      h.fromCache ? "cached in " + h.cacheFile : "now");
  out += fmt::format("default: {}; pick one with --machine ID or --machine FILE.json\n",
                     kDefaultMachine);
  return out;
}

nlohmann::json machinesJson(DiagnosticEngine& diags) {
  nlohmann::json out = nlohmann::json::array();
  for (const MachineDesc& m : loadAll(diags)) {
    // Every figure of the machine file (machines/README.md), under its field's name.
    nlohmann::json j = {{"id", m.id},
                        {"name", m.name},
                        {"file", m.path},
                        {"compute_capability", m.computeCapability()},
                        {"sms", m.compute.sms},
                        {"warp_size", m.compute.warpSize},
                        {"max_threads_per_block", m.limits.maxThreadsPerBlock},
                        {"max_block_dims", m.limits.maxBlockDims},
                        {"max_grid_dims", m.limits.maxGridDims},
                        {"max_threads_per_sm", m.limits.maxThreadsPerSm},
                        {"max_blocks_per_sm", m.limits.maxBlocksPerSm},
                        {"registers_per_sm", m.limits.registersPerSm},
                        {"max_registers_per_block", m.limits.maxRegistersPerBlock},
                        {"max_registers_per_thread", m.limits.maxRegistersPerThread},
                        {"shared_memory_per_block_bytes", m.memory.sharedPerBlock},
                        {"shared_memory_per_block_optin_bytes", m.memory.sharedPerBlockOptin},
                        {"shared_memory_per_sm_bytes", m.memory.sharedPerSm},
                        {"peak_fp64_flop_per_s", m.compute.peakFp64},
                        {"peak_fp32_flop_per_s", m.compute.peakFp32},
                        {"dram_bandwidth_bytes_per_s", m.memory.dramBandwidth},
                        {"sources", m.sources},
                        {"notes", m.notes}};
    j["l2_bandwidth_bytes_per_s"] =
        m.memory.l2Bandwidth ? nlohmann::json(*m.memory.l2Bandwidth) : nlohmann::json();
    j["measured_dram_bandwidth_bytes_per_s"] = m.memory.measuredDramBandwidth
                                                   ? nlohmann::json(*m.memory.measuredDramBandwidth)
                                                   : nlohmann::json(nullptr);
    j["sm_clock_hz"] = m.compute.smClock ? nlohmann::json(*m.compute.smClock) : nlohmann::json();
    j["l2_size_bytes"] = m.memory.l2Bytes ? nlohmann::json(*m.memory.l2Bytes) : nlohmann::json();
    j["calibration"] = m.calibration.empty() ? nlohmann::json() : nlohmann::json(m.calibration);
    j["dram_latency_s"] =
        m.memory.dramLatency ? nlohmann::json(*m.memory.dramLatency) : nlohmann::json();
    j["barrier_latency_s"] =
        m.memory.barrierLatency ? nlohmann::json(*m.memory.barrierLatency) : nlohmann::json();
    j["calibration_time_tiles"] =
        m.calibrationTimeTiles.empty() ? nlohmann::json() : nlohmann::json(m.calibrationTimeTiles);
    j["default"] = m.id == kDefaultMachine;
    j["kind"] = "gpu";
    out.push_back(j);
  }
  // The host CPU, measured (model/host.h).
  const HostMachine h = hostMachine();
  nlohmann::json host = h.toJson();
  host["id"] = "host";
  host["kind"] = "cpu";
  host["default"] = false;
  host["from_cache"] = h.fromCache;
  host["cache_file"] = h.cacheFile;
  out.push_back(host);
  return out;
}

}  // namespace tessel
