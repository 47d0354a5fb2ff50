// The host CPU measured as a machine (host.h).
#include "model/host.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

namespace tessel {

namespace {

using Clock = std::chrono::steady_clock;

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(" \t"));
        return name;
      }
    }
  return "unknown CPU";
}

/// The size of the data or unified cache of `level` from sysfs (e.g. "48K"), else 0.
int64_t cacheBytes(int level) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    auto read = [&](const char* name) {
      std::ifstream in(e.path() / name);
      std::string s;
      std::getline(in, s);
      return s;
    };
    if (read("level") != std::to_string(level) || read("type") == "Instruction") continue;
    const std::string size = read("size");
    if (size.empty()) continue;
    int64_t v = std::atoll(size.c_str());
    if (size.back() == 'K') v *= 1024;
    if (size.back() == 'M') v *= 1024 * 1024;
    return v;
  }
  return 0;
}

/// Runs `work(thread)` on `threads` threads at once; the seconds of the slowest.
template <typename F>
double parallelSeconds(int threads, F work) {
  std::vector<std::thread> pool;
  const auto start = Clock::now();
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Copy bandwidth (bytes read + written per second, the STREAM convention) of every thread
/// copying its own pair of `elements`-double arrays `reps` times; the best of 5 runs.
double copyBandwidth(int threads, size_t elements, int reps) {
  std::vector<std::vector<double>> a(threads, std::vector<double>(elements, 1.0)),
      b(threads, std::vector<double>(elements, 0.0));
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    const double s = parallelSeconds(threads, [&](int t) {
      for (int r = 0; r < reps; ++r) {
        std::copy(a[t].begin(), a[t].end(), b[t].begin());
        a[t][static_cast<size_t>(r) % elements] += b[t][0];  // keep the copies live
      }
    });
    best = std::max(best, 2.0 * sizeof(double) * elements * reps * threads / s);
  }
  return best;
}

/// Multiply-add throughput: 8 independent chains per thread, the best of 5 runs.
double flopRate(int threads) {
  constexpr int kChains = 8;
  constexpr int64_t kIters = 4'000'000;
  std::vector<double> sink(static_cast<size_t>(threads));
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    const double s = parallelSeconds(threads, [&](int t) {
      double x[kChains];
      for (int c = 0; c < kChains; ++c) x[c] = 1.0 + c * 1e-9;
      const double m = 0.999999999, a = 1e-9;
      for (int64_t i = 0; i < kIters; ++i)
        for (int c = 0; c < kChains; ++c) x[c] = x[c] * m + a;
      double sum = 0;
      for (double v : x) sum += v;
      sink[static_cast<size_t>(t)] = sum;
    });
    best = std::max(best, 2.0 * kChains * kIters * threads / s);
  }
  if (sink[0] == 42.0) best += 0;  // the result is used
  return best;
}

std::filesystem::path cachePath() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "tessel" / "host.json";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".cache" / "tessel" / "host.json";
  return std::filesystem::temp_directory_path() / "tessel-host.json";
}

}  // namespace

nlohmann::json HostMachine::toJson() const {
  return {{"cpu", cpu},
          {"cores", cores},
          {"l1d_bytes", l1dBytes},
          {"l2_bytes", l2Bytes},
          {"l3_bytes", l3Bytes},
          {"dram_copy_bandwidth_bytes_per_s", dramCopyBandwidth},
          {"l2_copy_bandwidth_bytes_per_s", l2CopyBandwidth},
          {"fp64_flop_per_s", fp64FlopRate},
          {"measured_at", measuredAt},
          {"sources",
           {{"l1d_bytes", "/sys/devices/system/cpu/cpu0/cache"},
            {"dram_copy_bandwidth_bytes_per_s",
             "measured: every core copying its own arrays of 4x the last-level cache, bytes "
             "read + written per second (STREAM's convention), best of 5"},
            {"l2_copy_bandwidth_bytes_per_s",
             "measured: every core copying arrays that fit half its L2, best of 5"},
            {"fp64_flop_per_s",
             "measured: 8 independent multiply-add chains per core as Tessel's build compiles "
             "them (not the vector peak), best of 5"}}}};
}

std::optional<HostMachine> HostMachine::fromJson(const nlohmann::json& j) {
  try {
    HostMachine h;
    h.cpu = j.at("cpu");
    h.cores = j.at("cores");
    h.l1dBytes = j.at("l1d_bytes");
    h.l2Bytes = j.at("l2_bytes");
    h.l3Bytes = j.at("l3_bytes");
    h.dramCopyBandwidth = j.at("dram_copy_bandwidth_bytes_per_s");
    h.l2CopyBandwidth = j.at("l2_copy_bandwidth_bytes_per_s");
    h.fp64FlopRate = j.at("fp64_flop_per_s");
    h.measuredAt = j.at("measured_at");
    if (h.cores <= 0 || h.dramCopyBandwidth <= 0 || h.fp64FlopRate <= 0) return std::nullopt;
    return h;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

HostMachine measureHost() {
  HostMachine h;
  h.cpu = cpuModel();
  h.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  h.l1dBytes = cacheBytes(1);
  h.l2Bytes = cacheBytes(2);
  h.l3Bytes = cacheBytes(3);
  const int64_t llc = std::max({h.l3Bytes, h.l2Bytes, int64_t{8} << 20});
  // DRAM: 4x the last-level cache in all (source and destination over every core).
  const size_t dramElems = static_cast<size_t>(4 * llc / (2 * sizeof(double) * h.cores));
  h.dramCopyBandwidth = copyBandwidth(h.cores, std::max<size_t>(dramElems, 1 << 16), 2);
  const int64_t l2 = h.l2Bytes > 0 ? h.l2Bytes : 256 << 10;
  const size_t l2Elems = static_cast<size_t>(l2 / 2 / (2 * sizeof(double)));
  h.l2CopyBandwidth = copyBandwidth(
      h.cores, l2Elems, static_cast<int>(std::max<size_t>(1, (64u << 20) / (l2Elems * 16))));
  h.fp64FlopRate = flopRate(h.cores);
  h.measuredAt = fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", fmt::gmtime(std::time(nullptr)));
  return h;
}

HostMachine hostMachine(bool remeasure) {
  const std::filesystem::path path = cachePath();
  const std::string cpu = cpuModel();
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!remeasure) {
    std::ifstream in(path);
    if (in) {
      auto j = nlohmann::json::parse(in, nullptr, false);
      if (!j.is_discarded())
        if (auto h = HostMachine::fromJson(j); h && h->cpu == cpu && h->cores == cores) {
          h->fromCache = true;
          h->cacheFile = path.string();
          return *h;
        }
    }
  }
  HostMachine h = measureHost();
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path);
  out << h.toJson().dump(2) << "\n";
  if (out) h.cacheFile = path.string();
  return h;
}

}  // namespace tessel
