#include "model/machine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "model/occupancy.h"

namespace tessel {

namespace fs = std::filesystem;
using nlohmann::json;

std::string MachineDesc::computeCapability() const {
  return fmt::format("{}.{}", compute.ccMajor, compute.ccMinor);
}

std::vector<std::string> calibrationFamilies() {
  // schedule/family.h's familyName for each family (a layer above this one; test_schedule.cpp's
  // Machine.CalibrationFamiliesAreTheModels checks they agree), then the streamed fused kernel.
  return {"global", "global-stream", "shared", "stream", "overlapped", "stream + time_tile"};
}

std::vector<std::string> fusedCalibrationFamilies() { return {"overlapped", "stream + time_tile"}; }

namespace {

enum class Kind {
  String,
  Capability,
  PosInt,
  PosInt3,
  PosNumber,
  PosIntOrNull,
  PosNumberOrNull,
  FactorsOrNull,
  TileListsOrNull
};

struct Field {
  const char* name;
  Kind kind;
  bool figure;  // a measured figure: needs an entry in "sources"
};

const std::vector<Field>& fields() {
  static const std::vector<Field> f = {
      {"name", Kind::String, false},
      {"compute_capability", Kind::Capability, true},
      {"sms", Kind::PosInt, true},
      {"warp_size", Kind::PosInt, true},
      {"max_threads_per_block", Kind::PosInt, true},
      {"max_block_dims", Kind::PosInt3, true},
      {"max_grid_dims", Kind::PosInt3, true},
      {"max_threads_per_sm", Kind::PosInt, true},
      {"max_blocks_per_sm", Kind::PosInt, true},
      {"registers_per_sm", Kind::PosInt, true},
      {"max_registers_per_block", Kind::PosInt, true},
      {"max_registers_per_thread", Kind::PosInt, true},
      {"shared_memory_per_block_bytes", Kind::PosInt, true},
      {"shared_memory_per_block_optin_bytes", Kind::PosInt, true},
      {"shared_memory_per_sm_bytes", Kind::PosInt, true},
      {"peak_fp32_flop_per_s", Kind::PosNumber, true},
      {"peak_fp64_flop_per_s", Kind::PosNumber, true},
      {"dram_bandwidth_bytes_per_s", Kind::PosNumber, true},
      {"l2_size_bytes", Kind::PosIntOrNull, true},
      {"l2_bandwidth_bytes_per_s", Kind::PosNumberOrNull, true},
      {"sm_clock_hz", Kind::PosNumberOrNull, true},
      {"measured_dram_bandwidth_bytes_per_s", Kind::PosNumberOrNull, true},
      {"dram_latency_s", Kind::PosNumberOrNull, true},
      {"barrier_latency_s", Kind::PosNumberOrNull, true},
      {"calibration", Kind::FactorsOrNull, true},
      {"calibration_time_tiles", Kind::TileListsOrNull, true},
      {"sources", Kind::String, false},  // checked separately
      {"notes", Kind::String, false},    // checked separately
  };
  return f;
}

const char* expected(Kind k) {
  switch (k) {
    case Kind::String:
      return "a string";
    case Kind::Capability:
      return "a compute capability \"MAJOR.MINOR\", e.g. \"9.0\"";
    case Kind::PosInt:
      return "a positive integer";
    case Kind::PosInt3:
      return "a list of 3 positive integers [x, y, z]";
    case Kind::PosNumber:
      return "a positive number";
    case Kind::PosIntOrNull:
      return "a positive integer, or null where the vendor publishes no figure";
    case Kind::PosNumberOrNull:
      return "a positive number, or null where the vendor publishes no figure";
    case Kind::FactorsOrNull:
      return "an object of schedule families to positive factors, or null";
    case Kind::TileListsOrNull:
      return "an object of schedule families to lists of positive time tiles, or null";
  }
  return "?";
}

bool posInt(const json& v) {
  return (v.is_number_unsigned() && v.get<uint64_t>() >= 1 &&
          v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) ||
         (v.is_number_integer() && v.get<int64_t>() >= 1);
}
bool posNumber(const json& v) {
  return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0;
}
bool capability(const json& v, int& major, int& minor) {
  if (!v.is_string()) return false;
  const std::string s = v.get<std::string>();
  auto dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == s.size() || s.size() > 6) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != dot && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  major = std::stoi(s.substr(0, dot));
  minor = std::stoi(s.substr(dot + 1));
  return major >= 1;
}

bool valid(const json& v, Kind k) {
  int a = 0, b = 0;
  switch (k) {
    case Kind::String:
      return v.is_string() && !v.get<std::string>().empty();
    case Kind::Capability:
      return capability(v, a, b);
    case Kind::PosInt:
      return posInt(v);
    case Kind::PosInt3:
      return v.is_array() && v.size() == 3 && std::all_of(v.begin(), v.end(), posInt);
    case Kind::PosNumber:
      return posNumber(v);
    case Kind::PosIntOrNull:
      return v.is_null() || posInt(v);
    case Kind::PosNumberOrNull:
      return v.is_null() || posNumber(v);
    case Kind::FactorsOrNull:
      return v.is_null() || (v.is_object() && std::all_of(v.begin(), v.end(), posNumber));
    case Kind::TileListsOrNull:
      return v.is_null() || (v.is_object() && std::all_of(v.begin(), v.end(), [](const json& l) {
                               return l.is_array() && std::all_of(l.begin(), l.end(), posInt);
                             }));
  }
  return false;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<std::string> readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

}  // namespace

std::optional<MachineDesc> parseMachine(const std::string& text, const std::string& fileName,
                                        DiagnosticEngine& diags) {
  int errors = 0;
  auto bad = [&](std::string msg, std::string hint = {}) {
    diags.report(DiagId::bad_machine, {}, fmt::format("machine file '{}': {}", fileName, msg),
                 std::move(hint));
    ++errors;
  };
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    bad(fmt::format("not valid JSON: {}", what));
    return std::nullopt;
  }
  if (!j.is_object()) {
    bad("expected a JSON object of fields");
    return std::nullopt;
  }

