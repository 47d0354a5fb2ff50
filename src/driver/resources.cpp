#include "driver/resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "codegen/gpu_backend.h"
#include "perf/kernel_figures.h"

namespace fs = std::filesystem;

namespace tessel {

namespace {

// Reports are cached like builds: $XDG_CACHE_HOME/tessel/resources, else ~/.cache/...
fs::path resourcesCache() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return fs::path(x) / "tessel" / "resources";
  if (const char* h = std::getenv("HOME"); h && *h)
    return fs::path(h) / ".cache" / "tessel" / "resources";
  return {};  // a temporary directory, removed after
}

std::string what(const GpuKernelInfo& k) {
  return fmt::format("{} {}x{}x{}", familyText(k), k.block[0], k.block[1], k.block[2]);
}

// ptxas reports kernels in its own order; show them in launch order.
std::vector<KernelResources> inLaunchOrder(const ResourcesResult& r) {
  std::vector<KernelResources> out;
  for (auto& k : r.kernels)
    if (auto* f = r.report.find(k.name)) out.push_back(*f);
  for (auto& k : r.report.kernels)
    if (std::none_of(out.begin(), out.end(), [&](auto& o) { return o.name == k.name; }))
      out.push_back(k);
  return out;
}

const GpuKernelInfo* infoOf(const ResourcesResult& r, const std::string& name) {
  for (auto& k : r.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

/// The kernel whose 64-bit copy (pass narrow-indices) `name` is, or null.
const GpuKernelInfo* copyOf(const ResourcesResult& r, const std::string& name) {
  for (auto& k : r.kernels)
    if (k.fallback >= 0 && k.name + "_i64" == name) return &k;
  return nullptr;
}

/// The schedule column: family and block, or what the kernel is a copy of.
std::string scheduleOf(const ResourcesResult& r, const std::string& name) {
  if (const GpuKernelInfo* i = infoOf(r, name)) return what(*i);
  if (copyOf(r, name)) return "64-bit copy";
  return "?";
}

int indexBitsOf(const ResourcesResult& r, const std::string& name) {
  const GpuKernelInfo* i = infoOf(r, name);
  return i ? i->indexBits : 64;
}

}  // namespace

ResourcesResult programResources(const Program& prog, const ResolvedSchedule& resolved,
                                 const std::string& arch, ResourcesBuild build) {
  GpuSources src = generateGpu(prog, GpuApi::Cuda, resolved, arch);
  CudaResourceOptions o;
  o.arch = arch;
  o.deviceOnly = build == ResourcesBuild::KernelsOnly;
  o.cacheRoot = resourcesCache();
  ResourcesResult r;
  r.report = cudaResources(src.hostSource, o);
  r.kernels = src.kernels;
  r.notes = src.notes;
  return r;
}

std::string resourcesText(const ResourcesResult& r) {
  const CudaResourceReport& rep = r.report;
  std::vector<KernelResources> ks = inLaunchOrder(r);
  std::string out =
      fmt::format("ptxas resources for {} ({} kernel{}, in launch order{})\n", rep.arch, ks.size(),
                  ks.size() == 1 ? "" : "s", rep.reused ? "; cached report" : "");
  size_t w = 6, sw = 8;
  for (auto& k : ks) {
    w = std::max(w, k.name.size());
    sw = std::max(sw, scheduleOf(r, k.name).size());
  }
  auto row = [&](auto name, auto sched, auto ints, auto regs, auto shared, auto local, auto st,
                 auto ld, auto bar) {
    return fmt::format("  {:<{}}  {:<{}}  {:>5}  {:>9}  {:>10}  {:>9}  {:>11}  {:>10}  {:>8}\n",
                       name, w, sched, sw, ints, regs, shared, local, st, ld, bar);
  };
  out += row("kernel", "schedule", "ints", "registers", "shared B", "local B", "spill st. B",
             "spill ld. B", "barriers");
  for (auto& k : ks)
    out += row(k.name, scheduleOf(r, k.name), indexBitsOf(r, k.name), k.registers, k.sharedBytes,
               std::max(k.localBytes, k.stackBytes), k.spillStores, k.spillLoads, k.barriers);
  out +=
      "  ints: bits of the kernel's index arithmetic (pass narrow-indices; a 64-bit copy runs\n"
      "  when the sizes of a run need it); shared: static shared memory per block; local:\n"
      "  per-thread local memory (ptxas's lmem or stack frame); spills: bytes stored and loaded\n"
      "  per thread\n";
  if (!rep.warnings.empty()) {
    out += fmt::format("nvcc printed {} warning line{}:\n", rep.warnings.size(),
                       rep.warnings.size() == 1 ? "" : "s");
    for (auto& l : rep.warnings) out += "  " + l + "\n";
  }
  out += "command: " + rep.command + "\n";
  for (auto& n : r.notes) out += "note: " + n + "\n";
  return out;
}

nlohmann::json resourcesJson(const ResourcesResult& r) {
  nlohmann::json j;
  j["arch"] = r.report.arch;
  j["command"] = r.report.command;
  j["warnings"] = r.report.warnings;
  j["notes"] = r.notes;
  j["kernels"] = nlohmann::json::array();
  for (auto& k : inLaunchOrder(r)) {
    nlohmann::json e = {{"name", k.name},
                        {"registers", k.registers},
                        {"shared_bytes", k.sharedBytes},
                        {"local_bytes", k.localBytes},
                        {"stack_bytes", k.stackBytes},
                        {"spill_store_bytes", k.spillStores},
                        {"spill_load_bytes", k.spillLoads},
                        {"barriers", k.barriers},
                        {"constant_bytes", k.constantBytes},
                        {"index_bits", indexBitsOf(r, k.name)}};
    // A 64-bit copy runs the schedule of the kernel it copies: the same keys, and which it is.
    const GpuKernelInfo* info = infoOf(r, k.name);
    if (const GpuKernelInfo* orig = copyOf(r, k.name)) {
      e["copy_of"] = orig->name;
      if (!info) info = orig;
    }
    if (info) {
      e["family"] = familyText(*info);
      e["block"] = info->block;
      e["call"] = info->call;
      e["statement"] = info->stmt;
    }
    j["kernels"].push_back(e);
  }
  return j;
}

}  // namespace tessel
