#!/usr/bin/env python3
"""The performance model against published GPU measurements.

Reads docs/data/published-figures.csv (each row: a figure a paper printed, the paper's FLOPs per
point to turn it into GStencil/s, the Tessel program under docs/data/published/ that mirrors the
measured configuration, the schedule flags, the machine file standing in for the paper's GPU, and
the half it belongs to), predicts each with `tessel analyze --json` (the roofline alone), fits one
factor (the geometric mean of published over predicted GStencil/s) on the "fit" half and states
the error on the "test" half. Prints a Markdown report.

    python3 scripts/published_accuracy.py --tessel build/tessel
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


def predict(tessel, row):
    cmd = [tessel, "analyze", os.path.join(ROOT, "docs", "data", "published", row["program"]),
           "--json", "--no-ptxas", "--machine", row["machine"]] + row["flags"].split()
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"tessel analyze failed for {row['program']}: {out.stderr}")
    d = json.loads(out.stdout)
    last = d["kernels"][-1]
    return d["roofline_gstencils_per_s"], last["bound"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", default=os.path.join(ROOT, "docs", "data", "published-figures.csv"))
    ap.add_argument("--tessel", default=os.path.join(ROOT, "build", "tessel"))
    args = ap.parse_args()
    rows = list(csv.DictReader(open(args.csv)))
    for r in rows:
        r["measured"] = float(r["published_gstencils"])
        r["predicted"], r["bound"] = predict(args.tessel, r)
        r["ratio"] = r["measured"] / r["predicted"]
    fit = [r for r in rows if r["half"] == "fit"]
    factor = math.exp(statistics.mean(math.log(r["ratio"]) for r in fit))

    def err(pred, meas):
        return abs(pred - meas) / meas * 100

    print("| paper, source | GPU (machine file) | benchmark | published | GStencil/s | "
          "predicted (roofline) | bound | error | calibrated | error | half |")
    print("| --- | --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- |")
    for r in rows:
        cal = r["predicted"] * factor
        print(f"| {r['paper']}, {r['source']} | {r['gpu']} ({r['machine']}) | {r['benchmark']} "
              f"{r['precision']}, {r['variant']} | {r['published']} | {r['measured']:.1f} | "
              f"{r['predicted']:.1f} | {r['bound']} | {err(r['predicted'], r['measured']):.0f}% | "
              f"{cal:.1f} | {err(cal, r['measured']):.0f}% | {r['half']} |")
    test = [r for r in rows if r["half"] == "test"]
    raw = statistics.median(err(r["predicted"], r["measured"]) for r in test)
    cal = statistics.median(err(r["predicted"] * factor, r["measured"]) for r in test)
    print()
    print(f"Factor fitted on the {len(fit)} 'fit' rows: {factor:.3f}. Median error on the "
          f"{len(test)} 'test' rows: {raw:.0f}% for the roofline alone, {cal:.0f}% calibrated.")


if __name__ == "__main__":
    main()