  std::vector<std::string> known;
  for (auto& f : fields()) known.push_back(f.name);
  for (auto& [key, _] : j.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string hint;
    if (auto best = closestName(key, known)) hint = fmt::format("did you mean '{}'?", *best);
    bad(fmt::format("unknown field '{}'", key), hint);
  }
  for (auto& f : fields()) {
    if (std::string(f.name) == "sources" || std::string(f.name) == "notes") continue;
    if (!j.contains(f.name)) {
      bad(fmt::format("missing field '{}' ({})", f.name, expected(f.kind)));
    } else if (!valid(j[f.name], f.kind)) {
      bad(fmt::format("field '{}' must be {}, not {}", f.name, expected(f.kind), j[f.name].dump()));
    }
  }
  // Every figure names where it comes from (a null one says why there is none).
  if (!j.contains("sources") || !j["sources"].is_object()) {
    bad("missing field 'sources': an object giving, for each figure, where it comes from");
  } else {
    for (auto& [key, v] : j["sources"].items()) {
      auto it = std::find_if(fields().begin(), fields().end(),
                             [&](const Field& f) { return f.figure && key == f.name; });
      if (it == fields().end())
        bad(fmt::format("'sources' names '{}', which is not a figure of a machine file", key));
      else if (!v.is_string() || v.get<std::string>().empty())
        bad(fmt::format("'sources.{}' must be a non-empty string", key));
    }
    for (auto& f : fields())
      if (f.figure && !j["sources"].contains(f.name))
        bad(fmt::format("field '{}' has no entry in 'sources' saying where it comes from", f.name));
  }
  // The families the calibration is keyed by: a misspelt one would never be looked up, and its
  // factor silently left out of every prediction.
  auto families = [&](const char* field, const std::vector<std::string>& valid, const char* what) {
    if (!j.contains(field) || !j[field].is_object()) return;
    const std::vector<std::string> all = calibrationFamilies();
    for (auto& [key, _] : j[field].items()) {
      if (std::find(valid.begin(), valid.end(), key) != valid.end()) continue;
      std::string hint;  // a misspelling's closest (not for a family that fuses no steps)
      if (std::find(all.begin(), all.end(), key) == all.end())
        if (auto best = closestName(key, valid)) hint = fmt::format("did you mean '{}'?", *best);
      bad(fmt::format("'{}' names '{}', which is not {} ({})", field, key, what,
                      fmt::join(valid, ", ")),
          hint);
    }
  };
  families("calibration", calibrationFamilies(), "a schedule family of the model");
  families("calibration_time_tiles", fusedCalibrationFamilies(), "a family that fuses time steps");
  if (j.contains("notes") &&
      (!j["notes"].is_array() || !std::all_of(j["notes"].begin(), j["notes"].end(),
                                              [](const json& n) { return n.is_string(); })))
    bad("field 'notes' must be a list of strings");
  if (errors) return std::nullopt;

