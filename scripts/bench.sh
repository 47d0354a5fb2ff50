#!/usr/bin/env bash
# Benchmark runner: installs what is missing, builds, then runs every benchmark under every
# schedule family on the GPU backend (default opencl) and on the C++ backend, prints one table
# and writes a CSV (scripts/bench.py --help lists the options, which this script passes on).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
exec python3 scripts/bench.py "$@"
