#!/usr/bin/env python3
"""Random programs through `tessel split` (and `deep-tune -o`): the written program must compute
what its input does.

For each random program of a seed (scripts/random_programs.py's generator) and each mode, runs

  tessel run PROG --backend reference --output A          (the input program)
  tessel split PROG --mode MODE -o DIR                     (a new program in the language)
  tessel check DIR/PROG-MODE.sten
  tessel run DIR/PROG-MODE.sten --backend reference --output B

(mode `deep-tune`: `tessel deep-tune PROG -o DIR`, the run's calls composed into time tiles
as the model chooses) and compares every array of A with B's (the copyout arrays, or every array written): the same
random inputs (seeded by array name), the same reference interpreter, so the arrays must be
equal (a relative difference of 1e-12 is tolerated, for a regrouping that reassociates).
Each (program, mode) is classified: same, refused (split exits 1 with a reason: a program the
mode does not apply to), different, check-failed, run-failed or crash (any other exit status).
Exit status 1 if any is different, check-failed, run-failed or crash.

Only the Python standard library is used (.npy files are read here: little-endian float64 and
float32, C order).
"""

import argparse
import array
import ast
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_programs  # noqa: E402  (the generator)

MODES = ["trivial-fission", "maxfuse", "recompute-fission", "greedy", "modesto"]
# Extra modes (not in the default): MODESTO's grouping in a block memory of 200 values, which
# splits most calls it can group (their temporaries and per-point scalars cross kernels).
EXTRA_MODES = {"modesto-small": ["--mode", "modesto", "--modesto-capacity", "200"]}
BAD = ("different", "check-failed", "run-failed", "crash")


def read_npy(path):
    """(shape, values) of a little-endian float64 or float32 .npy file in C order."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    major = data[6]
    hlen_size = 2 if major == 1 else 4
    hlen = int.from_bytes(data[8:8 + hlen_size], "little")
    start = 8 + hlen_size
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    kind = {"<f8": "d", "<f4": "f"}.get(header["descr"])
    if kind is None or header.get("fortran_order"):
        raise ValueError(f"{path}: unsupported dtype {header['descr']}")
    values = array.array(kind)
    values.frombytes(data[start + hlen:])
    return tuple(header["shape"]), values


def arrays_differ(a_dir, b_dir):
    """The names of the arrays of a_dir that b_dir lacks or holds other values of."""
    bad = []
    for name in sorted(os.listdir(a_dir)):
        if not name.endswith(".npy"):
            continue
        other = os.path.join(b_dir, name)
        if not os.path.exists(other):
            bad.append(f"{name} (missing)")
            continue
        (sa, va), (sb, vb) = read_npy(os.path.join(a_dir, name)), read_npy(other)
        if sa != sb:
            bad.append(f"{name} (shape {sa} against {sb})")
            continue
        for x, y in zip(va, vb):
            if x != y and not (x != x and y != y) and abs(x - y) > 1e-12 * max(abs(x), abs(y)):
                bad.append(f"{name} ({x!r} against {y!r})")
                break
    return bad


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def last_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def check_one(tessel, prog, modes, work):
    """[(mode, class, detail)] for one program."""
    out = []
    orig = os.path.join(work, "input")
    rc, text = run([tessel, "run", prog, "--backend", "reference", "--output", orig])
    if rc != 0:
        return [("-", "crash" if rc not in (1, 2) else "run-failed", last_line(text))]
    for mode in modes:
        d = os.path.join(work, mode)
        rc, text = run([tessel, "deep-tune", prog, "-o", d] if mode == "deep-tune" else
                       [tessel, "split", prog] + EXTRA_MODES.get(mode, ["--mode", mode]) +
                       ["-o", d])
        if rc == 1:
            out.append((mode, "refused", last_line(text)))
            continue
        if rc != 0:
            out.append((mode, "crash", f"split exit {rc}: {last_line(text)}"))
            continue
        written = [f for f in os.listdir(d) if f.endswith(".sten")]
        if len(written) != 1:
            out.append((mode, "crash", f"split wrote {len(written)} programs"))
            continue
        split_prog = os.path.join(d, written[0])
        rc, text = run([tessel, "check", split_prog])
        if rc != 0:
            out.append((mode, "check-failed" if rc == 1 else "crash", last_line(text)))
            continue
        res = os.path.join(d, "results")
        rc, text = run([tessel, "run", split_prog, "--backend", "reference", "--output", res])
        if rc != 0:
            out.append((mode, "run-failed" if rc in (1, 2) else "crash", last_line(text)))
            continue
        bad = arrays_differ(orig, res)
        out.append((mode, "different" if bad else "same", ", ".join(bad)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", default="1", help="seed (any string; default 1)")
    ap.add_argument("--count", type=int, default=100, help="number of programs (default 100)")
    ap.add_argument("--modes", default=",".join(MODES),
                    help="split modes, separated by commas (default: " + ",".join(MODES) +
                    "), modesto-small (MODESTO in 200 values) and deep-tune")
    ap.add_argument("--tessel", default=None, help="tessel binary (default: $TESSEL, build/tessel)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel 'tessel check' runs of the generator")
    args = ap.parse_args(argv)
    tessel = random_programs.find_tessel(args.tessel)
    modes = [m for m in args.modes.split(",") if m]
    with tempfile.TemporaryDirectory(prefix="tessel-random-split-") as tmp:
        progs = os.path.join(tmp, "programs")
        random_programs.generate(args.seed, args.count, progs, tessel, args.jobs)
        counts = {}
        shown = []
        for name in sorted(os.listdir(progs)):
            if not name.endswith(".sten"):
                continue
            work = os.path.join(tmp, "work", name[:-5])
            os.makedirs(work)
            for mode, cls, detail in check_one(tessel, os.path.join(progs, name), modes, work):
                counts[cls] = counts.get(cls, 0) + 1
                if cls in BAD:
                    shown.append(f"  {cls:13s}{name} --mode {mode}: {detail}")
                    keep = os.path.join(random_programs.DEFAULT_KEEP, f"split-seed{args.seed}")
                    os.makedirs(keep, exist_ok=True)
                    with open(os.path.join(progs, name)) as src, \
                            open(os.path.join(keep, name), "w") as dst:
                        dst.write(src.read())
    print(f"summary: {args.count} programs (seed {args.seed}) x {len(modes)} modes")
    for cls in ("same", "refused") + BAD:
        print(f"  {cls:13s}{counts.get(cls, 0):5d}")
    for line in shown:
        print(line)
    return 1 if any(counts.get(c, 0) for c in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
