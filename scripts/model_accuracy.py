#!/usr/bin/env python3
"""The performance model against measured GPU times.

Reads the rows of a `scripts/bench.py` CSV measured on a GPU (for example
docs/data/2026-11-24-h100-cuda-full.csv, every benchmark x family on an H100), predicts each
variant with `tessel analyze --json` at the same parameters, fits one calibration factor per
schedule family on one half of the benchmarks (the geometric mean of measured over predicted
GStencil/s) and states the error on the other half. Prints a Markdown report.

    python3 scripts/model_accuracy.py --tessel build/tessel --machine h100 \
        docs/data/2026-11-24-h100-cuda-full.csv
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def schedule_flags(name):
    """bench.py's family names ("stream/2") as tessel's flags."""
    family, _, tile = name.partition("/")
    flags = ["--schedule", family]
    if tile:
        flags += ["--time-tile", tile]
    return flags


def calibration_family(name):
    family, _, tile = name.partition("/")
    return "stream + time_tile" if family == "stream" and tile else family


def predict(tessel, machine, bench, schedule, params, ptxas):
    cmd = [tessel, "analyze", os.path.join(ROOT, "benchmarks", bench + ".sten"), "--json",
           "--machine", machine] + schedule_flags(schedule)
    if not ptxas:
        cmd.append("--no-ptxas")
    for p in params:
        cmd += ["--param", p]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    # The roofline alone: the calibration factors are what this script fits.
    return json.loads(out.stdout)["roofline_gstencils_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="bench.py rows measured on a GPU")
    ap.add_argument("--tessel", default=os.path.join(ROOT, "build", "tessel"))
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--ptxas", action="store_true", help="registers from nvcc (slower)")
    args = ap.parse_args()

    rows = []
    with open(args.csv) as f:
        for r in csv.DictReader(f):
            if r["backend"] != "cuda" or not r["gstencil_s"]:
                continue
            params = [p.strip() for p in (r.get("parameters") or "").split(";") if p.strip()]
            pred = predict(args.tessel, args.machine, r["benchmark"], r["schedule"], params,
                           args.ptxas)
            if pred is None or pred <= 0:
                print(f"skipped {r['benchmark']} {r['schedule']}: tessel analyze refused it",
                      file=sys.stderr)
                continue
            rows.append({"bench": r["benchmark"], "schedule": r["schedule"],
                         "family": calibration_family(r["schedule"]),
                         "measured": float(r["gstencil_s"]), "predicted": pred})
    benches = sorted({r["bench"] for r in rows})
    fit_half = set(benches[0::2])  # alphabetical, alternating: both halves mix 2-D and 3-D

    # One factor per family: the geometric mean of measured / predicted on the fitting half.
    eta = {}
    for fam in sorted({r["family"] for r in rows}):
        ratios = [r["measured"] / r["predicted"] for r in rows
                  if r["family"] == fam and r["bench"] in fit_half]
        eta[fam] = math.exp(statistics.fmean(math.log(x) for x in ratios)) if ratios else 1.0

    def error(r, calibrated):
        p = r["predicted"] * (eta[r["family"]] if calibrated else 1.0)
        return abs(p - r["measured"]) / r["measured"]

    def best_matches(half, calibrated):
        hits = total = 0
        for b in half:
            rs = [r for r in rows if r["bench"] == b]
            if not rs:
                continue
            key = (lambda r: r["predicted"] * eta[r["family"]]) if calibrated else (
                lambda r: r["predicted"])
            total += 1
            hits += max(rs, key=key)["schedule"] == max(rs, key=lambda r: r["measured"])["schedule"]
        return hits, total

    test_half = set(benches) - fit_half
    print(f"Model against {os.path.basename(args.csv)} on machine {args.machine} "
          f"({len(rows)} variants, {len(benches)} benchmarks)\n")
    print("Fitting half: " + ", ".join(sorted(fit_half)))
    print("Test half: " + ", ".join(sorted(test_half)) + "\n")
    print("| family | variants | calibration factor (fit half) | median error, uncalibrated "
          "(test half) | median error, calibrated (test half) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for fam in sorted(eta):
        test = [r for r in rows if r["family"] == fam and r["bench"] in test_half]
        n = len([r for r in rows if r["family"] == fam])
        unc = statistics.median(error(r, False) for r in test) if test else float("nan")
        cal = statistics.median(error(r, True) for r in test) if test else float("nan")
        print(f"| {fam} | {n} | {eta[fam]:.3f} | {100 * unc:.0f}% | {100 * cal:.0f}% |")
    test = [r for r in rows if r["bench"] in test_half]
    print(f"| all | {len(rows)} | | {100 * statistics.median(error(r, False) for r in test):.0f}% "
          f"| {100 * statistics.median(error(r, True) for r in test):.0f}% |\n")
    for cal in (False, True):
        h, t = best_matches(test_half, cal)
        print(f"Test half, {'calibrated' if cal else 'uncalibrated'}: the family predicted fastest "
              f"is the measured fastest for {h} of {t} benchmarks.")
    print("\nPer variant (GStencil/s):\n")
    print("| benchmark | schedule | measured | predicted | calibrated | half |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for r in sorted(rows, key=lambda r: (r["bench"], r["schedule"])):
        print(f"| {r['bench']} | {r['schedule']} | {r['measured']:.1f} | {r['predicted']:.1f} | "
              f"{r['predicted'] * eta[r['family']]:.1f} | "
              f"{'fit' if r['bench'] in fit_half else 'test'} |")
    print("\nCalibration factors (JSON): " + json.dumps({k: round(v, 4) for k, v in eta.items()}))


if __name__ == "__main__":
    main()
