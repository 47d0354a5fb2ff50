#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, diagnostics, end-to-end, fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
