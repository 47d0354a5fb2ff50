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


# The options of the measured kernels that differ from today's defaults. Those of
# docs/data/2026-11-24-h100-cuda-full.csv wrote every array back, indexed in 64 bits and had no
# spare plane in stream + time_tile's input rings; their stream family's loop (two barriers per
# plane, a one-slot ring) is no longer generated, so its prediction is that of the rebuilt loop
# (docs/model.md). Data measured with the defaults: ''.
MEASURED_FLAGS = "--dead-stores keep --index-bits 64 --spare-plane off"

# Variants that ran as another schedule when measured: in the 2026-11-24 (and 2026-11-26) H100
# data denoise's stream + time_tile group was not fused (its input ring of u was one plane too
# short, gpu.md section 12) and ran per statement under `stream`; since 2026-11-26 it fuses.
# heat's group ran per statement in every run up to 2026-11-27 (its local array had no ring);
# since 2026-11-28 it fuses. The row keeps its family; its prediction is that of the schedule
# it ran as. Data measured with today's kernels: ''.
RAN_AS = "denoise:stream/2=stream,heat:stream/2=stream"


def ran_as(spec):
    """--ran-as's "bench:schedule=schedule,..." as a dict."""
    out = {}
    for item in filter(None, (x.strip() for x in spec.split(","))):
        key, _, schedule = item.partition("=")
        bench, _, measured = key.partition(":")
        out[(bench, measured)] = schedule
    return out


def split_variant(name):
    """bench.py's variant names ("stream/2[--spare-plane off]") as the schedule ("stream/2") and
    its options (["--spare-plane", "off"])."""
    base, _, opts = name.partition("[")
    return base, opts.rstrip("]").split()


def schedule_flags(name, measured=MEASURED_FLAGS):
    """bench.py's family names ("stream/2", "stream[--retime]") as tessel's flags, with the
    measured kernels'."""
    base, opts = split_variant(name)
    family, _, tile = base.partition("/")
    flags = measured.split() + ["--schedule", family]
    if tile:
        flags += ["--time-tile", tile]
    return flags + opts


def calibration_family(name):
    family, _, tile = split_variant(name)[0].partition("/")
    return "stream + time_tile" if family == "stream" and tile else family


def predict(tessel, machine, bench, schedule, params, ptxas, measured=MEASURED_FLAGS):
    cmd = [tessel, "analyze", os.path.join(ROOT, "benchmarks", bench + ".sten"), "--json",
           "--machine", machine] + schedule_flags(schedule, measured)
    if not ptxas:
        cmd.append("--no-ptxas")
    for p in params:
        cmd += ["--param", p]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    # The roofline alone (the calibration factors are what this script fits), and the analysis.
    a = json.loads(out.stdout)
    return a["roofline_gstencils_per_s"], a


def with_latency(a, dram, barrier):
    """GStencil/s of analysis `a` with the latency bound of perf/predict.h at these latencies."""
    seconds = 0.0
    for k in a["kernels"]:
        lat = k["latency"]
        bound = (dram + lat["barriers_per_round"] * barrier) / (
            lat["resident_threads"] * lat["updates_per_thread"])
        seconds += max(k["bandwidth_seconds_per_update"], bound) * k["updates"]
    return a["updates"] / seconds * 1e-9 if seconds > 0 else 0.0


