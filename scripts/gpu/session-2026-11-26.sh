#!/bin/bash
# One call on a lent GPU machine (../shared/docs/gpu-device.md): CUDA correctness of what
# issues 11 and 12 added (retiming, the stream + time_tile spare plane, CUDA Graphs), then timings
# at the programs' own sizes, each part under a deadline so that the call ends inside its limit.
# Run from the repository root with the stripped binary in .gpu/ and $OUT set by the device tool:
#   bash scripts/gpu/session-2026-11-26.sh
# Writes at most 8 files under $OUT: device.txt, awkward.csv, awkward-progress.txt, full.csv,
# full-progress.txt, graphs.csv, ncu.txt.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu TESSEL_MACHINES=$PWD/machines
T=.gpu/tessel
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }
{ nvidia-smi -L; nvcc --version | tail -2; nproc; } > "$OUT/device.txt" 2>&1

# 1. Correctness: every benchmark x the new variants, verified at awkward sizes, 16 at once.
timeout 170 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 16 \
  --repeat 1 --skip-cpp --csv "$OUT/awkward.csv" \
  --families 'stream,stream[--retime],global-stream[--retime],stream/2,stream/2[--spare-plane off],overlapped/2' \
  2> "$OUT/awkward-progress.txt"
echo "awkward done at $(elapsed) s" >> "$OUT/device.txt"

# 2. Timings, the programs' own sizes, median of 5, one benchmark at a time (retimable first).
FIRST=1
for b in j3d27pt gaussian j3d13pt j3d17pt j3d7pt heat helmholtz j2d9pt j2d5pt poisson \
         j2d9pt-gol fdtd2d cosmo-hdiff hypterm cheby denoise gradient jacobi1d-boundary; do
  [ "$(elapsed)" -gt 390 ] && { echo "timings stopped before $b at $(elapsed) s" >> "$OUT/device.txt"; break; }
  timeout 90 python3 scripts/bench.py --tessel $T --backend cuda --size full --no-verify \
    --repeat 5 --skip-cpp --benchmarks $b --csv /tmp/full-$b.csv \
    --families 'stream,stream[--retime],global-stream,global-stream[--retime],stream/2,stream/2[--spare-plane off]' \
    2>> "$OUT/full-progress.txt" > /dev/null
  if [ -f /tmp/full-$b.csv ]; then
    if [ $FIRST = 1 ]; then cat /tmp/full-$b.csv; FIRST=0; else tail -n +2 /tmp/full-$b.csv; fi >> "$OUT/full.csv"
  fi
done
echo "timings done at $(elapsed) s" >> "$OUT/device.txt"

# 3. CUDA Graphs on and off (TESSEL_GRAPHS=0) for the programs with the most launches.
for g in 1 0; do
  for b in j2d5pt jacobi1d-boundary heat; do
    [ "$(elapsed)" -gt 450 ] && break
    TESSEL_GRAPHS=$g timeout 40 python3 scripts/bench.py --tessel $T --backend cuda --size full \
      --no-verify --repeat 5 --skip-cpp --benchmarks $b --families 'stream/2' --csv /tmp/g$g-$b.csv \
      2> /dev/null > /dev/null
    [ -f /tmp/g$g-$b.csv ] && sed "s/^/graphs=$g,/" /tmp/g$g-$b.csv >> "$OUT/graphs.csv"
  done
done
echo "graphs done at $(elapsed) s" >> "$OUT/device.txt"

# 4. Nsight Compute: shared loads and DRAM bytes of j3d27pt's stream kernel, without and with retiming.
for r in "" "--retime"; do
  [ "$(elapsed)" -gt 480 ] && break
  echo "== stream $r" >> "$OUT/ncu.txt"
  timeout 45 ncu --launch-count 1 --metrics \
    smsp__inst_executed_op_shared_ld.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
    $T run benchmarks/j3d27pt.sten --backend cuda --schedule stream $r >> "$OUT/ncu.txt" 2>&1
done
echo "all done at $(elapsed) s" >> "$OUT/device.txt"
