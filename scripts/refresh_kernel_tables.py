#!/usr/bin/env python3
"""Refreshes the columns of docs/gpu.md's kernel tables that need nvcc, in place.

The tables (scripts/kernel_quality.py's output, some edited by hand: columns left out or named
apart) quote ptxas's registers of each row's main kernel and the GStencil/s the model predicts
with them. Both move when the kernels or the model change; `Full/DocsPtxasFigures`
(tests/e2e/test_docs_kernel_tables.cpp) fails when they have. This script recomputes, with
today's binary, the "after" side of every row (both sides in the tables of an option, whose
"before" is today's binary without it) and keeps the historical "before" side of section 13
(commit ab00565's binary and model) and the measured times as they are. The other columns need
no nvcc and are checked by `DocsKernelTables.GpuMdQuotesTodaysKernels`.

    python3 scripts/refresh_kernel_tables.py [--tessel build/tessel] [--jobs 2] [--check]

--check prints the cells that would change and exits 1 if any would, without writing.
"""
import argparse
import concurrent.futures
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_quality  # noqa: E402  (figures: the main kernel's registers and the prediction)

ROOT = kernel_quality.ROOT
DOC = os.path.join(ROOT, "docs", "gpu.md")
ARROW = " → "

# (the text the table follows, the option of its "after" side; "" for section 13, whose
# "before" side is another binary's): as in tests/e2e/test_docs_kernel_tables.cpp.
TABLES = [
    ("## 13. Kernel quality before and after (issue 11)", ""),
    ("The fused kernels, without and with `--retime`", "--retime"),
    ("The fused kernels with and without `--unroll i=2`", "--unroll i=2"),
    ("The fused kernels with and without `--prefetch`", "--prefetch"),
    ("The overlapped kernels without\nand with `--register-values on`", "--register-values on"),
    ("kernel_quality.py --with=--retime --schedules stream,global-stream", "--retime"),
    ('kernel_quality.py --with="--unroll i=2" --schedules global,stream', "--unroll i=2"),
    ("kernel_quality.py --with=--prefetch --schedules stream \\", "--prefetch"),
    ("kernel_quality.py --with=--fold --schedules shared,stream", "--fold"),
    ("`--perspective input`:", "--perspective input"),
    ("`--perspective mixed`:", "--perspective mixed"),
]


def cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def sides(cell):
    """'a → b' -> (a, b); 'v' -> (v, v)."""
    return tuple(cell.split(ARROW, 1)) if ARROW in cell else (cell, cell)


def pair(a, b):
    return a if a == b else f"{a}{ARROW}{b}"


def variant(schedule, option):
    return f"{schedule}[{option}]" if option else schedule


def table_rows(lines, anchor):
    """Indices of the header line and of each row of the table after `anchor`."""
    text = "\n".join(lines)
    at = text.find(anchor)
    if at < 0:
        sys.exit(f"refresh_kernel_tables: '{anchor}' not found in docs/gpu.md")
    first = text[:at].count("\n") + anchor.count("\n")
    head = next(i for i in range(first, len(lines)) if lines[i].startswith("| benchmark |"))
    rows = []
    i = head + 2
    while i < len(lines) and lines[i].startswith("| "):
        rows.append(i)
        i += 1
    return head, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tessel", default=os.path.join(ROOT, "build", "tessel"))
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    lines = open(DOC, encoding="utf-8").read().split("\n")

    work = []  # (line index, header, option)
    for anchor, option in TABLES:
        head, rows = table_rows(lines, anchor)
        header = cells(lines[head])
        # "refused (why)": the option does not apply there (the test checks that it is refused).
        work += [(i, header, option) for i in rows if not cells(lines[i])[2].startswith("refused")]

    def compute(job):
        i, header, option = job
        c = cells(lines[i])
        bench, schedule = c[0].split(" ")[0], c[1]
        after = kernel_quality.figures(args.tessel, bench, variant(schedule, option),
                                       args.machine, True)
        before = (kernel_quality.figures(args.tessel, bench, schedule, args.machine, True)
                  if option else None)
        return after, before

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(compute, work))

    changed = 0
    for (i, header, option), (after, before) in zip(work, results):
        c = cells(lines[i])
        if after is None or (option and before is None):
            sys.exit(f"refresh_kernel_tables: no kernel for '{lines[i]}'")
        new = list(c)
        for col, name in enumerate(header):
            if name == "registers":
                was = str(before["registers"]) if option else sides(c[col])[0]
                new[col] = pair(was, str(after["registers"]))
            elif name.startswith("predicted GStencil/s") and after["predicted"] and (
                    not option or before["predicted"]):
                old = re.sub(r" \(.*\)$", "", c[col])
                was_value = before["predicted"] if option else float(sides(old)[0])
                # As kernel_quality.py prints it: one value where the two are equal unrounded.
                same = (was_value == after["predicted"]) if option else (
                    f"{was_value:.1f}" == f"{after['predicted']:.1f}")
                was = f"{was_value:.1f}"
                new[col] = was if same else f"{was}{ARROW}{after['predicted']:.1f}"
                new[col] += f" ({after['predicted'] / was_value:.2f}x)"
        if new != c:
            changed += 1
            print(f"{c[0]} {c[1]}{' with ' + option if option else ''}: "
                  + "; ".join(f"{header[k]} '{c[k]}' -> '{new[k]}'"
                              for k in range(len(c)) if c[k] != new[k]))
            lines[i] = "| " + " | ".join(new) + " |"
    print(f"{changed} of {len(work)} rows {'would change' if args.check else 'changed'}")
    if args.check:
        sys.exit(1 if changed else 0)
    open(DOC, "w", encoding="utf-8").write("\n".join(lines))


if __name__ == "__main__":
    main()
