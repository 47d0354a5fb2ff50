#!/usr/bin/env bash
# The main job: compile the 3-D heat benchmark, run it on the default backend (generated
# C++/OpenMP), verify it against the reference interpreter, and report time and throughput.
# Extra arguments go to `tessel run` (e.g. --param L=64 --param M=64 --param N=64).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
mkdir -p out/demo
echo
echo "== tessel info benchmarks/heat.sten =="
./build/tessel info benchmarks/heat.sten --param L=128 --param M=128 --param N=128 | sed -n '1,20p'
echo
# heat.sten's `#pragma stream k` schedules its GPU kernels; on the C++ backend that would run
# those kernels on the CPU (verified, not tuned for a CPU: 20x slower here). --schedule global
# runs the C++ loop nests, the fast form on a CPU.
echo "== tessel run benchmarks/heat.sten --backend cpp --schedule global --verify =="
./build/tessel run benchmarks/heat.sten --backend cpp --schedule global --verify --repeat 3 \
  --param L=128 --param M=128 --param N=128 \
  --work-dir out/demo/generated --output out/demo/results "$@"
echo
echo "generated C++: out/demo/generated/   results (NumPy .npy): out/demo/results/"
