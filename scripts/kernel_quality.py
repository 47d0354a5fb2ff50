#!/usr/bin/env python3
"""Kernel figures before and after a change, per benchmark and schedule (docs/gpu.md, issue 11).

For every benchmark and each of the schedules given, the main kernel of the variant (the fused
kernel of a time-tiled one, else the first) as two tessel binaries generate it, or (--with) as
one generates it without and with some options: ptxas registers (sm_90, when nvcc is present),
shared memory per block, barriers per plane (or once), global elements moved per output point
(loads + stores), shared-memory loads per point, the performance model's prediction (GStencil/s
on --machine, calibrated, with ptxas's registers where nvcc is present; a prediction, not a
measurement) and, where bench.py CSVs are given, the measured times. Prints a Markdown table.

    python3 scripts/kernel_quality.py --before .gpu/tessel-before --after build/tessel \\
        --before-times docs/data/2026-11-26-h200-before-full.csv \\
        --after-times docs/data/2026-11-26-h200-after-full.csv
    python3 scripts/kernel_quality.py --with=--retime --schedules stream,global-stream \\
        --after-times docs/data/2026-11-26-h100-issue12-full.csv
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def flags(schedule):
    """tessel arguments of a variant: 'stream', 'stream/2', 'stream[--retime]' (as bench.py)."""
    head, _, opts = schedule.partition("[")
    family, _, tile = head.partition("/")
    return (["--schedule", family] + (["--time-tile", tile] if tile else []) +
            opts.rstrip("]").split())


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
        "shared_loads": (k.get("traffic") or {}).get("shared_loads"),
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
    ap.add_argument("--before", default="",
                    help="tessel binary before the change (or --with)")
    ap.add_argument("--with", dest="with_", default="",
                    help="compare each schedule without and with these options, both from "
                         "--after (--with=--retime, --with=\"--unroll i=2\"); measured times from --after-times rows "
                         "'SCHEDULE' and 'SCHEDULE[OPTIONS]' (bench.py's variants)")
    ap.add_argument("--after", default=os.path.join(ROOT, "build", "tessel"))
    ap.add_argument("--schedules", default="stream,stream/2,overlapped/2")
    ap.add_argument("--benchmarks", default="")
    ap.add_argument("--machine", default="h100", help="for the model's prediction")
    ap.add_argument("--no-ptxas", action="store_true", help="leave out the registers (faster)")
    ap.add_argument("--before-times", default="")
    ap.add_argument("--after-times", default="")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if not args.before and not args.with_:
        ap.error("give --before BINARY or --with OPTIONS")
    names = [b for b in args.benchmarks.split(",") if b] or sorted(
        f[:-5] for f in os.listdir(os.path.join(ROOT, "benchmarks")) if f.endswith(".sten"))
    schedules = [s for s in args.schedules.split(",") if s]
    t1 = times(args.after_times)
    t0 = t1 if args.with_ else times(args.before_times)
    jobs = [(b, s) for b in names for s in schedules]
    changed = lambda s: f"{s}[{args.with_}]" if args.with_ else s  # the "after" variant

    def both(job):
        b, s = job
        return (figures(args.before or args.after, b, s, args.machine, not args.no_ptxas),
                figures(args.after, b, changed(s), args.machine, not args.no_ptxas))

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(both, jobs))
    print("| benchmark | schedule | registers | shared B | barriers per plane | elements per point"
          " | shared loads per point | predicted GStencil/s | measured ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (b, s), (x, y) in zip(jobs, results):
        if x is None or y is None:
            print(f"| {b} | {s} | (not generated: {'before' if x is None else 'after'}) |"
                  " | | | | | |")
            continue
        bar = pair(x["barriers"], y["barriers"])
        if not (x["per_plane"] or y["per_plane"]):
            bar += " once" if bar != "-" else ""
        ratio = ""
        if x["predicted"] and y["predicted"]:
            ratio = f" ({y['predicted'] / x['predicted']:.2f}x)"
        measured = "-"
        if (b, s) in t0 and (b, changed(s)) in t1:
            m0, m1 = t0[(b, s)], t1[(b, changed(s))]
            measured = f"{m0:.3g} → {m1:.3g} ({m0 / m1:.2f}x)"
        print(f"| {b} | {s} | {pair(x['registers'], y['registers'])} | "
              f"{pair(x['shared'], y['shared'])} | {bar} | "
              f"{pair(x['elements'], y['elements'], '{:.3g}')} | "
              f"{pair(x['shared_loads'], y['shared_loads'], '{:.3g}')} | "
              f"{pair(x['predicted'], y['predicted'], '{:.1f}')}{ratio} | {measured} |")


if __name__ == "__main__":
    main()
