#!/usr/bin/env python3
"""Random command-line flag combinations over the benchmarks (the other half of
random_programs.py, which varies the programs): every option Tessel has, in combinations nobody
wrote a test for.

  emit  `tessel emit` (OpenCL, CUDA or C++), `info --kernels`, `analyze` or `analyze --compare`
        with random flags: each exits 0, or 1 with an error that carries a hint; never a crash,
        another exit status, or an internal error.
  run   `tessel run --verify` on the C++ target or OpenCL (PoCL) at small awkward sizes: each
        verifies, or is refused (exit 1 without a verification) with an error; never a wrong
        result, a crash or an internal error. With --oclgrind, OpenCL under Oclgrind
        (--data-races, the opt-in local memory of the default machine): also no data race and
        no out-of-bounds access (the reports read as random_programs.py reads them).

Exit status 1 if any combination is bad (or timed out), else 0. A summary counts each outcome
and the most common refusals (what the combinations ran into).

    python3 scripts/random_flags.py --mode emit --seed 1 --count 300
    python3 scripts/random_flags.py --mode run --seed 1 --count 150 --backends cpp,opencl
    python3 scripts/random_flags.py --mode run --seed 1 --count 60 --oclgrind
"""
import argparse
import collections
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import random_programs  # noqa: E402  (its reading of Oclgrind's reports)


def benchmarks():
    return sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, "benchmarks"))
                  if f.endswith(".sten"))


def random_flags(rng, run):
    """One combination: a family (or none, or auto) and options drawn independently."""
    f = []
    families = ["global", "global-stream", "shared", "stream", "stream", "overlapped"]
    fam = rng.choice(families if run else families + ["auto", None])
    if fam:
        f += ["--schedule", fam]
    draws = [
        (0.35, lambda: ["--time-tile", str(rng.choice([1, 2, 3] if run else [1, 2, 3, 4]))]),
        (0.3, lambda: ["--block", rng.choice(["32,8", "16,4", "8,8", "32,4", "64", "16,16"] +
                                             ([] if run else ["8,8,4", "32,4,2", "128,2", "4,4"]))]),
        (0.35, lambda: ["--chunk", str(rng.choice([1, 2, 3, 5, 16]))]),
        (0.35, lambda: ["--retime"]),
        (0.3, lambda: ["--prefetch"]),
        (0.2, lambda: ["--fold"]),
        (0.3, lambda: ["--unroll", rng.choice(["i=2", "j=2", "i=2,cyclic", "j=2,i=2", "i=3",
                                               "k=2"])]),
        (0.15, lambda: ["--perspective", rng.choice(["input", "mixed", "output"])]),
        (0.25, lambda: ["--fuse-statements"]),
        (0.25, lambda: ["--spare-plane", rng.choice(["on", "off"])]),
        (0.2, lambda: ["--index-bits", rng.choice(["32", "64", "auto"])]),
        (0.2, lambda: ["--fma"]),
        (0.2, lambda: ["--dead-stores", rng.choice(["keep", "drop"])]),
        (0.15, lambda: ["--fusion-groups", rng.choice(
            ["greedy", "trivial-fission", "maxfuse", "recompute-fission"] +
            ([] if run else ["auto", "none", "modesto"]))]),
    ]
    if not run:
        draws += [
            (0.15, lambda: ["--stream", rng.choice(["k", "j", "i"])]),
            (0.1, lambda: ["--full-stream", rng.choice(["k", "j"])]),
            (0.15, lambda: ["--machine", rng.choice(["h100", "h200", "a100", "v100", "p100",
                                                     "k20c"])]),
        ]
    # Drawn last, so that the combinations of the seeds before it (README) begin as they did.
    draws += [(0.2, lambda: ["--register-values", rng.choice(["on", "off"])])]
    for p, draw in draws:
        if rng.random() < p:
            f += draw()
    return f


def awkward_params(rng, bench):
    """Small odd sizes (7 to 23, not multiples of a tile; smaller than some halos) for the
    program's size parameters, 3 for a step count."""
    with open(os.path.join(ROOT, "benchmarks", bench + ".sten")) as f:
        text = f.read()
    out = []
    for m in re.finditer(r"^\s*parameter\s+([^;]*);", text, re.M):
        for p in m.group(1).split(","):
            name = p.split("=")[0].strip()
            if not name:
                continue
            value = 3 if name in ("T", "STEPS", "NT") else rng.choice([7, 9, 11, 13, 19, 23])
            out += ["--param", f"{name}={value}"]
    return out


