// Running the `tessel` binary from tests: exit status and captured output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace tessel::testing {

struct CommandResult {
  int exitCode = -1;   // -1 if the process did not exit normally (crashed)
  std::string output;  // stdout and stderr together
};

inline CommandResult runCommand(const std::string& cmd) {
  CommandResult r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int status = pclose(p);
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  return r;
}

inline std::string tesselBinary() { return TESSEL_BINARY; }
inline std::string sourceDir() { return TESSEL_SOURCE_DIR; }

}  // namespace tessel::testing
