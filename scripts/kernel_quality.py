#!/usr/bin/env python3
"""Kernel figures before and after a change, per benchmark and schedule (docs/gpu.md, issue 11).

For every benchmark and each of the schedules given, the main kernel of the variant (the fused
kernel of a time-tiled one, else the first) as two tessel binaries generate it: ptxas registers
(sm_90, when nvcc is present), shared memory per block, barriers per plane (or once), global
elements moved per output point (loads + stores), the performance model's prediction
(GStencil/s on --machine, calibrated, with ptxas's registers where nvcc is present; a
prediction, not a measurement) and, where bench.py CSVs
are given, the measured times. Prints a Markdown table.

    python3 scripts/kernel_quality.py --before .gpu/tessel-before --after build/tessel \\
        --before-times docs/data/2026-11-26-h200-before-full.csv \\
        --after-times docs/data/2026-11-26-h200-after-full.csv
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def flags(schedule):
    family, _, tile = schedule.partition("/")
    return ["--schedule", family] + (["--time-tile", tile] if tile else [])


def run_json(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    text = out.stdout
    return json.loads(text[text.find("{"):])


def figures(tessel, bench, schedule, machine, ptxas):
    """The main kernel's figures and the program's predicted GStencil/s."""
    program = os.path.join(ROOT, "benchmarks", bench + ".sten")
    info = run_json([tessel, "info", program, "--json"] + flags(schedule) +
                    ([] if ptxas else ["--no-ptxas"]))
    pred = run_json([tessel, "analyze", program, "--json", "--machine", machine] +
                    flags(schedule) + ([] if ptxas else ["--no-ptxas"]))
    if not info or not info.get("kernels"):
        return None
    ks = info["kernels"]
    k = next((x for x in ks if x.get("family") in ("overlapped", "stream + time_tile")), ks[0])
    return {
        "registers": k.get("registers"),
        "shared": k.get("shared_bytes"),
        "barriers": k.get("barriers_per_plane") or k.get("barriers_once"),
        "per_plane": bool(k.get("barriers_per_plane")),
        "elements": k.get("loads_per_point", 0) + k.get("stores_per_point", 0),
        "predicted": pred.get("gstencils_per_s") if pred else None,
    }


def times(path):
    out = {}
    if path:
        with open(path) as f:
            for r in csv.DictReader(f):
                if r["backend"] != "cpp" and r["time_ms"]:
                    out[(r["benchmark"], r["schedule"])] = float(r["time_ms"])
    return out


def pair(a, b, fmt="{}"):
    if a is None and b is None:
        return "-"
    show = lambda x: "?" if x is None else fmt.format(x)
    return show(a) if a == b else f"{show(a)} → {show(b)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="tessel binary before the change")
    ap.add_argument("--after", default=os.path.join(ROOT, "build", "tessel"))
    ap.add_argument("--schedules", default="stream,stream/2,overlapped/2")
    ap.add_argument("--benchmarks", default="")
    ap.add_argument("--machine", default="h100", help="for the model's prediction")
    ap.add_argument("--no-ptxas", action="store_true", help="leave out the registers (faster)")
    ap.add_argument("--before-times", default="")
    ap.add_argument("--after-times", default="")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    names = [b for b in args.benchmarks.split(",") if b] or sorted(
        f[:-5] for f in os.listdir(os.path.join(ROOT, "benchmarks")) if f.endswith(".sten"))
    schedules = [s for s in args.schedules.split(",") if s]
    t0, t1 = times(args.before_times), times(args.after_times)
    jobs = [(b, s) for b in names for s in schedules]

    def both(job):
        b, s = job
        return (figures(args.before, b, s, args.machine, not args.no_ptxas),
                figures(args.after, b, s, args.machine, not args.no_ptxas))

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(both, jobs))
    print("| benchmark | schedule | registers | shared B | barriers per plane | elements per point"
          " | predicted GStencil/s | measured ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (b, s), (x, y) in zip(jobs, results):
        if x is None or y is None:
            print(f"| {b} | {s} | (not generated: {'before' if x is None else 'after'}) |"
                  " | | | | |")
            continue
        bar = pair(x["barriers"], y["barriers"])
        if not (x["per_plane"] or y["per_plane"]):
            bar += " once" if bar != "-" else ""
        ratio = ""
        if x["predicted"] and y["predicted"]:
            ratio = f" ({y['predicted'] / x['predicted']:.2f}x)"
        measured = "-"
        if (b, s) in t0 and (b, s) in t1:
            measured = f"{t0[(b, s)]:.3g} → {t1[(b, s)]:.3g} ({t0[(b, s)] / t1[(b, s)]:.2f}x)"
        print(f"| {b} | {s} | {pair(x['registers'], y['registers'])} | "
              f"{pair(x['shared'], y['shared'])} | {bar} | "
              f"{pair(x['elements'], y['elements'], '{:.3g}')} | "
              f"{pair(x['predicted'], y['predicted'], '{:.1f}')}{ratio} | {measured} |")


if __name__ == "__main__":
    main()
