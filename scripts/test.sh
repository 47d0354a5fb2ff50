#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, diagnostics, end-to-end, fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
# deps.sh installed PoCL: a missing OpenCL device is a failure here, not a skipped test.
export TESSEL_TESTS_REQUIRE_OPENCL=1
ctest --output-on-failure -j "$(nproc)" "$@"
