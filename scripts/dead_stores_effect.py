#!/usr/bin/env python3
"""Dead-store elimination's effect per benchmark (issue 11; analysis/dead_stores.h).

For every benchmarks/*.sten under the fused schedules (stream --time-tile 2, overlapped
--time-tile 2), with and without `--dead-stores keep`: the global elements moved (loaded plus
stored) per output point by the fused kernel that moves most, and the program's predicted
GStencil/s on a machine (`tessel analyze --no-ptxas`: a prediction, not a measurement). Prints a
Markdown table; docs/gpu.md quotes it.

    python3 scripts/dead_stores_effect.py --tessel build/tessel --machine h100
"""
import argparse
import glob
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEDULES = (("stream --time-tile 2", ["--schedule", "stream", "--time-tile", "2"]),
             ("overlapped --time-tile 2", ["--schedule", "overlapped", "--time-tile", "2"]))


def run(tessel, args):
    out = subprocess.run([tessel] + args, capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode == 0 else None


def figures(tessel, path, machine, flags):
    info = run(tessel, ["info", path, "--json", "--no-ptxas", "--machine", machine] + flags)
    pred = run(tessel, ["analyze", path, "--json", "--no-ptxas", "--machine", machine] + flags)
    if not info or not pred:
        return "refused"
    moved = [k["loads_per_point"] + k["stores_per_point"] for k in info["kernels"]
             if k["family"] in ("overlapped", "stream + time_tile")]
    return (max(moved) if moved else None), pred["gstencils_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tessel", default=os.path.join(ROOT, "build", "tessel"))
    ap.add_argument("--machine", default="h100")
    args = ap.parse_args()
    print("| benchmark | schedule | elements per point, all written back | without dead stores | "
          "predicted GStencil/s, all written back | without dead stores |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for path in sorted(glob.glob(os.path.join(ROOT, "benchmarks", "*.sten"))):
        name = os.path.basename(path)[:-5]
        for label, flags in SCHEDULES:
            keep = figures(args.tessel, path, args.machine, flags + ["--dead-stores", "keep"])
            drop = figures(args.tessel, path, args.machine, flags)
            if keep == "refused" or drop == "refused":
                print(f"| {name} | {label} | refused | | | |")
                continue
            if keep[0] is None:  # e.g. one call: fewer steps than the time tile, per statement
                print(f"| {name} | {label} | not fused | | | |")
                continue
            print(f"| {name} | {label} | {keep[0]:.2f} | {drop[0]:.2f} | {keep[1]:.1f} | "
                  f"{drop[1]:.1f} |")


if __name__ == "__main__":
    main()