  MachineDesc m;
  m.id = lower(fs::path(fileName).stem().string());
  m.path = fileName;
  m.name = j["name"].get<std::string>();
  capability(j["compute_capability"], m.compute.ccMajor, m.compute.ccMinor);
  // The occupancy (model/occupancy.h) needs the allocation rules of the compute capability;
  // without them every kernel would be predicted at one block per SM, and no report would say so.
  if (!occupancyRules(m.compute.ccMajor, m.compute.ccMinor))
    bad(fmt::format("field 'compute_capability' is \"{}\", which the occupancy calculator has no "
                    "rules for (it knows {})",
                    j["compute_capability"].get<std::string>(),
                    fmt::join(occupancyCapabilities(), ", ")),
        "occupancy, and so every prediction, needs NVIDIA's allocation rules for the GPU's "
        "compute capability (src/model/occupancy.h)");
  auto i64 = [&](const char* k) { return j[k].get<int64_t>(); };
  m.compute.sms = i64("sms");
  m.compute.warpSize = i64("warp_size");
  m.limits.maxThreadsPerBlock = i64("max_threads_per_block");
  for (int d = 0; d < 3; ++d) {
    m.limits.maxBlockDims[d] = j["max_block_dims"][d].get<int64_t>();
    m.limits.maxGridDims[d] = j["max_grid_dims"][d].get<int64_t>();
  }
  m.limits.maxThreadsPerSm = i64("max_threads_per_sm");
  m.limits.maxBlocksPerSm = i64("max_blocks_per_sm");
  m.limits.registersPerSm = i64("registers_per_sm");
  m.limits.maxRegistersPerBlock = i64("max_registers_per_block");
  m.limits.maxRegistersPerThread = i64("max_registers_per_thread");
  m.memory.sharedPerBlock = i64("shared_memory_per_block_bytes");
  m.memory.sharedPerBlockOptin = i64("shared_memory_per_block_optin_bytes");
  m.memory.sharedPerSm = i64("shared_memory_per_sm_bytes");
  m.compute.peakFp32 = j["peak_fp32_flop_per_s"].get<double>();
  m.compute.peakFp64 = j["peak_fp64_flop_per_s"].get<double>();
  m.memory.dramBandwidth = j["dram_bandwidth_bytes_per_s"].get<double>();
  if (!j["l2_size_bytes"].is_null()) m.memory.l2Bytes = i64("l2_size_bytes");
  if (!j["l2_bandwidth_bytes_per_s"].is_null())
    m.memory.l2Bandwidth = j["l2_bandwidth_bytes_per_s"].get<double>();
  if (!j["sm_clock_hz"].is_null()) m.compute.smClock = j["sm_clock_hz"].get<double>();
  if (!j["calibration"].is_null())
    for (auto& [family, f] : j["calibration"].items()) m.calibration[family] = f.get<double>();
  if (!j["calibration_time_tiles"].is_null())
    for (auto& [family, l] : j["calibration_time_tiles"].items())
      for (auto& t : l) m.calibrationTimeTiles[family].insert(t.get<int>());
  if (!j["measured_dram_bandwidth_bytes_per_s"].is_null())
    m.memory.measuredDramBandwidth = j["measured_dram_bandwidth_bytes_per_s"].get<double>();
  if (!j["dram_latency_s"].is_null()) m.memory.dramLatency = j["dram_latency_s"].get<double>();
  if (!j["barrier_latency_s"].is_null())
    m.memory.barrierLatency = j["barrier_latency_s"].get<double>();
  for (auto& [k, v] : j["sources"].items()) m.sources[k] = v.get<std::string>();
  if (j.contains("notes"))
    for (auto& n : j["notes"]) m.notes.push_back(n.get<std::string>());

