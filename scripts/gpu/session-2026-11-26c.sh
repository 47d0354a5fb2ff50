#!/bin/bash
# The third call on a lent GPU on 2026-11-26 (../shared/docs/gpu-device.md): CUDA correctness and
# timings of what issues 12 and 13 added since the last GPU run: folding (--fold, also under
# stream + time_tile), the load/compute perspectives, deeper time tiles (the deep-tune versions),
# the fission variants written by `tessel split`, the two large ARTEMIS-style benchmarks
# (rhs4center, diffterm), and `tessel deep-tune --measure cuda`. Each part under a deadline so
# that the call ends inside its limit.
# Before the call, here: build, strip into .gpu/ (gpu-device.md), and write the split programs:
#   for p in diffterm:trivial-fission fdtd2d:maxfuse hypterm:trivial-fission \
#            rhs4center:trivial-fission; do   # the split programs that differ from their input
#     build/tessel split benchmarks/${p%%:*}.sten --mode ${p##*:} -o .gpu/split; done
# Then, on the device machine, from the repository root with $OUT set by the device tool:
#   bash scripts/gpu/session-2026-11-26c.sh
# Writes under $OUT: device.txt, awkward.csv, awkward-progress.txt, full.csv, full-progress.txt,
# deep-tune.txt.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu TESSEL_MACHINES=$PWD/machines
T=.gpu/tessel
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }
{ nvidia-smi -L; nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1
SPLITS=$(cd .gpu/split && ls *.sten | sed 's/\.sten$//' | paste -sd,)

# 1. Correctness at awkward sizes, 16 runs at once: every benchmark x the new variants, then the
#    split programs and the test programs of folding and occupancy under the plain families.
timeout 150 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 16 \
  --repeat 1 --skip-cpp --csv "$OUT/awkward.csv" \
  --families 'shared[--fold],stream[--fold],stream/2[--fold],shared[--perspective input],shared[--perspective mixed],stream/3,stream/4,overlapped/3' \
  2> "$OUT/awkward-progress.txt"
echo "awkward (benchmarks) done at $(elapsed) s" >> "$OUT/device.txt"
timeout 60 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 16 \
  --repeat 1 --skip-cpp --csv /tmp/awkward-split.csv --programs .gpu/split --benchmarks "$SPLITS" \
  --families 'stream,stream/2,shared' 2>> "$OUT/awkward-progress.txt" > /dev/null
[ -f /tmp/awkward-split.csv ] && tail -n +2 /tmp/awkward-split.csv >> "$OUT/awkward.csv"
timeout 30 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 8 \
  --repeat 1 --skip-cpp --csv /tmp/awkward-data.csv --programs tests/e2e/data \
  --benchmarks fold_sweep,fold_partial,occupancy_fused,rhs4center_like \
  --families 'stream,stream[--fold],stream/2,stream/2[--fold],shared[--fold]' \
  2>> "$OUT/awkward-progress.txt" > /dev/null
[ -f /tmp/awkward-data.csv ] && tail -n +2 /tmp/awkward-data.csv >> "$OUT/awkward.csv"
echo "awkward (split, test programs) done at $(elapsed) s" >> "$OUT/device.txt"

# 2. Deep tuning with measured versions (the programs' own sizes, median of 5).
for b in j2d5pt j3d7pt; do
  [ "$(elapsed)" -gt 300 ] && { echo "deep-tune stopped before $b" >> "$OUT/device.txt"; break; }
  echo "== $b" >> "$OUT/deep-tune.txt"
  timeout 60 $T deep-tune benchmarks/$b.sten --steps 13 --max-fuse 4 --measure cuda --repeat 5 \
    >> "$OUT/deep-tune.txt" 2>&1
done
echo "deep-tune done at $(elapsed) s" >> "$OUT/device.txt"

# 3. Timings at the programs' own sizes, median of 5, one program at a time: the multi-stencil
#    programs and their split versions, then folding and perspectives.
run_full() {  # run_full PROGRAMS_DIR NAME FAMILIES
  [ "$(elapsed)" -gt 480 ] && { echo "timings stopped before $2 at $(elapsed) s" >> "$OUT/device.txt"; return; }
  timeout 60 python3 scripts/bench.py --tessel $T --backend cuda --size full --no-verify \
    --repeat 5 --skip-cpp --programs "$1" --benchmarks "$2" --csv /tmp/full-$2.csv --families "$3" \
    2>> "$OUT/full-progress.txt" > /dev/null
  if [ -f /tmp/full-$2.csv ]; then
    if [ ! -f "$OUT/full.csv" ]; then cat /tmp/full-$2.csv; else tail -n +2 /tmp/full-$2.csv; fi >> "$OUT/full.csv"
  fi
}
for b in rhs4center diffterm hypterm fdtd2d denoise; do
  run_full benchmarks $b 'stream,shared,stream/2'
  for s in $(echo "$SPLITS" | tr , '\n' | grep "^$b-"); do run_full .gpu/split $s 'stream,shared,stream/2'; done
done
for b in hypterm j3d7pt j3d27pt heat helmholtz j2d5pt; do
  run_full benchmarks $b 'shared,shared[--fold],shared[--perspective input],shared[--perspective mixed],stream[--fold],stream/2,stream/2[--fold]'
done
echo "all done at $(elapsed) s" >> "$OUT/device.txt"
