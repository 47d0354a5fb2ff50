#!/usr/bin/env bash
# Configures and builds Tessel into build/ (the command line is build/tessel).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# Release at -O2 without debug information: debug information makes every file about a quarter
# slower to compile, and this is the build CI runs on a fresh machine. A developer who wants it
# configures build/ (or another directory) with -DCMAKE_BUILD_TYPE=RelWithDebInfo.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
ninja -C build -j "$(nproc)"
