#!/bin/bash
# The next lent GPU's call (../shared/docs/gpu-device.md), written 2026-11-30 from
# scripts/gpu/pending.sh's plan, cut to one call of under 9 minutes (the 15 minutes of device time a
# session now has leave no second one); NOT YET RUN on a GPU (that day's session was drawn a
# machine, but the device tool lent none at the time): a plan, not a record. Tried end to end on
# the CPU with BACKEND=opencl (514 s, every part reached; the full-size timings stop at their
# limits on PoCL, as they should). It measures the first GPU runs of the kernels changed since
# 2026-11-27 (the model's register cap by default, the retimed ring with a spare plane, statement
# fusion under `stream`, the overlapped kernel's values in registers), the model's default choice
# on the H200, and the autotuner against the CUDA objective.
# Before the call, here: build, then
#   mkdir -p .gpu && strip -o .gpu/tessel build/tessel
#   for l in libfmt libsqlite3 libmimalloc; do cp -L "$(ldd build/tessel | awk "/$l/ {print \$3}")" .gpu/; done
# (the device machine has none of them and no package registry; libmimalloc since 2026-12-01)
# and one device call, carry ['.gpu'], timeout_s 590: bash scripts/gpu/next-call.sh
# Writes under $OUT (at most 8 files come back): device.txt (the log), progress.txt (every run's
# line), awkward.csv, full.csv, tune.txt, tuning.db.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu TESSEL_MACHINES=$PWD/machines XDG_CACHE_HOME=/tmp/tessel-cache
export PYTHONUNBUFFERED=1
T=.gpu/tessel
B=${BACKEND:-cuda}  # BACKEND=opencl tries the script out on a machine without a GPU
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }
log() { echo "$* at $(elapsed) s" >> "$OUT/device.txt"; }
append() {  # append CSV FILE: rows of CSV into FILE, one header
  [ -f "$1" ] || return
  if [ ! -f "$2" ]; then cp "$1" "$2"; else tail -n +2 "$1" >> "$2"; fi
  rm -f "$1"
}
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total --format=csv
  nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1

# Fail fast (a broken binary, library or driver) so that the call leaves time for a second try.
if ! timeout 60 $T run benchmarks/j3d7pt.sten --backend $B --verify --param L=37 --param M=37 \
     --param N=37 >> "$OUT/device.txt" 2>&1; then
  log "smoke run failed"; exit 1
fi
log "smoke run done"

# The variants of each part (bench.py adds `global` to each list).
FAMILIES='global,global-stream,shared,stream,stream/2,overlapped,overlapped/2,overlapped/3,auto[--machine h200]'
REGS='overlapped/2,overlapped/2[--register-values on],overlapped[--register-values on]'
REGS_B=heat,cheby,gradient,rhs4center,rhs4sg
FUSION='global[--fuse-statements],stream,stream[--fuse-statements]'
FUSION_B=rhs4center,rhs4sg,diffterm,hypterm,cosmo-hdiff,denoise
RETIME='stream,stream[--retime],stream[--retime --spare-plane off],global-stream,global-stream[--retime]'
RETIME_B=cheby,j2d9pt,j2d5pt,j3d27pt
AUTO='auto[--machine h200]'
AUTO_B=fdtd2d,j2d5pt,jacobi1d-boundary,hypterm,cheby,gradient,poisson
CAPS='overlapped/2[--max-registers bounds],overlapped/2[--max-registers 64],overlapped/2'
CAPS_B=j3d7pt,j3d27pt,poisson,cheby

# 1. Correctness at awkward sizes (37^3, 203^2, 100,003), verified, the four parts at once (bench.py
# writes each benchmark's rows as it finishes: a part stopped at its limit keeps what it ran).
bench() {  # bench LIMIT_S SIZE JOBS FAMILIES BENCHMARKS CSV [more bench.py options]
  local limit=$1 size=$2 jobs=$3 fam=$4 names=$5 csv=$6; shift 6
  timeout "$limit" python3 scripts/bench.py --tessel $T --backend $B --size "$size" --jobs "$jobs" --skip-cpp \
    --csv "$csv" --families "$fam" ${names:+--benchmarks "$names"} "$@" \
    2>> "$OUT/progress.txt" > /dev/null
}
bench 170 awkward 10 "$FAMILIES" '' /tmp/aw-main.csv --repeat 1 &
bench 170 awkward 3 "$REGS" $REGS_B /tmp/aw-regs.csv --repeat 1 &
bench 170 awkward 3 "$FUSION" $FUSION_B /tmp/aw-fusion.csv --repeat 1 &
bench 170 awkward 2 "$RETIME" $RETIME_B /tmp/aw-retime.csv --repeat 1 &
wait
pkill -f "$T run" 2> /dev/null  # runs left by a part stopped at its limit
for p in regs fusion retime main; do append /tmp/aw-$p.csv "$OUT/awkward.csv"; done
log "awkward done"

# 2. Compile every full-size variant of part 3 at once (the kernel cache serves the timed runs).
W='--no-verify --repeat 1'
bench 90 full 3 "$REGS" $REGS_B /tmp/w1.csv $W &
bench 90 full 3 "$FUSION" $FUSION_B /tmp/w2.csv $W &
bench 90 full 2 "$RETIME" $RETIME_B /tmp/w3.csv $W &
bench 90 full 4 "$AUTO" $AUTO_B /tmp/w4.csv $W &
bench 90 full 2 "$CAPS" $CAPS_B /tmp/w5.csv $W &
wait
pkill -f "$T run" 2> /dev/null
rm -f /tmp/w?.csv
log "warm-up done"

# 3. Times at the programs' own sizes, median of 5, one run at a time, each part by a deadline.
timed() {  # timed PART FAMILIES BENCHMARKS DEADLINE
  local b
  for b in ${3//,/ }; do
    [ "$(elapsed)" -gt "$4" ] && { log "$1 stopped before $b"; return; }
    bench 60 full 1 "$2" $b /tmp/full-$b.csv --no-verify --repeat 5
    append /tmp/full-$b.csv "$OUT/full.csv"
  done
  log "$1 done"
}
timed registers "$REGS" $REGS_B 320
timed fusion "$FUSION" $FUSION_B 370
timed retime "$RETIME" $RETIME_B 400
timed auto "$AUTO" $AUTO_B 430
timed caps "$CAPS" $CAPS_B 455

# 4. The autotuner against the CUDA objective: the model's first 5 variants, each verified, kept in
# the database; then run --tuned takes the fastest.
for b in cosmo-hdiff j3d7pt; do
  [ "$(elapsed)" -gt 470 ] && { log "tune stopped before $b"; break; }
  { echo "== tessel tune benchmarks/$b.sten --backend cuda --top 5 --repeat 5 --machine h200"
    timeout 60 $T tune benchmarks/$b.sten --backend $B --top 5 --repeat 5 --machine h200 --db "$OUT/tuning.db"
    echo "== exit $?; run --tuned"
    timeout 20 $T run benchmarks/$b.sten --backend $B --tuned --repeat 5 --tuning-db "$OUT/tuning.db"
    echo "== exit $?"; } >> "$OUT/tune.txt" 2>&1
done
log "all done"
