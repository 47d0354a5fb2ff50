#!/usr/bin/env bash
# The H100 predictions of programs under schedules, as CSV on stdout (program, schedule,
# predicted_ms, kernels): `tessel analyze --machine h100 --json` at each program's own sizes,
# ptxas registers where nvcc is installed. A prediction, not a measurement. Used by
# scripts/fusion-choices.sh and scripts/fusion-stream.sh.
# Usage: scripts/predicted-h100.sh TESSEL DIR PROGRAMS SCHEDULES
#   DIR: the folder of NAME.sten; PROGRAMS: comma list of names; SCHEDULES: '|'-separated
#   schedule flags ("global|stream --fuse-statements").
set -euo pipefail
tessel="$1" dir="$2" progs="$3" schedules="$4"
echo "program,schedule,predicted_ms,kernels"
IFS='|' read -r -a list <<< "$schedules"
for p in ${progs//,/ }; do
  for f in "${list[@]}"; do
    # shellcheck disable=SC2086
    "$tessel" analyze "$dir/$p.sten" --machine h100 --schedule $f --json 2>/dev/null |
      python3 -c "import json,sys; j=json.load(sys.stdin); \
print('$p,$f,%.4f,%d' % (j['seconds']*1e3, len(j['kernels'])))"
  done
done
