#!/bin/bash
# The second call on the lent H100 of 2026-11-26 (../shared/docs/gpu-device.md): CUDA correctness
# and timings of unrolling in every family and prefetching (issue 12, docs/gpu.md sections 16 and
# 17), alone and with retiming. Each part under a deadline so that the call ends inside its limit.
# Run from the repository root with the stripped binary in .gpu/ and $OUT set by the device tool:
#   bash scripts/gpu/session-2026-11-26b.sh
# Writes under $OUT: device.txt, awkward.csv, awkward-progress.txt, full.csv, full-progress.txt.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu TESSEL_MACHINES=$PWD/machines
T=.gpu/tessel
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }
{ nvidia-smi -L; nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1

# 1. Correctness: every benchmark x the new variants, verified at awkward sizes, 16 at once.
timeout 150 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 16 \
  --repeat 1 --skip-cpp --csv "$OUT/awkward.csv" \
  --families 'stream[--prefetch],stream[--unroll i=2],stream[--unroll i=2,cyclic],global[--unroll i=2],global-stream[--unroll i=2],stream[--retime --prefetch],stream[--retime --unroll i=2,cyclic]' \
  2> "$OUT/awkward-progress.txt"
echo "awkward done at $(elapsed) s" >> "$OUT/device.txt"

# 2. Timings, the programs' own sizes, median of 5, one benchmark at a time.
FIRST=1
for b in j3d27pt j3d7pt heat j3d17pt gaussian j3d13pt j2d9pt j2d5pt poisson helmholtz hypterm \
         cosmo-hdiff cheby denoise; do
  [ "$(elapsed)" -gt 285 ] && { echo "timings stopped before $b at $(elapsed) s" >> "$OUT/device.txt"; break; }
  timeout 60 python3 scripts/bench.py --tessel $T --backend cuda --size full --no-verify \
    --repeat 5 --skip-cpp --benchmarks $b --csv /tmp/full-$b.csv \
    --families 'stream,stream[--prefetch],stream[--unroll i=2,cyclic],stream[--unroll i=2],global[--unroll i=2],stream[--retime --prefetch],stream[--retime --unroll i=2,cyclic]' \
    2>> "$OUT/full-progress.txt" > /dev/null
  if [ -f /tmp/full-$b.csv ]; then
    if [ $FIRST = 1 ]; then cat /tmp/full-$b.csv; FIRST=0; else tail -n +2 /tmp/full-$b.csv; fi >> "$OUT/full.csv"
  fi
done
echo "all done at $(elapsed) s" >> "$OUT/device.txt"
