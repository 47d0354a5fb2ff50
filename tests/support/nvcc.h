// nvcc in the tests. A test that needs the CUDA toolkit (ptxas's registers and spills, CUDA that
// must compile) skips where nvcc is missing, and fails instead where scripts/test.sh found the
// toolkit or runs in CI (TESSEL_TESTS_REQUIRE_NVCC=1): there a quietly skipped test would leave
// the figures it pins unchecked.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>

#include "exec/cuda_resources.h"

namespace tessel::testing {

/// Whether a missing nvcc fails the test (TESSEL_TESTS_REQUIRE_NVCC is set).
inline bool nvccRequired() { return std::getenv("TESSEL_TESTS_REQUIRE_NVCC") != nullptr; }

}  // namespace tessel::testing

/// Skips the test where nvcc is missing, or fails it where the test job requires nvcc.
#define TESSEL_REQUIRE_NVCC()                                                           \
  do {                                                                                  \
    if (::tessel::findNvcc().empty()) {                                                 \
      if (::tessel::testing::nvccRequired())                                            \
        FAIL() << "nvcc not found (TESSEL_TESTS_REQUIRE_NVCC is set)";                  \
      GTEST_SKIP() << "skipped: nvcc not found (install the CUDA toolkit or set NVCC)"; \
    }                                                                                   \
  } while (0)
