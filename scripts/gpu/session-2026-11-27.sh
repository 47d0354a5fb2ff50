#!/bin/bash
# A call on a lent GPU on 2026-11-27 (../shared/docs/gpu-device.md): statement fusion under
# `global` (--fuse-statements, issue 13): CUDA correctness at awkward sizes on every benchmark,
# then times of `global` against `global --fuse-statements` for the programs with several
# statements per call. Each part under a deadline so that the call ends inside its limit.
# Before the call, here: build, strip into .gpu/ (gpu-device.md: cp build/tessel .gpu/ && strip
# .gpu/tessel; libfmt beside it). Then, on the device machine, from the repository root:
#   bash scripts/gpu/session-2026-11-27.sh
# Writes under $OUT: device.txt, awkward.csv, awkward-progress.txt, full.csv, full-progress.txt.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu TESSEL_MACHINES=$PWD/machines
T=.gpu/tessel
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }
{ nvidia-smi -L; nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1

# 1. Correctness at awkward sizes, 16 runs at once: every benchmark, global with and without.
timeout 70 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 16 \
  --repeat 1 --skip-cpp --csv "$OUT/awkward.csv" --families 'global[--fuse-statements]' \
  2> "$OUT/awkward-progress.txt"
echo "awkward done at $(elapsed) s" >> "$OUT/device.txt"

# 2. Times at the programs' own sizes, median of 5, one program at a time.
for b in rhs4center hypterm diffterm cosmo-hdiff denoise fdtd2d cheby; do
  [ "$(elapsed)" -gt 150 ] && { echo "timings stopped before $b at $(elapsed) s" >> "$OUT/device.txt"; break; }
  timeout 30 python3 scripts/bench.py --tessel $T --backend cuda --size full --no-verify \
    --repeat 5 --skip-cpp --benchmarks $b --csv /tmp/full-$b.csv \
    --families 'global[--fuse-statements]' 2>> "$OUT/full-progress.txt" > /dev/null
  if [ -f /tmp/full-$b.csv ]; then
    # (The test comes before the redirection creates the file: a header once.)
    if [ ! -f "$OUT/full.csv" ]; then cp /tmp/full-$b.csv "$OUT/full.csv"; else tail -n +2 /tmp/full-$b.csv >> "$OUT/full.csv"; fi
  fi
done
echo "all done at $(elapsed) s" >> "$OUT/device.txt"
