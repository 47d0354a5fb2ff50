#!/usr/bin/env python3
"""The model's ranking of the schedules for every benchmark (predictions, not measurements).

For each benchmarks/*.sten, runs `tessel analyze --compare --json` on a machine, takes the
schedule ranked first, analyses the program under it, and prints a Markdown table: the schedule,
its predicted GStencil/s and bound, the hints of the kernel that takes most of its run, and
`global` for reference. docs/model.md quotes the table for the H100. With --csv FILE it also
writes the whole ranking of every benchmark (each schedule's rank, predicted GStencil/s and
bound, whether the calibration covers it, or why it was refused): docs/data/h100-ranking.csv.

    python3 scripts/model_ranking.py --tessel build/tessel --machine h100 \
        --csv docs/data/h100-ranking.csv
"""
import csv
import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# The command line's flags that take no value (a compared schedule's "flags" gives them as "on").
SWITCHES = {"--fuse-statements", "--retime", "--prefetch", "--fold", "--fma"}


def analyze(tessel, path, machine, flags):
    cmd = [tessel, "analyze", path, "--json", "--no-ptxas", "--machine", machine] + flags
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {out.stderr}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tessel", default=os.path.join(ROOT, "build", "tessel"))
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--csv", help="also write every benchmark's whole ranking here")
    args = ap.parse_args()
    rows = []
    print("| benchmark | ranked first | GStencil/s | bound | hints (its longest kernel) | "
          "`global`: GStencil/s (bound) |")
    print("| --- | --- | ---: | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(ROOT, "benchmarks", "*.sten"))):
        name = os.path.basename(path)[:-5]
        a = analyze(args.tessel, path, args.machine, ["--compare"])
        for rank, c in enumerate(a["compare"], 1):
            rows.append({"benchmark": name, "rank": rank, "schedule": c["schedule"],
                         "gstencils_per_s": (f"{c['gstencils_per_s']:.4g}"
                                             if "refused" not in c else ""),
                         "bound": c.get("bound", ""),
                         "calibrated": ("" if "refused" in c
                                        else "no" if c.get("extrapolated") else "yes"),
                         "refused": c.get("refused", "")})
        # The model's choice: the first by the cautious prediction that its calibration covers.
        ranked = [c for c in a["compare"] if "refused" not in c and not c.get("extrapolated")]
        first = ranked[0]
        glob_ = next(c for c in ranked if c["schedule"] == "global")
        flags = []
        for flag, value in first["flags"].items():
            if flag != "--machine":  # analyze() names the machine
                flags += [flag] if flag in SWITCHES else [flag, value]
        top = max(analyze(args.tessel, path, args.machine, flags)["kernels"],
                  key=lambda k: k["seconds"])
        hints = "; ".join(top["hints"]) or "none"
        print(f"| {name} | {first['schedule']} | {first['gstencils_per_s']:.4g} | "
              f"{first['bound']} | {hints} | {glob_['gstencils_per_s']:.4g} ({glob_['bound']}) |")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
