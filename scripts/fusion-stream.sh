#!/usr/bin/env bash
# Issue 13's report of the `stream` family's statement fusion (`--fuse-statements`: each call of
# several statements one streamed kernel, the fused kernel of stream + time_tile with one step)
# against the same family per statement and against `global`, for the multi-statement
# benchmarks:
#   1. predicted on the H100 by the model (`tessel analyze --machine h100`, the programs' own
#      sizes, ptxas registers where nvcc is installed): a prediction, not a measurement;
#   2. measured on this machine's PoCL (OpenCL on the CPU: says nothing about a GPU;
#      scripts/bench.py --size small, median of 5, every run verified against the reference
#      interpreter).
# Usage: scripts/fusion-stream.sh [OUT_DIR] [BENCHMARKS]   (default: bench-results/fusion-stream,
#        rhs4center,rhs4sg,diffterm,hypterm,cosmo-hdiff,denoise)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-bench-results/fusion-stream}"
which="${2:-rhs4center,rhs4sg,diffterm,hypterm,cosmo-hdiff,denoise}"
tessel=build/tessel
mkdir -p "$out"
scripts/predicted-h100.sh "$tessel" benchmarks "$which" "global|stream|stream --fuse-statements" \
  > "$out/predicted-h100.csv"
python3 scripts/bench.py --benchmarks "$which" --backend opencl --skip-cpp \
  --families "global,stream,stream[--fuse-statements]" --repeat 5 --csv "$out/pocl.csv"
cat "$out/predicted-h100.csv"
