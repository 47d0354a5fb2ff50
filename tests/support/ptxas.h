// `tessel info --kernels --json FILE FLAGS` with ptxas's figures as a test expectation: the CUDA
// of a schedule compiles with nvcc (sm_90) and no kernel spills. Shared by the end-to-end tests
// of the register-level optimisations (prefetch, fold, perspectives).
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/command.h"

namespace tessel::testing {

/// Every kernel of `file` under `flags` has ptxas's registers (more than 0) and no spill; the
/// kernels' JSON for further checks (an empty array after a failure).
inline nlohmann::json expectKernelsCompileWithoutSpills(const std::string& file,
                                                        const std::string& flags) {
  const std::string cmd = tesselBinary() + " info --kernels --json " + file + " " + flags;
  auto r = runCommand(cmd);
  EXPECT_EQ(r.exitCode, 0) << cmd << "\n" << r.output;
  if (r.exitCode != 0) return nlohmann::json::array();
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  for (const auto& k : j["kernels"]) {
    EXPECT_TRUE(k.contains("registers")) << cmd << "\n" << k;
    EXPECT_GT(k.value("registers", 0), 0) << cmd << "\n" << k;
    EXPECT_EQ(k.value("spill_bytes", -1), 0) << cmd << "\n" << k;
  }
  return j["kernels"];
}

}  // namespace tessel::testing