def emit_job(tessel, bench, flags, kind):
    """The command of one emit-mode job; `kind` picks the subcommand and target."""
    path = os.path.join(ROOT, "benchmarks", bench + ".sten")
    if kind in ("opencl", "cuda", "cpp"):
        extra = ["--max-registers", "bounds"] if kind == "cuda" else []  # no nvcc per job
        return [tessel, "emit", path, "--target", kind, "-o", "{dir}"] + flags + extra
    if kind == "info":
        return [tessel, "info", "--kernels", "--no-ptxas", path] + flags
    if kind == "analyze":
        return [tessel, "analyze", "--no-ptxas", "--json", path] + flags
    return [tessel, "analyze", "--no-ptxas", "--compare", path] + flags


def first_error(out):
    for line in out.splitlines():
        if "error" in line:
            return line.strip()
    return out.strip().splitlines()[0] if out.strip() else "(no output)"


def classify_emit(rc, out):
    if rc not in (0, 1) or "internal error" in out.lower() or "terminate called" in out:
        return "bad"
    if rc == 1:
        if "error" not in out:
            return "bad"  # refused without saying why
        return "refused" if "hint:" in out else "refused-without-hint"
    return "ok"


def classify_run(rc, out, oclgrind_log=None):
    if oclgrind_log is not None:
        kind, _, _ = random_programs.summarise_oclgrind(oclgrind_log, out)
        if kind == "report":
            return "racy/oob"
        if kind == "fatal":
            return "bad"
    if "internal error" in out.lower() or "terminate called" in out or rc not in (0, 1):
        return "bad"
    if rc == 0:
        return "passed" if "verification PASSED" in out else "bad"
    if "verification" in out.lower():
        return "wrong"
    return "refused" if "error" in out else "bad"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessel", default=os.environ.get("TESSEL", os.path.join(ROOT, "build",
                                                                              "tessel")))
    ap.add_argument("--mode", choices=["emit", "run"], default="emit")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--backends", default="cpp,opencl", help="run mode: backends drawn from")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per command")
    ap.add_argument("--quiet", action="store_true", help="only the summary and the bad ones")
    ap.add_argument("--oclgrind", action="store_true",
                    help="run mode: OpenCL under Oclgrind (data races, out-of-bounds accesses)")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    names = benchmarks()
    run = args.mode == "run"
    jobs = []
    for _ in range(args.count):
        bench = rng.choice(names)
        flags = random_flags(rng, run)
        if run:
            backend = "opencl" if args.oclgrind else rng.choice(args.backends.split(","))
            if args.oclgrind:
                # The opt-in local memory the default machine (H100) validates blocks against.
                cmd = ["oclgrind", "--data-races", "--local-mem-size", "232448", "--log",
                       "{dir}/oclgrind.log"]
            else:
                cmd = []
            cmd += [args.tessel, "run", os.path.join(ROOT, "benchmarks", bench + ".sten"),
                   "--backend", backend, "--verify"] + flags + awkward_params(rng, bench)
        else:
            kind = rng.choice(["opencl", "cuda", "cpp", "info", "analyze", "compare"])
            cmd = emit_job(args.tessel, bench, flags, kind)
        jobs.append(cmd)

    def one(cmd):
        with tempfile.TemporaryDirectory() as d:
            cmd = [x.replace("{dir}", d) for x in cmd]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                return "timeout", cmd, ""
            out = r.stdout + r.stderr
            log = None
            if run and args.oclgrind:
                path = os.path.join(d, "oclgrind.log")
                log = open(path, errors="replace").read() if os.path.exists(path) else ""
                out += "\n" + log[-2000:]
            kind = (classify_run(r.returncode, r.stdout + r.stderr, log) if run else
                    classify_emit(r.returncode, out))
            return kind, cmd, out

    counts = collections.Counter()
    reasons = collections.Counter()
    failed = False
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for n, (kind, cmd, out) in enumerate(pool.map(one, jobs), 1):
            counts[kind] += 1
            shown = " ".join(x if re.fullmatch(r"[\w=,./:+-]+", x) else repr(x) for x in cmd)
            if kind.startswith("refused"):
                reasons[re.sub(r"^.*?error: ", "", first_error(out))[:110]] += 1
            if kind in ("bad", "wrong", "racy/oob", "timeout", "refused-without-hint"):
                failed = True
                print(f"[{n}/{len(jobs)}] {kind.upper()}: {shown}\n{out[-2500:]}\n-----",
                      flush=True)
            elif not args.quiet:
                print(f"[{n}/{len(jobs)}] {kind}: {shown}", flush=True)
    print(f"summary: {len(jobs)} combinations (seed {args.seed}, mode {args.mode})")
    for kind in (["passed", "refused", "wrong", "racy/oob", "bad", "timeout"] if run else
                 ["ok", "refused", "refused-without-hint", "bad", "timeout"]):
        print(f"  {kind:<21}{counts[kind]:>4}")
    if reasons:
        print("most common refusals:")
        for text, c in reasons.most_common(8):
            print(f"  {c:>3} x  {text}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
