// The kernel report (`tessel info --kernels --json`) of a program's fused kernel (stream +
// time_tile), for the tests of the optimisations applied to it.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/command.h"
#include "unit/gpu_test_util.h"

namespace tessel::testing {

/// The report of benchmark `bench`'s first stream + time_tile kernel under `flags` (the
/// schedule's flags after `--schedule stream`), without ptxas; a failure when there is none.
inline nlohmann::json fusedKernelReport(const std::string& bench, const std::string& flags) {
  auto r = runCommand(tesselBinary() + " info --kernels --json --no-ptxas " +
                      gputest::benchmarkPath(bench).string() + " --schedule stream " + flags);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  const nlohmann::json info = nlohmann::json::parse(r.output);
  for (const nlohmann::json& k : info["kernels"])
    if (k["family"] == "stream + time_tile") return k;
  ADD_FAILURE() << "no fused kernel: " << r.output;
  return nlohmann::json::object({{"applied", ""}});
}

}  // namespace tessel::testing
