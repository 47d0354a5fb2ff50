#!/usr/bin/env bash
# Issue 13's report of the fusion and fission choices for the large multi-statement benchmarks
# (rhs4center, rhs4sg, diffterm): each program, its `tessel split --mode trivial-fission` version and a
# fusion-groups version (rhs4center and rhs4sg with their twelve shared temporaries in a kernel of their own,
# through global memory, and a kernel per output: `--mode groups --groups '0-11|12-17|18-23|
# 24-29'` and as MODESTO groups them, `--mode modesto`; diffterm as the greedy plan groups it:
# `--mode greedy`, and as MODESTO groups it: `--mode modesto`), under `global` (a kernel per statement), `global --fuse-statements` and `overlapped`:
#   1. predicted on the H100 by the model (`tessel analyze`, the programs' own sizes, ptxas
#      registers where nvcc is installed): a prediction, not a measurement;
#   2. measured on this machine's PoCL (OpenCL on the CPU) and C++ target (scripts/bench.py,
#      --size small, median of 5, every run verified against the reference interpreter).
# Usage: scripts/fusion-choices.sh [OUT_DIR] [PROGRAMS]   (default: bench-results/fusion-choices,
#        all three; PROGRAMS a comma list of rhs4center, rhs4sg, diffterm)
# (maxfuse leaves both programs as they are: one call, or two calls with different domains; the
# greedy plan and recompute-fission leave rhs4center and rhs4sg as they are too: one kernel of
# all 30 statements, no recomputation halo.)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-bench-results/fusion-choices}"
which="${2:-rhs4center,rhs4sg,diffterm}"
tessel=build/tessel
mkdir -p "$out/programs"
progs=""
for b in ${which//,/ }; do
  cp "benchmarks/$b.sten" "$out/programs/"
  "$tessel" split "benchmarks/$b.sten" --mode trivial-fission -o "$out/programs" >/dev/null
  case "$b" in
    rhs4center | rhs4sg)
      "$tessel" split "benchmarks/$b.sten" --mode groups --groups '0-11|12-17|18-23|24-29' \
        -o "$out/programs" >/dev/null
      # MODESTO's seven groups (about 25 s of its counting engine each; since 2026-12-01).
      "$tessel" split "benchmarks/$b.sten" --mode modesto -o "$out/programs" >/dev/null
      progs+="${progs:+,}$b,$b-trivial-fission,$b-groups,$b-modesto" ;;
    diffterm)
      "$tessel" split benchmarks/diffterm.sten --mode greedy -o "$out/programs" >/dev/null
      "$tessel" split benchmarks/diffterm.sten --mode modesto -o "$out/programs" >/dev/null
      progs+="${progs:+,}diffterm,diffterm-trivial-fission,diffterm-greedy,diffterm-modesto" ;;
    *) echo "unknown program $b" >&2; exit 1 ;;
  esac
done
scripts/predicted-h100.sh "$tessel" "$out/programs" "$progs" \
  "global|global --fuse-statements|overlapped" > "$out/predicted-h100.csv"
python3 scripts/bench.py --programs "$out/programs" --benchmarks "$progs" --backend opencl \
  --families "global,global[--fuse-statements],overlapped" --repeat 5 --csv "$out/pocl.csv"
python3 scripts/bench.py --programs "$out/programs" --benchmarks "$progs" --backend cpp \
  --skip-cpp --families "global,global[--fuse-statements]" --repeat 5 --csv "$out/cpp.csv"
cat "$out/predicted-h100.csv"
