// Files for the end-to-end tests: a benchmark's path, a fresh temporary directory, a file's text.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/command.h"

namespace tessel::testing {

/// benchmarks/NAME.sten of the source tree.
inline std::string benchFile(const std::string& name) {
  return sourceDir() + "/benchmarks/" + name + ".sten";
}

/// An empty directory TMP/tessel-PREFIX-PID/NAME (removed first if it exists).
inline std::filesystem::path freshTempDir(const std::string& prefix, const std::string& name) {
  namespace fs = std::filesystem;
  fs::path d =
      fs::temp_directory_path() / ("tessel-" + prefix + "-" + std::to_string(getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// The whole text of a file ("" if it cannot be read).
inline std::string readText(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

}  // namespace tessel::testing
