#!/usr/bin/env python3
"""The register estimate (src/perf/register_estimate.h) against ptxas.

--collect: compiles every benchmark under each variant below with nvcc for sm_90 (through
`tessel info --json`, which runs ptxas -v) and writes one CSV row per distinct kernel: the
benchmark, the variant's flags, the kernel and ptxas's registers and spills. Needs nvcc; slow
(minutes).

Without --collect: reads such a CSV, computes each kernel's features with `tessel info --json
--no-ptxas` (no nvcc needed), fits registers = intercept of the kernel's family + a x pressure
by least squares on the kernels of the benchmarks of the fitting half, and states the error of the
estimate (rounded and capped as tessel does) on the other half. Prints a Markdown report and the
fit as JSON (the constants of sm90RegisterFit() in src/perf/register_estimate.cpp must be these:
a test checks it).

    python3 scripts/register_fit.py --collect --tessel build/tessel \\
        -o docs/data/2026-11-27-ptxas-sm90-registers.csv
    python3 scripts/register_fit.py --collect --tessel build/tessel \
        --variant "--schedule stream --retime" \
        -o docs/data/2026-11-27-ptxas-sm90-registers.csv \
        docs/data/2026-11-27-ptxas-sm90-registers.csv
    python3 scripts/register_fit.py --tessel build/tessel \\
        docs/data/2026-11-27-ptxas-sm90-registers.csv
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The variants compiled per benchmark: every family, time tiles, and the options that change
# register use most (unrolling, retiming, 64-bit indices, statement fusion). A variant a
# benchmark refuses (an iterator it lacks, a family it cannot take) is left out.
VARIANTS = [
    "--schedule global",
    "--schedule global --fuse-statements",
    "--schedule global --index-bits 64",
    "--schedule global-stream",
    "--schedule shared",
    "--schedule shared --unroll i=2",
    "--schedule stream",
    "--schedule stream --retime",
    "--schedule stream --index-bits 64",
    "--schedule stream --unroll i=2",
    "--schedule overlapped --time-tile 1",
    "--schedule overlapped --time-tile 2",
    "--schedule stream --time-tile 2",
]


def benchmarks():
    return sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "benchmarks"))
                  if f.endswith(".sten"))


def fitting_half(names):
    """Every other benchmark in alphabetical order, from the first."""
    return set(names[0::2])


def info(tessel, bench, flags, ptxas):
    cmd = [tessel, "info", os.path.join(ROOT, "benchmarks", bench + ".sten"), "--json"]
    cmd += flags.split() + ([] if ptxas else ["--no-ptxas"])
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    text = out.stdout
    return json.loads(text[text.find("{"):])


def collect(args):
    variants = args.variant or VARIANTS
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        sys.exit(f"not a variant of the fit: {unknown[0]!r} (one of: {', '.join(VARIANTS)})")
    jobs = [(b, v) for b in benchmarks() for v in variants]
    rows = []
    if args.variant:
        # Only these variants compiled again: the output's other rows come from the CSV given.
        if not args.csv:
            sys.exit("--collect --variant V needs the CSV whose other rows to keep")
        with open(args.csv, newline="") as f:
            rows = [[r["benchmark"], r["flags"], r["kernel"], int(r["registers"]),
                     int(r["spill_bytes"])] for r in csv.DictReader(f) if r["flags"] not in variants]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(info, args.tessel, b, v, True): (b, v) for b, v in jobs}
        for n, f in enumerate(concurrent.futures.as_completed(futures), 1):
            b, v = futures[f]
            j = f.result()
            print(f"[{n}/{len(jobs)}] {b} {v}: " +
                  ("refused" if j is None else f"{len(j.get('kernels', []))} kernels"),
                  file=sys.stderr, flush=True)
            if not j:
                continue
            for k in j.get("kernels", []):
                if "registers" in k:
                    rows.append([b, v, k["name"], k["registers"], k.get("spill_bytes", 0)])
    rows.sort()
    with open(args.output, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["benchmark", "flags", "kernel", "registers", "spill_bytes"])
        w.writerows(rows)
    print(f"{len(rows)} kernels written to {args.output}")


def solve(a, b):
    """x with a x = b (Gaussian elimination with partial pivoting; a is small and square)."""
    n = len(a)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def least_squares(xs, ys):
    """Coefficients c minimising sum (c . x - y)^2 (normal equations)."""
    n = len(xs[0])
    ata = [[sum(x[i] * x[j] for x in xs) for j in range(n)] for i in range(n)]
    aty = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(n)]
    return solve(ata, aty)


def estimate(fit, f):
    """As estimateRegisters(): rounded (half away from zero), at least 16, at most the cap."""
    raw = fit["intercept"][f["family"]] + fit["per_pressure"] * f["pressure"]
    return max(min(16, f["cap"]), min(f["cap"], int(math.floor(raw + 0.5))))


def fit_report(args):
    with open(args.csv) as f:
        rows = list(csv.DictReader(f))
    # Features per (benchmark, flags), from the IR alone.
    keys = sorted({(r["benchmark"], r["flags"]) for r in rows})
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        infos = dict(zip(keys, pool.map(lambda k: info(args.tessel, k[0], k[1], False), keys)))
    data = []
    for r in rows:
        j = infos[(r["benchmark"], r["flags"])]
        k = next((k for k in (j or {}).get("kernels", []) if k["name"] == r["kernel"]), None)
        if k is None:
            print(f"error: {r['benchmark']} {r['flags']}: no kernel {r['kernel']} today "
                  "(the CSV is out of date: --collect again)", file=sys.stderr)
            return 1
        data.append({"bench": r["benchmark"], "flags": r["flags"], "kernel": r["kernel"],
                     "ptxas": int(r["registers"]), "spills": int(r["spill_bytes"]),
                     "threads": k["block"][0] * k["block"][1] * k["block"][2],
                     "family": k["family"],
                     **k["registers_estimate"]})
    half = fitting_half(sorted({d["bench"] for d in data}))
    # Fit on kernels that did not spill (a spilling kernel's count is its cap, not its demand).
    train = [d for d in data if d["bench"] in half and d["spills"] == 0 and d["ptxas"] < d["cap"]]
    families = sorted({d["family"] for d in data})
    c = least_squares([[int(d["family"] == f) for f in families] + [d["pressure"]]
                       for d in train], [d["ptxas"] for d in train])
    fit = {"intercept": {f: round(x, 2) for f, x in zip(families, c)},
           "per_pressure": round(c[-1], 3)}
    print(f"# Register estimate against ptxas (sm_90), {args.csv}\n")
    print(f"{len(data)} kernels of {len({d['bench'] for d in data})} benchmarks; fitted on "
          f"{len(train)} kernels (without spills) of the fitting half: "
          f"{', '.join(sorted(half))}.\n")
    print("| half | kernels | mean abs. error | median abs. error | within 8 | within 16 | "
          "blocks per SM right | mean relative error of blocks per SM |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, sel in (("fit", lambda d: d["bench"] in half),
                      ("test", lambda d: d["bench"] not in half)):
        ds = [d for d in data if sel(d)]
        errs = [abs(estimate(fit, d) - d["ptxas"]) for d in ds]
        true = [blocks_h100(d["ptxas"], d["threads"]) for d in ds]
        est = [blocks_h100(estimate(fit, d), d["threads"]) for d in ds]
        bound = [blocks_h100(0, d["threads"]) for d in ds]
        print(f"| {name} | {len(ds)} | {statistics.mean(errs):.1f} | "
              f"{statistics.median(errs):.0f} | {sum(e <= 8 for e in errs)} | "
              f"{sum(e <= 16 for e in errs)} | {sum(map(int.__eq__, est, true))} / "
              f"{sum(map(int.__eq__, bound, true))} | "
              f"{statistics.mean(abs(e - t) / t for e, t in zip(est, true)):.2f} / "
              f"{statistics.mean(abs(b - t) / t for b, t in zip(bound, true)):.2f} |")
    print("\nBlocks per SM: of the kernel's block on the H100, from registers and threads alone "
          "(shared memory left out), with the estimate / with registers left out (the upper bound "
          "tessel used before), against those of ptxas's registers.")
    print("\nLargest errors on the test half:\n")
    print("| benchmark | flags | kernel | ptxas | estimate | pressure |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    test = sorted((d for d in data if d["bench"] not in half),
                  key=lambda d: -abs(estimate(fit, d) - d["ptxas"]))
    for d in test[:args.worst]:
        print(f"| {d['bench']} | {d['flags']} | {d['kernel']} | {d['ptxas']} | "
              f"{estimate(fit, d)} | {d['pressure']} |")
    print(f"\nRegister fit (JSON): {json.dumps(fit)}")
    return 0


def blocks_h100(registers, threads):
    """Blocks of `threads` threads per H100 SM that `registers` per thread and the SM's 64 warps
    allow (shared memory left out), to say whether an error changes occupancy."""
    per_warp = math.ceil(registers * 32 / 256) * 256
    warps = math.ceil(threads / 32)
    by_registers = 65536 // (per_warp * warps) if per_warp else 32
    return min(32, 64 // warps, by_registers)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="?", help="the ptxas CSV to fit (without --collect)")
    p.add_argument("--tessel", default=os.path.join(ROOT, "build", "tessel"))
    p.add_argument("--collect", action="store_true", help="compile and write the CSV (needs nvcc)")
    p.add_argument("-o", "--output", help="--collect: the CSV to write")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--worst", type=int, default=10, help="rows of largest errors shown")
    p.add_argument("--variant", action="append",
                   help="--collect: compile only this variant (repeatable) and keep the other "
                        "rows of the CSV given, e.g. after a change to one family's kernels")
    args = p.parse_args()
    if args.collect:
        if not args.output:
            p.error("--collect needs -o FILE")
        collect(args)
        return 0
    if not args.csv:
        p.error("give the CSV to fit, or --collect")
    return fit_report(args)


if __name__ == "__main__":
    sys.exit(main())