def latency_grid(rows, fit_half, test_half):
    """Fits the machine's two latencies on the fitting half (least mean |ln error| after the
    per-family factors) over a grid, and states the error of the best on both halves."""
    def errors(dram, barrier):
        pred = [with_latency(r["analysis"], dram, barrier) for r in rows]
        eta = {}
        for fam in {r["family"] for r in rows}:
            logs = [math.log(r["measured"] / p) for r, p in zip(rows, pred)
                    if r["family"] == fam and r["bench"] in fit_half]
            eta[fam] = math.exp(statistics.fmean(logs)) if logs else 1.0
        def mean_log(half):
            return statistics.fmean(abs(math.log(p * eta[r["family"]] / r["measured"]))
                                    for r, p in zip(rows, pred) if r["bench"] in half)
        return mean_log(fit_half), mean_log(test_half)
    # A latency of 0 is no machine's (the machine files refuse it): the grid starts above.
    grid = [(d * 1e-9, b * 1e-9) for d in (50, 100, 200, 300, 400, 600, 800, 1000, 1500, 2000)
            for b in (0, 50, 100, 200, 400, 600, 800, 1000, 1200, 1600, 2400)]
    scored = sorted(((errors(d, b), d, b) for d, b in grid), key=lambda x: x[0][0])
    print("\nLatency bound (perf/predict.h), fitted on the fitting half: mean |ln(calibrated / "
          "measured)| per DRAM and barrier latency, the five best and the smallest (50 ns, no barrier cost):\n")
    print("| DRAM latency | barrier latency | fitting half | test half |")
    print("| ---: | ---: | ---: | ---: |")
    for (fit, test), d, b in scored[:5] + [x for x in scored if abs(x[1] - 50e-9) < 1e-15 and x[2] == 0][:1]:
        print(f"| {d * 1e9:.0f} ns | {b * 1e9:.0f} ns | {fit:.3f} | {test:.3f} |")
    (_, _), d, b = scored[0]
    print(f"\nLatencies (JSON): {json.dumps({'dram_latency_s': round(d, 12), 'barrier_latency_s': round(b, 12)})}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="bench.py rows measured on a GPU")
    ap.add_argument("--tessel", default=os.path.join(ROOT, "build", "tessel"))
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--ptxas", action="store_true", help="registers from nvcc (slower)")
    ap.add_argument("--measured-flags", default=MEASURED_FLAGS,
                    help="options of the measured kernels beyond today's defaults (default: "
                         "those of the 2026-11-24 H100 data; '' for data measured with the "
                         "defaults)")
    ap.add_argument("--ran-as", default=RAN_AS,
                    help="variants that ran as another schedule when measured, "
                         "bench:schedule=schedule,... (default: those of the 2026-11-24 H100 "
                         "data; '' for data measured with today's kernels)")
    ap.add_argument("--latency-grid", action="store_true",
                    help="also fit the latency bound's two latencies on the fitting half")
    args = ap.parse_args()

    rows = []
    ran = ran_as(args.ran_as)
    with open(args.csv) as f:
        for r in csv.DictReader(f):
            # "auto" rows (bench.py: the model's own choice) belong to no family to calibrate.
            if r["backend"] != "cuda" or not r["gstencil_s"] or split_variant(
                    r["schedule"])[0] == "auto":
                continue
            params = [p.strip() for p in (r.get("parameters") or "").split(";") if p.strip()]
            schedule = ran.get((r["benchmark"], r["schedule"]), r["schedule"])
            pred = predict(args.tessel, args.machine, r["benchmark"], schedule, params,
                           args.ptxas, args.measured_flags)
            pred, analysis = pred if pred else (None, None)
            if pred is None or pred <= 0:
                print(f"skipped {r['benchmark']} {r['schedule']}: tessel analyze refused it",
                      file=sys.stderr)
                continue
            rows.append({"bench": r["benchmark"], "schedule": r["schedule"],
                         "family": calibration_family(r["schedule"]),
                         "measured": float(r["gstencil_s"]), "predicted": pred,
                         "analysis": analysis})
    benches = sorted({r["bench"] for r in rows})
    fit_half = set(benches[0::2])  # alphabetical, alternating: both halves mix 2-D and 3-D

    # One factor per family: the geometric mean of measured / predicted on the fitting half.
    eta = {}
    for fam in sorted({r["family"] for r in rows}):
        ratios = [r["measured"] / r["predicted"] for r in rows
                  if r["family"] == fam and r["bench"] in fit_half]
        eta[fam] = math.exp(statistics.fmean(math.log(x) for x in ratios)) if ratios else 1.0

    # The spread of each family's calibrated prediction on the fitting half: the standard
    # deviation of ln(measured / calibrated prediction).
    sigma = {}
    for fam in eta:
        logs = [math.log(r["measured"] / (r["predicted"] * eta[fam])) for r in rows
                if r["family"] == fam and r["bench"] in fit_half]
        sigma[fam] = statistics.pstdev(logs) if len(logs) > 1 else 0.0

    def choose(bench, z):
        """The measured variant the cautious ranking puts first (perf/predict.h)."""
        rs = [r for r in rows if r["bench"] == bench]
        return max(rs, key=lambda r: r["predicted"] * eta[r["family"]] *
                   math.exp(-z * sigma[r["family"]]))

    def regret(half, z):
        """Per benchmark of `half`: the measured fastest over the chosen variant's rate."""
        out = []
        for b in sorted(half):
            rs = [r for r in rows if r["bench"] == b]
            out.append(max(r["measured"] for r in rs) / choose(b, z)["measured"])
        return out

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

    # The caution (in spreads) of the model's choice: the smallest of 0, 0.5, ... 3 whose choices
    # lose least on the fitting half (geometric mean of measured best over chosen).
    def geo(xs):
        return math.exp(statistics.fmean(math.log(x) for x in xs))
    zs = [0.5 * i for i in range(7)]
    z = min(zs, key=lambda z: (round(geo(regret(fit_half, z)), 6), z))
    print(f"\nThe model's choice (tessel ranks by the calibrated prediction, z = 0), against a "
          f"cautious ranking by the calibrated prediction x exp(-z x the family's spread on the "
          f"fitting half): the best z on the fitting half is z = {z:g}.\n")
    print("| half | z | chosen = measured fastest | measured fastest over chosen: geometric mean "
          "| worst |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, half in (("fit", fit_half), ("test", test_half)):
        for zz in sorted({0.0, z}):
            rg = regret(half, zz)
            print(f"| {name} | {zz:g} | {sum(x == 1 for x in rg)} of {len(rg)} | "
                  f"{geo(rg):.2f}x | {max(rg):.2f}x |")
    print("\nPer benchmark, the choice (z above) against the measured fastest and "
          "`global` (GStencil/s, measured):\n")
    print("| benchmark | half | chosen | measured | fastest | measured | global |")
    print("| --- | --- | --- | ---: | --- | ---: | ---: |")
    for b in benches:
        rs = [r for r in rows if r["bench"] == b]
        c = choose(b, z)
        best = max(rs, key=lambda r: r["measured"])
        g = [r["measured"] for r in rs if r["schedule"] == "global"]
        print(f"| {b} | {'fit' if b in fit_half else 'test'} | {c['schedule']} | "
              f"{c['measured']:.1f} | {best['schedule']} | {best['measured']:.1f} | "
              f"{g[0] if g else float('nan'):.1f} |")
    print("\nPer variant (GStencil/s):\n")
    print("| benchmark | schedule | measured | predicted | calibrated | half |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for r in sorted(rows, key=lambda r: (r["bench"], r["schedule"])):
        print(f"| {r['bench']} | {r['schedule']} | {r['measured']:.1f} | {r['predicted']:.1f} | "
              f"{r['predicted'] * eta[r['family']]:.1f} | "
              f"{'fit' if r['bench'] in fit_half else 'test'} |")
    if args.latency_grid:
        latency_grid(rows, fit_half, test_half)
    print("\nCalibration factors (JSON): " + json.dumps({k: round(v, 4) for k, v in eta.items()}))
    print("Calibration spreads: " + json.dumps({k: round(v, 4) for k, v in sigma.items()}))


if __name__ == "__main__":
    main()
