#!/usr/bin/env python3
"""Tessel benchmark runner: every benchmark x every schedule family on one backend.

For each program in benchmarks/ it runs `tessel run --json --verify` on the C++/OpenMP backend
and on the chosen GPU backend (default: opencl) once per schedule family, the naive `global`
family always among them, and prints one table (time, GStencil/s, GFLOP/s, speed-up over
`global`, verification) and writes the same rows as CSV.

A family that does not apply to a program (streaming a 1-D program, say) or that this build of
Tessel does not know is shown as `n/a` with tessel's first error line; a run that fails
verification is shown as FAILED and makes the script exit with status 2.

On this project's development machines the OpenCL device is PoCL, which runs the kernels on the
CPU: those timings are CPU timings and say nothing about a GPU.

Only the Python standard library is used.
"""

import argparse
import concurrent.futures
import csv
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A schedule is a family, optionally with a time tile: "overlapped/2" is `--schedule overlapped
# --time-tile 2` (stream/2: streaming with two fused steps per sweep, 3.5-D blocking).
DEFAULT_FAMILIES = ["global", "global-stream", "shared", "stream", "stream/2", "overlapped",
                    "overlapped/2"]
# Extent per dimension count for --size small (the default) and --size full (the programs'
# own defaults).
SMALL_EXTENT = {1: 1 << 18, 2: 1024, 3: 96}
# --size awkward: every extent parameter set to a size that is no multiple of any block or tile
# (for correctness runs, not timings).
AWKWARD_EXTENT = {1: 100003, 2: 203, 3: 37}


def tessel_json(tessel, args):
    """Runs tessel with args; returns (exit status, parsed JSON or None, stderr text)."""
    p = subprocess.run([tessel] + args, capture_output=True, text=True)
    data = None
    if p.returncode in (0, 2):
        try:
            data = json.loads(p.stdout)
        except json.JSONDecodeError:
            data = None
    return p.returncode, data, p.stderr.strip() or p.stdout.strip()


def first_error(text):
    for line in text.splitlines():
        if "error" in line:  # without the file:line:col prefix, which fills the table's column
            return line[line.index("error"):].strip()
    return text.splitlines()[0].strip() if text else "failed"


