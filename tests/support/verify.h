// `tessel run FILE --backend B --verify FLAGS` as a test expectation, shared by the end-to-end
// tests that verify programs on PoCL and the C++ backend through the command line.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "support/command.h"

namespace tessel::testing {

/// The run exits 0 and passes verification against the reference interpreter.
inline void expectRunVerifies(const std::string& file, const std::string& backend,
                              const std::string& flags) {
  const std::string cmd =
      tesselBinary() + " run " + file + " --backend " + backend + " --verify " + flags;
  auto r = runCommand(cmd);
  EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
  EXPECT_NE(r.output.find("verification PASSED"), std::string::npos) << cmd << "\n" << r.output;
}

}  // namespace tessel::testing