  // The figures must agree with each other.
  auto inconsistent = [&](bool cond, std::string msg) {
    if (cond) bad(std::move(msg));
  };
  inconsistent(m.limits.maxThreadsPerBlock % m.compute.warpSize != 0,
               fmt::format("max_threads_per_block {} is not a multiple of warp_size {}",
                           m.limits.maxThreadsPerBlock, m.compute.warpSize));
  inconsistent(m.limits.maxThreadsPerBlock > m.limits.maxThreadsPerSm,
               fmt::format("max_threads_per_block {} exceeds max_threads_per_sm {}",
                           m.limits.maxThreadsPerBlock, m.limits.maxThreadsPerSm));
  for (int d = 0; d < 3; ++d)
    inconsistent(m.limits.maxBlockDims[d] > m.limits.maxThreadsPerBlock,
                 fmt::format("max_block_dims[{}] = {} exceeds max_threads_per_block {}", d,
                             m.limits.maxBlockDims[d], m.limits.maxThreadsPerBlock));
  inconsistent(m.limits.maxRegistersPerBlock > m.limits.registersPerSm,
               fmt::format("max_registers_per_block {} exceeds registers_per_sm {}",
                           m.limits.maxRegistersPerBlock, m.limits.registersPerSm));
  inconsistent(m.memory.sharedPerBlock > m.memory.sharedPerBlockOptin,
               fmt::format("shared_memory_per_block_bytes {} exceeds "
                           "shared_memory_per_block_optin_bytes {}",
                           m.memory.sharedPerBlock, m.memory.sharedPerBlockOptin));
  inconsistent(m.memory.sharedPerBlockOptin > m.memory.sharedPerSm,
               fmt::format("shared_memory_per_block_optin_bytes {} exceeds "
                           "shared_memory_per_sm_bytes {}",
                           m.memory.sharedPerBlockOptin, m.memory.sharedPerSm));
  if (errors) return std::nullopt;
  return m;
}

std::vector<fs::path> machineSearchPath() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("TESSEL_MACHINES")) {
    std::string s = env;
    size_t start = 0;
    while (start <= s.size()) {
      size_t end = s.find(':', start);
      if (end == std::string::npos) end = s.size();
      if (end > start) dirs.emplace_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
#ifdef TESSEL_MACHINES_DIR
  dirs.emplace_back(TESSEL_MACHINES_DIR);
#endif
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path() / "machines");
    dirs.push_back(exe.parent_path() / ".." / "share" / "tessel" / "machines");
  }
  return dirs;
}

std::vector<std::string> listMachines(const std::vector<fs::path>& searchPath) {
  std::set<std::string> ids;
  for (auto& dir : searchPath) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json") ids.insert(lower(it->path().stem().string()));
  }
  return {ids.begin(), ids.end()};
}

std::optional<MachineDesc> loadMachine(const std::string& nameOrPath, DiagnosticEngine& diags,
                                       const std::vector<fs::path>& searchPath) {
  bool isPath = nameOrPath.find('/') != std::string::npos ||
                (nameOrPath.size() > 5 && nameOrPath.substr(nameOrPath.size() - 5) == ".json");
  fs::path file;
  if (isPath) {
    file = nameOrPath;
  } else {
    std::string id = lower(nameOrPath);
    bool plain = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
    for (auto& dir : searchPath) {
      std::error_code ec;
      if (plain && fs::is_regular_file(dir / (id + ".json"), ec)) {
        file = dir / (id + ".json");
        break;
      }
    }
    if (file.empty() && id == "host") {
      diags.report(DiagId::bad_machine, {},
                   "'host' is this machine's CPU (measured; `tessel machines` lists it): the GPU "
                   "performance model cannot predict GPU kernels on it",
                   "name a GPU (`tessel machines` lists them); MODESTO's grouping takes the "
                   "host as a CPU hierarchy (DRAM and L2): --fusion-groups modesto --machine host "
                   "for the C++ backend, or tessel split --mode modesto --machine host");
      return std::nullopt;
    }
    if (file.empty()) {
      auto ids = listMachines(searchPath);
      std::string hint;
      if (auto best = closestName(id, ids)) {
        hint = fmt::format("did you mean '{}'?", *best);
      } else if (ids.empty()) {
        hint = "no machine files were found; set TESSEL_MACHINES to a directory of them";
      } else {
        hint = "known machines:";
        for (size_t i = 0; i < ids.size(); ++i) hint += (i ? ", " : " ") + ids[i];
        hint += "; or give the path of a machine file (.json)";
      }
      diags.report(DiagId::bad_machine, {}, fmt::format("unknown machine '{}'", nameOrPath), hint);
      return std::nullopt;
    }
  }
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    diags.report(DiagId::bad_machine, {},
                 fmt::format("machine file '{}' {}", file.string(),
                             fs::is_directory(file, ec) ? "is a directory"
                             : fs::exists(file, ec)     ? "is not a regular file"
                                                        : "does not exist"),
                 "give a machine's name (tessel machines lists them) or the path of a machine "
                 "file (.json)");
    return std::nullopt;
  }
  auto text = readFile(file);
  if (!text) {
    diags.report(DiagId::bad_machine, {},
                 fmt::format("machine file '{}' cannot be read", file.string()));
    return std::nullopt;
  }
  return parseMachine(*text, file.string(), diags);
}

}  // namespace tessel