def parameters(tessel, program, size):
    """--param options: extent parameters capped at the small extent for the program's
    dimensions (or set to the awkward one); the others (time steps) at their defaults."""
    if size == "full":
        return []
    status, info, err = tessel_json(tessel, ["info", program, "--json"])
    if status != 0 or info is None:
        raise RuntimeError(f"tessel info {program}: {first_error(err)}")
    dims = len(info["iterators"])
    extent_params = set()
    for a in info["arrays"]:
        for e in a["extents"]:
            extent_params.add(e)
    out = []
    for p in info["parameters"]:
        if p["name"] in extent_params and p.get("value") is not None:
            value = (AWKWARD_EXTENT[dims] if size == "awkward"
                     else min(int(p["value"]), SMALL_EXTENT[dims]))
            out += ["--param", f"{p['name']}={value}"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tessel", default=os.path.join(ROOT, "build", "tessel"))
    ap.add_argument("--backend", default="opencl", help="opencl (default) or cuda")
    ap.add_argument("--families", default=",".join(DEFAULT_FAMILIES),
                    help="comma-separated schedule families ('auto': none named, the "
                         "performance model's choice), each optionally /T for a time "
                         "tile of T steps and [OPTIONS] for options of that variant only, e.g. "
                         "'stream[--retime]' or 'stream/2[--spare-plane off]' (global, "
                         "without options, is always run)")
    ap.add_argument("--benchmarks", default="",
                    help="comma-separated benchmark names (default: every benchmarks/*.sten)")
    ap.add_argument("--programs", default=os.path.join(ROOT, "benchmarks"),
                    help="the folder of NAME.sten programs (default: benchmarks/; e.g. the "
                         "output folder of `tessel split`)")
    ap.add_argument("--size", choices=["small", "full", "awkward"], default="small",
                    help="small: extents capped at 2^18 (1-D), 1024 (2-D), 96 (3-D); "
                         "full: the programs' defaults; awkward: 100003 (1-D), 203 (2-D), "
                         "37 (3-D), for correctness runs")
    ap.add_argument("--jobs", type=int, default=1,
                    help="benchmarks run at once (default 1); above 1 the runs share the device, "
                         "so use it for verification, not for timings")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per variant (median)")
    ap.add_argument("--csv", default="", help="CSV file (default: bench-results/bench-DATE.csv); each "
                    "benchmark's rows are added as it finishes")
    ap.add_argument("--no-verify", action="store_true", help="skip --verify (faster)")
    ap.add_argument("--skip-cpp", action="store_true",
                    help="leave out the C++/OpenMP row of each benchmark (GPU timings only)")
    ap.add_argument("--extra", default="",
                    help="more options for every GPU run, space-separated (e.g. "
                         "\"--index-bits 64 --dead-stores keep\"); recorded in the CSV")
    args = ap.parse_args()

    def fam_of(family):
        """The schedule family of a variant such as 'stream/2[--spare-plane off]'."""
        return family.split("[", 1)[0].partition("/")[0]

    def variant_options(family):
        """The time tile and the bracketed options of a variant, as tessel arguments."""
        head, _, opts = family.partition("[")
        tile = head.partition("/")[2]
        if opts and not opts.endswith("]"):
            sys.exit(f"bench.py: variant '{family}' opens '[' without closing it")
        return (["--time-tile", tile] if tile else []) + opts[:-1].split()

    # Commas separate variants, except inside an option list: 'stream[--unroll i=2,cyclic]'.
    families = [f for f in re.findall(r"(?:[^,\[]|\[[^\]]*\])+", args.families) if f]
    if "global" not in families:
        families.insert(0, "global")
    names = [b for b in args.benchmarks.split(",") if b] or sorted(
        f[:-5] for f in os.listdir(args.programs) if f.endswith(".sten"))
    csv_path = args.csv or os.path.join(
        ROOT, "bench-results", f"bench-{datetime.datetime.now():%Y%m%d-%H%M%S}.csv")
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)

    def run_benchmark(name):
        """Every variant of one benchmark, in order; returns (rows, any verification failed)."""
        program = os.path.join(args.programs, name + ".sten")
        params = parameters(args.tessel, program, args.size)
        variants = ([] if args.skip_cpp else [("cpp", None)]) + [(args.backend, f)
                                                                  for f in families]
        base = None
        out, bad = [], False
        for backend, family in variants:
            cmd = ["run", program, "--backend", backend, "--json", "--repeat", str(args.repeat)]
            cmd += params
            if not args.no_verify:
                cmd.append("--verify")
            if family:
                # "auto" names no family: the performance model chooses (its line goes to the
                # note column).
                named = [] if fam_of(family) == "auto" else ["--schedule", fam_of(family)]
                cmd += named + variant_options(family)
                cmd += args.extra.split()
            status, rep, err = tessel_json(args.tessel, cmd)
            row = {"benchmark": name, "backend": backend, "schedule": family or "-",
                   "parameters": " ".join([p for p in params if p != "--param"]
                                          + (args.extra.split() if family else [])),
                   "time_ms": "", "gstencil_s": "", "gflop_s": "", "vs_global": "",
                   "verified": "", "note": ""}
            if rep is None:
                row["verified"] = "n/a"
                row["note"] = first_error(err)
            else:
                row["time_ms"] = f"{rep['time_s'] * 1e3:.3f}"
                row["gstencil_s"] = f"{rep['gstencils_per_s']:.3f}"
                row["gflop_s"] = f"{rep['gflops_per_s']:.3f}"
                ver = rep.get("verification")
                row["verified"] = "-" if ver is None else ("yes" if ver["passed"] else "FAILED")
                if ver is not None and not ver["passed"]:
                    bad = True
                if family and fam_of(family) == "auto":
                    row["note"] = next((ln.strip() for ln in err.splitlines()
                                        if "the model ranks" in ln), "")
                if family == "global":
                    base = rep["time_s"]
                if base and family and rep["time_s"] > 0:
                    row["vs_global"] = f"{base / rep['time_s']:.2f}x"
            out.append(row)
            print(f"  {name:18} {backend:7} {row['schedule']:14} {row['time_ms']:>10} ms "
                  f"{row['verified']}", file=sys.stderr, flush=True)
        return out, bad

    cols = ["benchmark", "backend", "schedule", "time_ms", "gstencil_s", "gflop_s", "vs_global",
            "verified", "note"]
    # The CSV grows as each benchmark finishes (a run stopped half-way keeps what it measured) and
    # is written again in benchmark order at the end.
    with open(csv_path, "w", newline="") as f:
        csv.DictWriter(f, fieldnames=cols + ["parameters"]).writeheader()
    csv_lock = threading.Lock()

    def run_and_record(name):
        out, bad = run_benchmark(name)
        with csv_lock, open(csv_path, "a", newline="") as f:
            csv.DictWriter(f, fieldnames=cols + ["parameters"]).writerows(out)
        return out, bad

    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(run_and_record, names))  # in benchmark order, whatever finishes first
    rows = [r for out, _ in results for r in out]
    failed = any(bad for _, bad in results)

    heads = ["benchmark", "backend", "schedule", "time (ms)", "GStencil/s", "GFLOP/s",
             "vs global", "verified", "note"]
    def cell(r, c):  # the table shows the start of a long note; the CSV has all of it
        v = str(r[c])
        return v if c != "note" or len(v) <= 72 else v[:69] + "..."

    widths = [max(len(h), *(len(cell(r, c)) for r in rows)) for c, h in zip(cols, heads)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(heads, widths)) + " |")
    print("| " + " | ".join("-" * w for w in widths) + " |")
    for r in rows:
        print("| " + " | ".join(cell(r, c).ljust(w) for c, w in zip(cols, widths)) + " |")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols + ["parameters"])
        w.writeheader()
        w.writerows(rows)
    devices = sorted({r["backend"] for r in rows})
    print(f"\n{len(rows)} runs in {time.time() - started:.0f} s; backends {', '.join(devices)}; "
          f"median of {args.repeat} timed runs each; CSV: {csv_path}")
    if args.backend == "opencl":
        print("note: on a machine whose OpenCL device is PoCL these are CPU timings of GPU-shaped "
              "code; they say nothing about a GPU")
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
