#!/bin/bash
# What the next lent GPU should measure (../shared/docs/gpu-device.md), written 2026-11-27,
# updated 2026-11-29, and NOT YET RUN: a plan, not a record (the dated session-*.sh scripts are
# the records). Since a session has 15 minutes of device time, scripts/gpu/next-call.sh (2026-11-30)
# is this plan cut to one call of under 9 minutes, tried out on the CPU: run that one first.
#
# Since 2026-11-28 `tessel run --backend cuda` takes the model's register cap by default
# (--max-registers auto; docs/gpu.md section 5) while `tessel analyze` predicts with the launch
# bounds: data for the calibration must be measured with `--max-registers bounds` (bench.py's
# --extra), or predicted with `--max-registers auto`.
#
# On an H100, first run a copy of scripts/gpu/session-2026-11-27b.sh with
# `--extra '--max-registers bounds'` added to its bench.py calls: machines/h100.json is still
# calibrated on the H100 times of 2026-11-24's kernels (docs/model.md), and its copy bandwidth is
# approximate; that call gives today's kernels x every family and the copy bandwidth, and
# `scripts/model_accuracy.py --measured-flags '' --ran-as '' --latency-grid` refits the file.
#
# Then this script (on an H100 or H200), each part under a deadline:
# 1. The overlapped family's register caps: its fused kernels have launch bounds of one block per
#    SM, under which ptxas takes 94 to 128 registers; on an H200 the model's cap ran them 1.4x to
#    2.3x faster (docs/performance.md). Measured here for every program: the bounds, a cap of 64
#    (what the staged families' rule, half an SM's threads resident, would give 512-thread
#    blocks) and the model's cap, to decide whether the default should change. Known here
#    (`tessel resources BENCH --schedule overlapped --time-tile T --max-registers 64`, nvcc 13
#    for sm_90): under 64 the 32-bit kernels keep no local memory, but the 64-bit copies (run
#    where a run's sizes need them) of denoise, diffterm, hypterm, j3d7pt and rhs4center take 8
#    to 232 B of it, so a rule of 64 would need the copies left out or capped apart.
# 2. The model's own choice (bench.py's 'auto') against every family, for model.md's table.
# 3. Statement fusion under `stream` (issue 13, docs/fusion.md "Statement fusion under
#    `stream`"): predicted 2.6x over the stream kernels per statement for rhs4center and rhs4sg,
#    measured only on PoCL; against `global` and `global --fuse-statements` on the GPU.
# 4. Retiming (docs/gpu.md section 14). Since 2026-11-29 a retimed stream kernel's plane is a ring
#    of two slots, one barrier per plane instead of two (`--spare-plane off` gives the old
#    kernel): the H100 of 2026-11-26 measured the two-barrier kernels at 0.49x (j2d9pt) and
#    0.72x (j2d5pt) of plain stream, 1.41x for j3d27pt. Measured here: stream, stream --retime
#    with and without the spare plane, for j2d9pt, j2d5pt, j3d27pt and cheby (since 2026-11-28
#    its per-point local scalar `Ax` retimed into its buffer, predicted 0.90x), and cheby's
#    global-stream with and without --retime.
# 5. The autotuner (`tessel tune`, 2026-11-29): the model's first 5 variants (fusion choices x
#    schedules) of a few programs measured on the GPU at their default sizes, each verified (the
#    reference interpreted once per program), kept in $OUT/tuning.db with the text per program
#    ($OUT/tune-BENCH.txt): how often the model's first choice is the fastest measured, and by
#    how much it misses where not.
# 6. The overlapped kernel's values in registers (`--register-values on`, off by default;
#    docs/gpu.md section 11): overlapped/2 with and without it for the programs that have such
#    values (cheby, gradient, heat, rhs4center, rhs4sg; predicted 1.65x for cheby and heat), to
#    decide whether it becomes the default (which then needs the H100 refit gpu.md describes).
# Before the call, here: build, strip into .gpu/ (gpu-device.md). Writes under $OUT: device.txt,
# caps-awkward.csv, caps-awkward-progress.txt, caps.csv, caps-progress.txt, auto.csv,
# auto-progress.txt, fusion-awkward.csv, fusion-awkward-progress.txt, fusion.csv,
# fusion-progress.txt, retime-awkward.csv, retime-awkward-progress.txt, retime.csv,
# retime-progress.txt, registers.csv, registers-progress.txt, tuning.db, tune-BENCH.txt.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu TESSEL_MACHINES=$PWD/machines XDG_CACHE_HOME=/tmp/tessel-cache
T=.gpu/tessel
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }
{ nvidia-smi -L; nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1
CAPS='overlapped[--max-registers bounds],overlapped[--max-registers 64],overlapped,overlapped/2[--max-registers bounds],overlapped/2[--max-registers 64],overlapped/2'

# Correctness of the capped variants (awkward sizes, 16 at once); this also fills the kernel
# cache for the timed runs.
timeout 120 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 16 \
  --repeat 1 --skip-cpp --csv "$OUT/caps-awkward.csv" --families "$CAPS" \
  2> "$OUT/caps-awkward-progress.txt" > /dev/null
FUSION='global[--fuse-statements],stream,stream[--fuse-statements]'
timeout 60 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 16 \
  --repeat 1 --skip-cpp --csv "$OUT/fusion-awkward.csv" --families "$FUSION" \
  --benchmarks rhs4center,rhs4sg,diffterm,hypterm,cosmo-hdiff,denoise \
  2> "$OUT/fusion-awkward-progress.txt" > /dev/null
RETIME='stream,stream[--retime],stream[--retime --spare-plane off],global-stream,global-stream[--retime]'
timeout 40 python3 scripts/bench.py --tessel $T --backend cuda --size awkward --jobs 8 \
  --repeat 1 --skip-cpp --csv "$OUT/retime-awkward.csv" --families "$RETIME" \
  --benchmarks cheby,j2d9pt,j2d5pt,j3d27pt 2> "$OUT/retime-awkward-progress.txt" > /dev/null
echo "awkward done at $(elapsed) s" >> "$OUT/device.txt"

run_full() {  # run_full NAME FAMILIES CSV DEADLINE
  [ "$(elapsed)" -gt "$4" ] && { echo "$3 stopped before $1 at $(elapsed) s" >> "$OUT/device.txt"; return; }
  timeout 60 python3 scripts/bench.py --tessel $T --backend cuda --size full --no-verify \
    --repeat 5 --skip-cpp --benchmarks "$1" --csv /tmp/full-$1.csv --families "$2" \
    2>> "$OUT/$3-progress.txt" > /dev/null
  if [ -f /tmp/full-$1.csv ]; then
    # (The test comes before the redirection creates the file: a header once.)
    if [ ! -f "$OUT/$3.csv" ]; then cp /tmp/full-$1.csv "$OUT/$3.csv"; else tail -n +2 /tmp/full-$1.csv >> "$OUT/$3.csv"; fi
    rm -f /tmp/full-$1.csv
  fi
}
PROGRAMS='j3d7pt heat j3d27pt j3d13pt j3d17pt gaussian poisson j2d9pt-gol cosmo-hdiff hypterm
          diffterm rhs4center rhs4sg denoise cheby fdtd2d helmholtz gradient j2d5pt j2d9pt
          jacobi1d-boundary'
for b in $PROGRAMS; do run_full $b "$CAPS" caps 330; done
echo "caps done at $(elapsed) s" >> "$OUT/device.txt"
for b in $PROGRAMS; do run_full $b 'auto' auto 400; done
echo "auto done at $(elapsed) s" >> "$OUT/device.txt"
for b in rhs4center rhs4sg diffterm hypterm cosmo-hdiff denoise; do run_full $b "$FUSION" fusion 470; done
for b in j2d9pt j2d5pt j3d27pt cheby; do run_full $b "$RETIME" retime 500; done
for b in heat cheby gradient rhs4center rhs4sg; do
  run_full $b 'overlapped/2,overlapped/2[--register-values on]' registers 530
done
for b in j3d7pt j3d27pt heat cosmo-hdiff hypterm rhs4center; do
  [ "$(elapsed)" -gt 560 ] && { echo "tune stopped before $b at $(elapsed) s" >> "$OUT/device.txt"; break; }
  timeout 60 $T tune benchmarks/$b.sten --backend cuda --top 5 --repeat 5 --db "$OUT/tuning.db" \
    > "$OUT/tune-$b.txt" 2>&1
done
echo "all done at $(elapsed) s" >> "$OUT/device.txt"
