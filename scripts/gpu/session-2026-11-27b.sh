#!/bin/bash
# A call on a lent GPU on 2026-11-27 (../shared/docs/gpu-device.md): every benchmark x every
# schedule family of today's kernels (after issues 11-13), for the performance model's
# predicted-versus-measured table and calibration (issue 10, docs/model.md): CUDA correctness at
# awkward sizes, then times at the programs' own sizes. Each part under a deadline so that the
# call ends inside its limit.
# Before the call, here: build, strip into .gpu/ (gpu-device.md: strip -o .gpu/tessel
# build/tessel; libfmt beside it). Then, on the device machine, from the repository root:
#   bash scripts/gpu/session-2026-11-27b.sh
# Writes under $OUT: device.txt (with the copy bandwidth), awkward.csv, awkward-progress.txt,
# full.csv, full-progress.txt.
# On the H200 of 2026-11-27 the timings stopped before cosmo-hdiff (443 s); a second call on the
# same warm machine ran part 3's loop for the seven programs left (96 s, the kernel cache kept),
# and a third timed the model's register cap (docs/performance.md): the same loop over j3d7pt,
# heat, j3d27pt and poisson with timeout 60 and --families 'overlapped/2,overlapped/2[--max-registers
# auto],stream/2,stream/2[--max-registers auto],overlapped,overlapped[--max-registers auto]'.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu TESSEL_MACHINES=$PWD/machines XDG_CACHE_HOME=/tmp/tessel-cache
T=.gpu/tessel
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }
FAMILIES='global,global-stream,shared,stream,stream/2,overlapped,overlapped/2,overlapped/3'
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total --format=csv
  nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1
# The machine file's measured copy bandwidth and L2 size (machines/h200.json has neither yet).
nvcc -O2 -o /tmp/copy_bandwidth scripts/gpu/copy_bandwidth.cu >> "$OUT/device.txt" 2>&1 &&
  { /tmp/copy_bandwidth 1024; /tmp/copy_bandwidth 4096; } >> "$OUT/device.txt" 2>&1
# Fail fast (a broken binary or driver) so that the call leaves time for a second try.
if ! timeout 60 $T run benchmarks/j3d7pt.sten --backend cuda --verify --param L=37 --param M=37 \
     --param N=37 >> "$OUT/device.txt" 2>&1; then
  echo "smoke run failed at $(elapsed) s" >> "$OUT/device.txt"; exit 1
fi
echo "smoke run done at $(elapsed) s" >> "$OUT/device.txt"

# 1. Correctness: every benchmark x every family, verified at awkward sizes, 16 at once.
timeout 110 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 16 \
  --repeat 1 --skip-cpp --csv "$OUT/awkward.csv" --families "$FAMILIES" \
  2> "$OUT/awkward-progress.txt" > /dev/null
echo "awkward done at $(elapsed) s" >> "$OUT/device.txt"

# 2. Compile every full-size variant at once (the kernel cache then serves the timed runs).
timeout 80 python3 scripts/bench.py --tessel $T --backend cuda --size full --jobs 16 \
  --no-verify --repeat 1 --skip-cpp --csv /tmp/warm.csv --families "$FAMILIES" \
  2> /dev/null > /dev/null
echo "warm-up done at $(elapsed) s" >> "$OUT/device.txt"

# 3. Times at the programs' own sizes, median of 5, one benchmark at a time.
for b in j3d7pt j3d27pt heat j3d13pt j3d17pt gaussian poisson helmholtz j2d5pt j2d9pt j2d9pt-gol \
         fdtd2d cheby cosmo-hdiff hypterm denoise gradient jacobi1d-boundary rhs4center diffterm; do
  [ "$(elapsed)" -gt 440 ] && { echo "timings stopped before $b at $(elapsed) s" >> "$OUT/device.txt"; break; }
  timeout 45 python3 scripts/bench.py --tessel $T --backend cuda --size full --no-verify \
    --repeat 5 --skip-cpp --benchmarks $b --csv /tmp/full-$b.csv --families "$FAMILIES" \
    2>> "$OUT/full-progress.txt" > /dev/null
  if [ -f /tmp/full-$b.csv ]; then
    # (The test comes before the redirection creates the file: a header once.)
    if [ ! -f "$OUT/full.csv" ]; then cp /tmp/full-$b.csv "$OUT/full.csv"; else tail -n +2 /tmp/full-$b.csv >> "$OUT/full.csv"; fi
  fi
done
echo "all done at $(elapsed) s" >> "$OUT/device.txt"
