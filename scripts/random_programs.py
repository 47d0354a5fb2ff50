#!/usr/bin/env python3
"""Random valid Tessel programs for differential testing.

Two subcommands:

  generate  writes N random programs DIR/prog_XXXX.sten, deterministic for a seed. Each candidate
            is checked with `tessel check`; a rejected candidate is replaced by the next one drawn
            for the same slot, so every program written is accepted (and distinct from the
            others). The acceptance rate is printed.

  run       generates the programs of a seed into a temporary directory and runs each with
            `tessel run PROG --verify --backend opencl EXTRA...`, optionally under Oclgrind
            (--oclgrind: out-of-bounds accesses, data races, uninitialised values). Each program
            is classified as passed, refused (exit 1: tessel rejected the program, schedule or
            options), wrong (exit 2: verification failed), crash (exit 3, a signal, or an exit 0
            without a verification verdict), timeout, racy/oob (Oclgrind reported an error) or
            inconclusive (Oclgrind itself failed, so the run proves nothing). Failing programs
            are kept with a report. The exit status is 1 if any program is wrong, crashed, timed
            out or has an Oclgrind report (and with --fail-on-refusal, if any was refused).
            Oclgrind writes its reports to a log of its own (--log), so they are never confused
            with tessel's output. Where its uninitialised-value plugin aborts on an instruction
            it does not support, the program is rerun with the kernels built at -O0. That
            plugin's reports are weak evidence (see the note `run` prints);
            --no-uninitialized checks out-of-bounds accesses and data races alone.

The programs are small (extents of 1 to 257 points, most 2-D and 3-D sizes 2..37, never a
multiple of a block) so that they run quickly, also under Oclgrind. What the generator covers:
1-D, 2-D and 3-D programs; 1 to 3 grid arrays of double or float (a float program is float
throughout) declared with extents, `lo:hi` and `lo..hi` ranges (some larger than the grid); 1-D
and 2-D coefficient arrays (in `copyin` or `constant`); global scalars, used directly or passed
as scalar arguments; 1 or 2 stencils with private or shadowing formal names, `inout:` marks
(including scratch arrays); initialised locals, local arrays written and then read at offsets,
local scalars; 1 to 6 statements per stencil with reads at offsets up to +-3 (including `c+i`
and fixed planes), shifted left-hand sides, compound assignments, statement domains that reach
past the grid, `select`, `min`, `max`, `fabs`, `sqrt`; calls with and without call domains,
ping-pong pairs, `iterate` loops (bare, nested); `#pragma` hints and placement hints; `copyin`,
`allocin`, `constant`, no data list, `copyout` (or none); comments.
What it does not generate: int and bool data, integer division, `^`, `pow` and the other
transcendental functions (their GPU built-ins may differ from the host's libm by a few ulps,
which would be reported as wrong results where nothing is wrong), `time_tile` hints (the
driver's flags choose time tiling), and global arrays written directly by a body.

Only the Python standard library is used.
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_KEEP = os.path.join(ROOT, "bench-results", "random-failures")
# A slot gets this many candidates before the generator gives up on it.
MAX_ATTEMPTS = 50

# --------------------------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------------------------

ITERATORS = {1: ["i"], 2: ["j", "i"], 3: ["k", "j", "i"]}
ALT_ITERATORS = {1: ["x"], 2: ["y", "x"], 3: ["z", "y", "x"]}
# The i-th parameter is the extent of the i-th iterator; T (time steps) comes after them.
EXTENT_PARAMS = {1: ["N"], 2: ["M", "N"], 3: ["L", "M", "N"]}
# (extent, weight): mostly sizes that are no multiple of a block, some smaller than a halo.
EXTENTS = {
    1: [(1, 1), (2, 1), (3, 2), (5, 3), (17, 4), (37, 4), (63, 3), (100, 3), (129, 2), (257, 2)],
    2: [(2, 1), (3, 2), (4, 2), (5, 3), (7, 4), (9, 4), (11, 4), (13, 4), (17, 3), (19, 2),
        (23, 2), (31, 1), (37, 1)],
    3: [(2, 1), (3, 2), (4, 3), (5, 4), (6, 3), (7, 4), (9, 3), (11, 2), (13, 1)],
}
ARRAY_NAMES = ["u", "v", "w", "a", "b", "p", "q", "f", "g", "h", "phi", "psi", "rho", "out",
               "in0", "src"]
FORMAL_NAMES = ["A", "B", "C"]
COEF_NAMES = ["cx", "cy", "wt", "mu"]
SCALAR_NAMES = ["alpha", "beta", "dt", "h0", "s0"]
STENCIL_NAMES = ["s", "step", "smooth", "sweep", "kern", "upd"]
LOCAL_ARRAY_NAMES = ["t0", "t1", "lap", "flx"]
# Clauses a `#pragma` may carry besides the family and the block; `time_tile` is left out on
# purpose (see the module docstring).
PRAGMA_EXTRAS = ["prefetch", "retime", "fold", "occupancy 0.5", "occupancy 1",
                 "perspective output", "perspective mixed", "no_shmem"]


def weighted(rng, pairs):
    """Picks a value from [(value, weight), ...]."""
    total = sum(w for _, w in pairs)
    x = rng.uniform(0, total)
    for value, w in pairs:
        x -= w
        if x <= 0:
            return value
    return pairs[-1][0]


class Program:
    """The global declarations the stencils draw from."""

    def __init__(self):
        self.dims = 0
        self.iters = []          # slowest first
        self.params = []         # extent parameter names, one per iterator
        self.extent = {}         # parameter name -> value
        self.ctype = "double"
        self.arrays = []         # grid arrays (one dimension per iterator)
        self.coefs = {}          # coefficient array name -> list of iterators it follows
        self.scalars = []


class Body:
    """What a stencil body may use while its statements are generated."""

    def __init__(self, prog, formals, out_formals):
        self.prog = prog
        self.formals = formals           # array formals, in order
        self.out_formals = out_formals   # the formals some statement writes
        self.values = []                 # scalar values usable in expressions
        self.locals = []                 # local arrays declared
        self.written = set()             # arrays written by an earlier statement
        self.scalar_reads = {}           # local scalar -> {(array, offsets)} it read, once assigned
        self.local_scalar = None         # name of the declared local scalar, if any


class Generator:
    """Draws one random program from an rng; `program()` returns its text."""

    def __init__(self, rng):
        self.rng = rng

    # -- small helpers --------------------------------------------------------------------------

    def chance(self, p):
        return self.rng.random() < p

    def coefficient(self):
        """A literal coefficient; always positive in float programs, so that no cancellation
        magnifies the difference between float and double evaluation (language.md 9.9)."""
        value = self.rng.choice([0.05, 0.1, 0.125, 0.2, 0.25, 0.3, 0.375, 0.4, 0.5, 0.75])
        text = self.rng.choice(["%g", "%g", "%g", "%.3f"]) % value
        if text.startswith("0.") and self.chance(0.15):
            text = text[1:]                       # `.5`
        if value in (0.1, 0.2, 0.25, 0.5) and self.chance(0.1):
            text = {0.1: "1e-1", 0.2: "2e-1", 0.25: "2.5e-1", 0.5: "5.0e-1"}[value]
        if self.ctype == "float" and self.float_suffix:
            text += "f"
        return text

    def literal(self, text):
        """A literal written in the program's style (1.0 -> 1.0f in suffixed float programs)."""
        return text + ("f" if self.ctype == "float" and self.float_suffix else "")

    def offset(self, maxabs=3):
        o = weighted(self.rng, [(0, 50), (1, 15), (-1, 15), (2, 6), (-2, 6), (3, 4), (-3, 4)])
        return max(-maxabs, min(maxabs, o))

    def subscript(self, it, off):
        if off == 0:
            return it
        if off > 0 and self.chance(0.1):
            return "%d+%s" % (off, it)
        return "%s%+d" % (it, off)

    def access(self, name, iters, offs):
        subs = [self.subscript(it, o) for it, o in zip(iters, offs)]
        return self.join_subscripts(name, subs)

    def join_subscripts(self, name, subs):
        style = weighted(self.rng, [("brackets", 75), ("commas", 18), ("mixed", 7)])
        if style == "commas" or len(subs) == 1:
            return "%s[%s]" % (name, ", ".join(subs)) if style == "commas" else "%s[%s]" % (
                name, subs[0])
        if style == "mixed":
            return "%s[%s][%s]" % (name, subs[0], ", ".join(subs[1:]))
        return name + "".join("[%s]" % s for s in subs)

    def dim_decl(self, p, local=False):
        """One dimension of a declaration whose extent is at least the parameter p's value."""
        choices = [(p, 35), ("0..%s" % p, 20), ("0:%s" % p, 20), ("1:%s+1" % p, 8),
                   ("2..%s+2" % p, 5)]
        if not local:
            choices += [("%s+2" % p, 6), ("0:%s+1" % p, 6)]
        return weighted(self.rng, choices)

    def decl_dims(self, dims):
        if self.chance(0.7):
            return "[%s]" % ", ".join(dims)
        return "".join("[%s]" % d for d in dims)

    def range_text(self, lo, hi):
        sep = ".." if self.chance(0.3) else ":"
        return "%s%s%s" % (lo, sep, hi)

    def domain(self, ranges):
        """A domain in one of the accepted spellings; ranges is [(lo, hi), ...]."""
        parts = [self.range_text(lo, hi) for lo, hi in ranges]
        if self.chance(0.75):
            return "[%s]" % ", ".join(parts)
        return "".join("[%s]" % p for p in parts)

    # -- the program ------------------------------------------------------------------------------

    def program(self):
        rng = self.rng
        prog = Program()
        self.prog = prog
        prog.dims = weighted(rng, [(1, 15), (2, 45), (3, 40)])
        d = prog.dims
        prog.iters = list(ALT_ITERATORS[d] if self.chance(0.1) else ITERATORS[d])
        prog.params = list(EXTENT_PARAMS[d])
        for p in prog.params:
            prog.extent[p] = weighted(rng, EXTENTS[d])
        self.ctype = prog.ctype = "float" if self.chance(0.2) else "double"
        self.float_suffix = self.chance(0.5)
        steps = rng.choice([1, 2, 2, 3])

        n_arrays = weighted(rng, [(1, 20), (2, 50), (3, 30)])
        names = rng.sample(ARRAY_NAMES, n_arrays)
        prog.arrays = names
        if d >= 2 and self.chance(0.35):
            name = rng.choice(COEF_NAMES)
            if d == 3 and self.chance(0.4):
                prog.coefs[name] = prog.iters[1:]                 # e.g. w[M, N] in 3-D
            else:
                prog.coefs[name] = [rng.choice(prog.iters)]       # e.g. cx[N] indexed cx[i-1]
        prog.scalars = rng.sample(SCALAR_NAMES, weighted(rng, [(0, 45), (1, 35), (2, 20)]))

        lines = []
        if self.chance(0.5):
            lines.append("// %d-D random program, %s" % (d, prog.ctype))
        lines.append(self.parameter_line(steps))
        lines.append("iterator %s;" % ", ".join(prog.iters))
        decls = []
        for a in names:
            decls.append(a + self.decl_dims([self.dim_decl(p) for p in prog.params]))
        if self.chance(0.5):
            lines.append("%s %s;" % (prog.ctype, ", ".join(decls)))
        else:
            lines.extend("%s %s;" % (prog.ctype, x) for x in decls)
        for c, its in prog.coefs.items():
            dims = [self.dim_decl(prog.params[prog.iters.index(it)]) for it in its]
            lines.append("%s %s%s;" % (prog.ctype, c, self.decl_dims(dims)))
        if prog.scalars:
            lines.append("%s %s;" % (prog.ctype, ", ".join(prog.scalars)))

        # Stencils and their calls.
        n_stencils = weighted(rng, [(1, 75), (2, 25)])
        stencil_names = rng.sample(STENCIL_NAMES, n_stencils)
        stencils = [self.stencil(name) for name in stencil_names]
        call_lines = self.calls(stencils)      # binds the formals: which globals are written
        written_globals = set()
        for st in stencils:
            written_globals.update(st["written_globals"])

        # Data lists: most arrays start with values, some start at zero.
        copyin = []
        allocin = []
        for a in names:
            r = rng.random()
            if r < 0.8 or a not in written_globals:
                copyin.append(a)
            elif r < 0.9:
                allocin.append(a)
            # else: in no list, starts at zero
        constant = []
        for c in prog.coefs:
            (constant if self.chance(0.3) else copyin).append(c)
        if prog.scalars and self.chance(0.4):
            copyin += prog.scalars
        data = []
        if copyin:
            data.append("copyin %s;" % ", ".join(copyin))
        if allocin:
            data.append("allocin %s;" % ", ".join(allocin))
        if constant:
            data.append("constant %s;" % ", ".join(constant))
        lines.extend(data)

        r = rng.random()
        if r < 0.6:
            copyout = list(names)
        elif r < 0.85:
            copyout = [a for a in names if a in written_globals] or list(names)
        else:
            copyout = []          # no copyout: every written array is a result
        copyout_early = copyout and self.chance(0.1)
        if copyout_early:
            lines.append("copyout %s;" % ", ".join(copyout))

        for st in stencils:
            lines.append("")
            lines.extend(st["text"])
        lines.append("")
        lines.extend(call_lines)
        if copyout and not copyout_early:
            lines.append("copyout %s;" % ", ".join(copyout))
        return "\n".join(lines) + "\n"

    def parameter_line(self, steps):
        prog = self.prog
        items = []
        for n, p in enumerate(prog.params):
            value = prog.extent[p]
            text = "%s=%d" % (p, value)
            if n > 0 and self.chance(0.15):
                prev = prog.params[n - 1]
                diff = value - prog.extent[prev]
                text = "%s=%s%+d" % (p, prev, diff) if diff else "%s=%s" % (p, prev)
            elif value % 2 == 1 and value > 2 and self.chance(0.08):
                text = "%s=2*%d+1" % (p, value // 2)
            items.append(text)
        items.append("T=%d" % steps)
        return "parameter %s;" % ", ".join(items)

    # -- one stencil ------------------------------------------------------------------------------

    def stencil(self, name):
        rng = self.rng
        prog = self.prog
        k = min(len(prog.arrays), weighted(rng, [(1, 15), (2, 55), (3, 30)]))
        if self.chance(0.5):
            formals = rng.sample(prog.arrays, k)          # global names, maybe bound elsewhere
        else:
            formals = FORMAL_NAMES[:k]
        n_out = 1 if k == 1 or self.chance(0.75) else 2
        out_formals = formals[:n_out]
        body = Body(prog, formals, out_formals)

        # Scalars: some passed as arguments (formal name = global name, or a private one).
        scalar_formals = []
        for s in prog.scalars:
            if self.chance(0.4):
                fname = s if self.chance(0.5) else "k_" + s
                scalar_formals.append((fname, s))
                body.values.append(fname)
            else:
                body.values.append(s)

        text = []
        # #pragma hints
        if self.chance(0.4):
            text.append(self.pragma())

        args = []
        inout = set()
        r = rng.random()
        if r < 0.12:
            inout = set(out_formals)                       # every written formal marked
        elif r < 0.17 and len(out_formals) == 2:
            inout = {out_formals[0]}                       # the other one is scratch
        for f in formals:
            args.append(("inout:" if f in inout else "") + f)
        args += [f for f, _ in scalar_formals]
        # Formal order: arrays as drawn; the scalars after them or mixed in.
        if scalar_formals and self.chance(0.3):
            rng.shuffle(args)
        keyword = "function" if self.chance(0.05) else "stencil"
        text.append("%s %s (%s) {" % (keyword, name, ", ".join(args)))

        inner = []
        # Initialised locals: computed once per call.
        if self.chance(0.3):
            cname = "c0"
            terms = [self.coefficient()]
            if body.values and self.chance(0.7):
                terms.append("%s*%s" % (self.coefficient(), rng.choice(body.values)))
            if self.chance(0.2):
                terms.append("%s/(%s+1)" % (self.literal("1.0"), rng.choice(prog.params)))
            inner.append("%s %s = %s;" % (prog.ctype, cname, " + ".join(terms)))
            body.values.append(cname)

        n_locals = weighted(rng, [(0, 35), (1, 45), (2, 20)])
        local_names = LOCAL_ARRAY_NAMES[:n_locals]
        declare_locals_late = self.chance(0.15)
        if local_names and not declare_locals_late:
            inner.append(self.local_decl(local_names))
        if self.chance(0.2):
            body.local_scalar = "r"
            inner.append("%s r;" % prog.ctype)
        if self.chance(0.15):
            inner.append(self.placement(formals + local_names))

        statements = []
        if local_names and declare_locals_late:
            statements.append(self.local_decl(local_names))
        # Producers: each local array written, reading the formals and earlier locals.
        for t in local_names:
            statements.append(self.statement(body, t))
            body.locals.append(t)
            if self.chance(0.2):
                statements.append(self.statement(body, t, compound=True))
        # A local scalar, assigned before the statements that may use it.
        if body.local_scalar:
            statements.append(self.scalar_statement(body))
        # Consumers: each written formal, then maybe a compound update.
        for o in out_formals:
            statements.append(self.statement(body, o))
        extra = weighted(rng, [(0, 45), (1, 40), (2, 15)])
        for _ in range(extra):
            statements.append(self.statement(body, rng.choice(out_formals), compound=True))
        statements = statements[:6]        # keep bodies short
        inner.extend(statements)

        text.extend("  " + s for s in inner)
        text.append("}")

        return {"name": name, "formals": formals, "out_formals": out_formals,
                "inout": inout, "scalar_formals": scalar_formals, "args": args,
                "text": text, "written_globals": set()}

    def local_decl(self, local_names):
        prog = self.prog
        decls = [t + self.decl_dims([self.dim_decl(p, local=True) for p in prog.params])
                 for t in local_names]
        return "%s %s;" % (prog.ctype, ", ".join(decls))

    def placement(self, names):
        rng = self.rng
        kind = rng.choice(["shmem", "no-shmem", "gmem", "#assign"])
        chosen = rng.sample(names, min(len(names), rng.choice([1, 1, 2])))
        if kind == "#assign":
            return "#assign %s (%s)" % (rng.choice(["shmem", "gmem", "no_shmem"]),
                                        ", ".join(chosen))
        return "%s %s;" % (kind, ", ".join(chosen))

    def pragma(self):
        rng = self.rng
        prog = self.prog
        d = prog.dims
        clauses = []
        if d >= 2 and self.chance(0.6):
            it = rng.choice(prog.iters[:-1])
            clauses.append(("full_stream %s" if self.chance(0.15) else "stream %s") % it)
        # Blocks: at most d-1 extents above 1, so that every family (a stream grid has one
        # dimension fewer than the program) can use them; small enough for overlapped tiles.
        if self.chance(0.7):
            if d == 1:
                block = rng.choice(["64", "128", "256", "32"])
            elif d == 2:
                block = rng.choice(["32", "64", "128", "16"])
            else:
                block = rng.choice(["32,8", "32,4", "16,16", "64,2", "32"])
            clauses.append("block (%s)" % block)
        if self.chance(0.2):
            clauses.append("unroll %s=2" % rng.choice(prog.iters))
        if self.chance(0.3):
            clauses.append(rng.choice(PRAGMA_EXTRAS))
        if not clauses:
            clauses.append("prefetch")
        return "#pragma " + " ".join(clauses)

    # -- statements -------------------------------------------------------------------------------

    def lhs_offsets(self):
        offs = [0] * self.prog.dims
        if self.chance(0.1):
            offs[self.rng.randrange(self.prog.dims)] = self.rng.choice([-1, 1])
        return offs

    def statement(self, body, target, compound=False):
        """`[domain :] target[...] op expr;` that tessel accepts: the target is read only at the
        offset it is written (language.md 5.8), local arrays only after they are written."""
        rng = self.rng
        prog = self.prog
        offs = self.lhs_offsets()
        if compound and target not in body.written and target in LOCAL_ARRAY_NAMES:
            compound = False
        lhs = self.access(target, prog.iters, offs)
        if compound:
            op = rng.choice(["+=", "-=", "*=", "*=", "/="])
            if self.ctype == "float" and op == "-=":
                op = "+="          # no cancellation in float programs
        else:
            op = "="
        if op in ("*=", "/="):
            # a factor near 1, or a positive divisor, so values stay of order 1
            inner = self.expr(body, target, offs, terms=rng.choice([1, 1, 2]), positive=True)
            if op == "*=":
                expr = "(%s + %s)" % (self.literal("0.5"), inner)
            else:
                expr = "(%s + fabs(%s))" % (self.literal("1.0"), inner)
        else:
            expr = self.expr(body, target, offs, terms=rng.choice([1, 2, 2, 3, 4]))
        text = "%s %s %s;" % (lhs, op, expr)
        if self.chance(0.3):
            text = self.statement_domain() + " : " + text
        body.written.add(target)
        return text

    def statement_domain(self):
        """One inclusive range per iterator; it may reach past the grid (it only intersects the
        statement's region, language.md 5.6)."""
        ranges = []
        for p in self.prog.params:
            lo = weighted(self.rng, [("0", 3), ("1", 3), ("-1", 2), ("2", 1), ("-3", 1),
                                     ("3", 1)])
            hi = weighted(self.rng, [("%s-1" % p, 3), ("%s-2" % p, 3), (p, 2),
                                     ("%s+1" % p, 1), ("%s-3" % p, 1), ("%s/2" % p, 1)])
            ranges.append((lo, hi))
        return self.domain(ranges)

    def scalar_statement(self, body):
        reads = set()
        expr = self.expr(body, None, None, terms=self.rng.choice([1, 2, 3]), reads=reads)
        body.scalar_reads[body.local_scalar] = reads
        return "%s = %s;" % (body.local_scalar, expr)

    def expr(self, body, target, target_offs, terms, positive=False, reads=None):
        """A sum of `coefficient * operand` terms (a few through functions)."""
        if reads is None:
            reads = set()
        parts = []
        for n in range(terms):
            operand = self.operand(body, target, target_offs, reads)
            r = self.rng.random()
            if r < 0.08:
                other = self.operand(body, target, target_offs, reads)
                operand = "%s(%s, %s)" % (self.rng.choice(["min", "max"]), operand, other)
            elif r < 0.12:
                operand = "fabs(%s)" % operand
            elif r < 0.15:
                operand = "sqrt(%s + fabs(%s))" % (self.literal("0.5"), operand)
            elif r < 0.20:
                other = self.operand(body, target, target_offs, reads)
                it = self.rng.choice(self.prog.iters)
                p = self.prog.params[self.prog.iters.index(it)]
                cond = self.rng.choice(["%s > 1" % it, "%s < %s/2" % (it, p),
                                        "%s == 0" % it, "%s >= %s-2" % (it, p)])
                operand = "select(%s, %s, %s)" % (cond, operand, other)
            elif r < 0.25 and not positive:
                other = self.operand(body, target, target_offs, reads)
                operand = "%s*%s" % (operand, other)
            elif r < 0.28 and not positive:
                other = self.operand(body, target, target_offs, reads)
                operand = "%s/(%s + fabs(%s))" % (operand, self.literal("2.0"), other)
            elif r < 0.30 and self.ctype == "double" and not positive:
                operand = "%s*%s" % (self.rng.choice(["0.01", "0.001"]),
                                     self.rng.choice(self.prog.iters))
            coef = self.coefficient()
            term = operand if self.chance(0.1) else "%s*%s" % (coef, operand)
            negative = self.ctype == "double" and not positive and self.chance(0.25)
            if n == 0:
                parts.append(("-" if negative else "") + term)
            else:
                parts.append(("- " if negative else "+ ") + term)
        return " ".join(parts)

    def operand(self, body, target, target_offs, reads):
        """An array read, a scalar value or a local scalar, allowed in a statement writing
        target at target_offs (target is None for a local scalar assignment)."""
        rng = self.rng
        prog = self.prog
        kinds = [("array", 80)]
        if body.values:
            kinds.append(("value", 8))
        if prog.coefs:
            kinds.append(("coef", 8))
        ls = body.local_scalar
        if ls and ls in body.scalar_reads and target is not None:
            ok = all(a != target or list(o) == list(target_offs)
                     for a, o in body.scalar_reads[ls])
            if ok:
                kinds.append(("scalar", 12))
        kind = weighted(rng, kinds)
        if kind == "value":
            return rng.choice(body.values)
        if kind == "coef":
            c = rng.choice(list(prog.coefs))
            its = prog.coefs[c]
            return self.access(c, its, [self.offset(2) for _ in its])
        if kind == "scalar":
            reads.update(body.scalar_reads[ls])
            return ls
        # An array: a formal, or a local array already written.
        candidates = list(body.formals) + [t for t in body.locals if t in body.written]
        if target in LOCAL_ARRAY_NAMES and target in body.written and target not in candidates:
            candidates.append(target)
        a = rng.choice(candidates)
        if a == target:
            offs = list(target_offs)            # only where it is written (5.8)
        else:
            offs = [self.offset() for _ in prog.iters]
        if a != target and a in body.formals and a not in body.written and self.chance(0.04):
            # a fixed plane (9.6) of an array the body has not written: index 0 always exists
            dim = rng.randrange(prog.dims)
            subs = [self.subscript(it, o) for it, o in zip(prog.iters, offs)]
            subs[dim] = "0"
            offs[dim] = "plane 0"       # never equal to an offset: a local scalar holding it
            reads.add((a, tuple(offs)))  # cannot be used where a is written (5.8, 9.6)
            return self.join_subscripts(a, subs)
        reads.add((a, tuple(offs)))
        return self.access(a, prog.iters, offs)

    # -- calls ------------------------------------------------------------------------------------

    def calls(self, stencils):
        """The call section: single calls, ping-pong pairs, iterate loops, call domains."""
        rng = self.rng
        prog = self.prog
        sequence = []          # list of call texts, in one pass
        ping_pong = True
        for st in stencils:
            arrays = rng.sample(prog.arrays, len(st["formals"]))
            first = dict(zip(st["formals"], arrays))
            second = dict(first)
            outs = st["out_formals"]
            ins = [f for f in st["formals"] if f not in outs]
            if ins:
                o, i = outs[0], rng.choice(ins)
                second[o], second[i] = first[i], first[o]
            else:
                ping_pong = False
            st["bindings"] = (first, second)
            for f in outs:
                st["written_globals"].update({first[f], second[f]})
        mode = weighted(rng, [("single", 30), ("pair", 15), ("iterate", 45), ("nested", 5),
                              ("domain", 15)])
        lines = []
        if mode == "single":
            for st in stencils:
                lines.append(self.call(st, 0))
        elif mode == "domain":
            for st in stencils:
                lines.append(self.call_domain() + " : " + self.call(st, 0))
                if self.chance(0.4):
                    lines.append(self.call(st, 1 if ping_pong else 0))
        elif mode == "pair":
            for st in stencils:
                lines.append(self.call(st, 0))
                lines.append(self.call(st, 1))
        else:
            body = []
            for st in stencils:
                body.append(self.call(st, 0))
            if ping_pong and self.chance(0.8):
                for st in stencils:
                    body.append(self.call(st, 1))
            if self.chance(0.1):
                body[0] = self.call_domain() + " : " + body[0]
            bound = weighted(rng, [("1:T", 6), ("0:T-1", 2), ("(1:T)", 1), ("[1:T]", 1),
                                   ("1:2", 1), ("T", 1)])
            if self.chance(0.5):
                loop = ["iterate %s { %s }" % (bound, " ".join(body))]
            else:
                loop = ["iterate %s {" % bound] + ["  " + b for b in body] + ["}"]
            if mode == "nested":
                loop = ["iterate 1:2 {"] + ["  " + x for x in loop] + ["}"]
            lines.extend(loop)
        return lines

    def call(self, st, which):
        binding = st["bindings"][which]
        actual = []
        for a in st["args"]:
            f = a[len("inout:"):] if a.startswith("inout:") else a
            if f in binding:
                actual.append(binding[f])
            else:
                actual.append(dict(st["scalar_formals"])[f])
        return "%s (%s);" % (st["name"], ", ".join(actual))

    def call_domain(self):
        """A call domain inside the grid (lo <= hi at the defaults)."""
        prog = self.prog
        ranges = []
        for p in prog.params:
            n = prog.extent[p]
            lo = "1" if n >= 3 and self.chance(0.5) else "0"
            hi = "%s-2" % p if n >= 3 and self.chance(0.5) else "%s-1" % p
            if n >= 6 and self.chance(0.15):
                hi = "%s/2" % p
            ranges.append((lo, hi))
        return self.domain(ranges)


def candidate(seed, slot, attempt):
    """The text of candidate `attempt` for program `slot` of `seed`: depends on nothing else."""
    rng = random.Random("tessel-random-programs:%s:%d:%d" % (seed, slot, attempt))
    text = Generator(rng).program()
    header = "// scripts/random_programs.py: seed %s, program %d, candidate %d\n" % (
        seed, slot, attempt)
    return header + text


def body_hash(text):
    """A hash of the program without its header line, to detect duplicates."""
    return hashlib.sha256(text.split("\n", 1)[1].encode()).hexdigest()


# --------------------------------------------------------------------------------------------
# tessel
# --------------------------------------------------------------------------------------------

def find_tessel(path):
    """The tessel binary: --tessel, else $TESSEL, else build/tessel, else tessel on the PATH."""
    for p in (path, os.environ.get("TESSEL"), os.path.join(ROOT, "build", "tessel")):
        if p:
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return os.path.abspath(p)
            if p == path:
                sys.exit("random_programs.py: error: --tessel %s is not an executable file" % p)
    p = shutil.which("tessel")
    if p:
        return p
    sys.exit("random_programs.py: error: no tessel binary (looked at $TESSEL, %s and the PATH); "
             "pass --tessel PATH" % os.path.join(ROOT, "build", "tessel"))


def first_error(text):
    """The first line of tessel's output that says 'error', else its first line."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error" in l:
            return l
    return lines[0] if lines else "(no output)"


def check_program(tessel, text, workdir):
    """Runs `tessel check` on text; returns (accepted, first error line)."""
    fd, path = tempfile.mkstemp(suffix=".sten", dir=workdir)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    try:
        p = subprocess.run([tessel, "check", path], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return False, "tessel check timed out"
    finally:
        os.unlink(path)
    if p.returncode == 0:
        return True, ""
    if p.returncode != 1:
        # Anything but a diagnosed error is a bug in tessel: stop, do not hide it as a rejection.
        raise RuntimeError("tessel check exited with status %d on a generated program:\n%s\n%s"
                           % (p.returncode, text, (p.stderr or p.stdout)[-2000:]))
    return False, first_error(p.stderr).replace(path, "PROG")


def generate(seed, count, outdir, tessel, jobs, rejected_dir=None):
    """Writes count accepted, distinct programs to outdir. Returns the statistics."""
    os.makedirs(outdir, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="tessel-randcheck-")
    stats = {"candidates": 0, "rejected": 0, "duplicates": 0, "reasons": {}}

    def fill(slot, start):
        """The first accepted candidate of slot from attempt start on: (attempt, text, rejects)."""
        rejects = []
        for attempt in range(start, start + MAX_ATTEMPTS):
            text = candidate(seed, slot, attempt)
            if tessel is None:
                return attempt, text, rejects
            ok, why = check_program(tessel, text, workdir)
            if ok:
                return attempt, text, rejects
            rejects.append((attempt, text, why))
        raise RuntimeError("program %d of seed %s: %d candidates in a row rejected by tessel "
                           "check; the last said: %s" % (slot, seed, MAX_ATTEMPTS, why))

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(lambda s: fill(s, 0), range(count)))
        seen = set()
        for slot in range(count):
            attempt, text, rejects = results[slot]
            while True:
                stats["candidates"] += len(rejects) + 1
                stats["rejected"] += len(rejects)
                for a, t, why in rejects:
                    key = re.sub(r"^PROG:\d+:\d+: ", "", why)
                    key = re.sub(r"'[^']*'", "'...'", key)
                    stats["reasons"][key] = stats["reasons"].get(key, 0) + 1
                    if rejected_dir:
                        os.makedirs(rejected_dir, exist_ok=True)
                        with open(os.path.join(rejected_dir, "prog_%04d_%d.sten" % (slot, a)),
                                  "w") as f:
                            f.write(t + "// tessel check: " + why + "\n")
                h = body_hash(text)
                if h not in seen:
                    seen.add(h)
                    break
                stats["duplicates"] += 1
                attempt, text, rejects = fill(slot, attempt + 1)
            with open(os.path.join(outdir, "prog_%04d.sten" % slot), "w") as f:
                f.write(text)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return stats


def print_generate_stats(stats, count, outdir, checked, out=sys.stdout):
    print("wrote %d programs to %s" % (count, outdir), file=out)
    if not checked:
        print("not checked with tessel (--no-check)", file=out)
        return
    c, r = stats["candidates"], stats["rejected"]
    print("tessel check accepted %d of %d candidates (%.1f%%); %d duplicates redrawn"
          % (c - r, c, 100.0 * (c - r) / c if c else 0.0, stats["duplicates"]), file=out)
    for why, n in sorted(stats["reasons"].items(), key=lambda x: -x[1]):
        print("  rejected %3d x  %s" % (n, why), file=out)


# --------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------

# Oclgrind's reports: a block per error, whose first line says what it is. With --log they go
# to their own file, so tessel's output (whose diagnostics start with 'tessel:' or 'FILE:L:C:')
# is never mistaken for one; the same patterns are looked for on stderr as a fallback.
OCLGRIND_HEADLINE = re.compile(
    r"^(Invalid (read|write)|Index \(\d+\) exceeds|(Read-write|Write-write) data race|"
    r"Uninitialized|Uninitialised|OCLGRIND FATAL ERROR|Oclgrind - OpenCL runtime error|"
    r"Work-group divergence|Work-item divergence|Unaligned address|Invalid|.*data race)")
# Oclgrind's uninitialised-value plugin aborts on LLVM instructions it does not know (e.g.
# 'freeze', which clang emits at -O2 for some integer code). Such a run proves nothing; it is
# retried once with the kernels built at -O0, where the instruction does not appear.
UNSUPPORTED = re.compile(r"Unsupported instruction")
# Oclgrind stops after --max-errors reports (1000 by default) and says so in this line.
SUPPRESSED = re.compile(r"^Oclgrind: \d+ errors generated")


def oclgrind_blocks(text):
    """Splits an Oclgrind log into report blocks: lists of lines, the first one the headline."""
    blocks, cur = [], []
    for line in text.splitlines():
        if not line.strip():
            if cur:
                blocks.append(cur)
                cur = []
        elif not line[0].isspace() and cur and OCLGRIND_HEADLINE.match(line) \
                and not cur[0].startswith("OCLGRIND FATAL ERROR"):
            blocks.append(cur)
            cur = [line]
        else:
            cur.append(line)
    if cur:
        blocks.append(cur)
    return blocks


# What an Oclgrind report is about, from its headline; the most serious kind comes first.
REPORT_KINDS = [("oob", re.compile(r"^(Invalid (read|write)|Index \(\d+\) exceeds)")),
                ("race", re.compile(r"data race", re.IGNORECASE)),
                ("other", None),
                ("uninit", re.compile(r"uninitiali[sz]ed", re.IGNORECASE))]


def report_kind(headline):
    for kind, pattern in REPORT_KINDS:
        if pattern is not None and pattern.search(headline):
            return kind
    return "other"


def summarise_oclgrind(log_text, stderr_text):
    """(kind, reason, report kinds) for an Oclgrind run: kind is None (no report), 'report' or
    'fatal' (Oclgrind itself failed and reported nothing else)."""
    text = log_text
    if not text.strip():
        # Fallback when nothing reached the log: Oclgrind's headlines on stderr.
        lines = stderr_text.splitlines()
        starts = [n for n, l in enumerate(lines) if OCLGRIND_HEADLINE.match(l)
                  and not l.startswith("tessel")]
        if not starts:
            return None, "", {}
        text = "\n".join(lines[starts[0]:])
    blocks = oclgrind_blocks(text)
    # "Oclgrind: 1000 errors generated - suppressing further errors" is a note, not a report
    suppressed = [b for b in blocks if SUPPRESSED.match(b[0])]
    blocks = [b for b in blocks if not SUPPRESSED.match(b[0])]
    fatal = [b for b in blocks if b[0].startswith("OCLGRIND FATAL ERROR")]
    reports = [b for b in blocks if not b[0].startswith("OCLGRIND FATAL ERROR")]
    if not reports:
        if fatal:
            detail = fatal[0][1].strip() if len(fatal[0]) > 1 else ""
            return "fatal", "Oclgrind failed: %s %s (%d times)" % (fatal[0][0], detail,
                                                                      len(fatal)), {}
        return None, "", {}
    kinds = {}
    for b in reports:
        k = report_kind(b[0])
        kinds[k] = kinds.get(k, 0) + 1
    order = [k for k, _ in REPORT_KINDS]
    first = min(reports, key=lambda b: order.index(report_kind(b[0])))
    where = ""
    for n, line in enumerate(first):
        m = re.search(r"At line (\d+).* of (\S+):", line)
        if m:
            src = first[n + 1].strip() if n + 1 < len(first) else ""
            where = " at %s:%s: %s" % (m.group(2).rstrip(":"), m.group(1), src)
            break
    kernel = ""
    for line in first:
        if line.strip().startswith("Kernel:"):
            kernel = " in " + line.split(":", 1)[1].strip()
            break
    breakdown = ", ".join("%d %s" % (kinds[k], k) for k in order if k in kinds)
    reason = "%s%s%s (%d Oclgrind report%s: %s%s)" % (
        first[0].strip(), kernel, where, len(reports), "" if len(reports) == 1 else "s",
        breakdown, "; Oclgrind stopped reporting there, later errors are not known"
        if suppressed else "")
    return "report", reason, kinds


def run_command(cmd, timeout):
    """Runs cmd in its own process group; returns (exit status or None on a timeout, stdout,
    stderr). On a timeout the whole group (tessel, its compiler, ...) is killed."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors="replace", start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        return None, out, err


def run_one(prog, tessel, extra, use_oclgrind, oclgrind, timeout, workdir, uninit=True):
    """Runs one program; returns a dict with its class and the evidence."""
    cmd = [tessel, "run", prog, "--verify"]
    if "--backend" not in extra and not any(a.startswith("--backend=") for a in extra):
        cmd += ["--backend", "opencl"]
    cmd += extra
    base = os.path.join(workdir, os.path.basename(prog)[:-len(".sten")])
    result = None
    seconds = 0.0          # both Oclgrind runs count when there is a retry
    for build_options in [None, "-cl-opt-disable"] if use_oclgrind else [None]:
        full = list(cmd)
        log = None
        if use_oclgrind:
            log = base + (".oclgrind.log" if build_options is None else ".oclgrind-O0.log")
            if os.path.exists(log):
                os.unlink(log)
            # Oclgrind's device has 32 KiB of local memory; Tessel validates blocks against the
            # default machine's opt-in maximum (H100: 227 KiB), so give the simulated device as
            # much.
            pre = [oclgrind, "--data-races", "--local-mem-size", "232448"] + (
                ["--uninitialized"] if uninit else []) + [
                "--log", log]
            if build_options:
                pre += ["--build-options", build_options]
            full = pre + cmd
        start = time.time()
        rc, out, err = run_command(full, timeout)
        seconds += time.time() - start
        log_text = ""
        if log and os.path.exists(log):
            with open(log, errors="replace") as f:
                log_text = f.read()
        kind, og_reason, og_kinds = (summarise_oclgrind(log_text, err) if use_oclgrind
                                     else (None, "", {}))
        result = {"prog": prog, "cmd": full, "rc": rc, "stdout": out, "stderr": err,
                  "oclgrind_log": log_text, "seconds": seconds, "oclgrind": kind,
                  "oclgrind_reason": og_reason, "oclgrind_kinds": og_kinds,
                  "build_options": build_options}
        if UNSUPPORTED.search(log_text) and build_options is None:
            continue          # an incomplete check: retry with the kernels built at -O0
        break
    classify(result)
    if result["cls"] == "wrong" and not use_oclgrind and "opencl" in cmd:
        result["reason"] += triage_wrong(cmd, timeout)
    # tessel names the program by its temporary path; the kept copy has the same base name
    result["reason"] = result["reason"].replace(prog, os.path.basename(prog))
    if result["build_options"]:
        result["reason"] += "  [Oclgrind rerun with --build-options %s: its uninitialized-" \
                            "value plugin does not support an instruction of the -O2 build]" \
                            % result["build_options"]
    return result


def triage_wrong(cmd, timeout):
    """A wrong result on OpenCL, run again two ways: with PoCL's optimiser off and on the C++
    target (the same kernels compiled by the host compiler). Right both ways points at PoCL's
    optimiser (docs/gpu.md, "PoCL 3.1 drops a barrier-separated store"); it stays counted as
    wrong, for a person to confirm (Oclgrind, PoCL's kept IR)."""
    env = dict(os.environ, POCL_EXTRA_BUILD_FLAGS="-cl-opt-disable")
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env,
                       timeout=timeout)
    o0 = p.returncode == 0 and "verification PASSED" in p.stdout
    b = cmd.index("--backend") if "--backend" in cmd else -1
    on_cpp = cmd[:b] + ["--backend", "cpp"] + cmd[b + 2:] if b >= 0 else cmd + ["--backend", "cpp"]
    p = subprocess.run(on_cpp, capture_output=True, text=True, errors="replace", timeout=timeout)
    cpp = p.returncode == 0 and "verification PASSED" in p.stdout
    verdict = "; right with PoCL's optimiser off (-cl-opt-disable): %s; right on --backend cpp: %s" % (
        "yes" if o0 else "no", "yes" if cpp else "no")
    if o0 and cpp:
        verdict += " (suspect PoCL's optimiser: check under Oclgrind)"
    return verdict


def verification_line(out):
    for line in out.splitlines():
        if line.startswith("verification"):
            return line.strip()
    return ""


def classify(r):
    """Sets r['cls'] and r['reason'] from the exit status, the output and Oclgrind's report."""
    rc, out, err = r["rc"], r["stdout"], r["stderr"]
    verdict = verification_line(out)
    if rc is None:
        r["cls"], r["reason"] = "timeout", "no result within the time limit"
    elif rc < 0 or rc == 3 or rc not in (0, 1, 2):
        if rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = str(-rc)
            why = "killed by signal %s" % name
        else:
            why = "exit status %d: %s" % (rc, first_error(err or out))
        r["cls"], r["reason"] = "crash", why
    elif r["oclgrind"] == "report":
        r["cls"], r["reason"] = "racy/oob", r["oclgrind_reason"]
        if rc == 2:
            r["reason"] += "; verification FAILED too"
    elif r["oclgrind"] == "fatal":
        r["cls"], r["reason"] = "inconclusive", r["oclgrind_reason"]
    elif rc == 2:
        diff = [l.strip() for l in out.splitlines() if "differs at" in l]
        r["cls"], r["reason"] = "wrong", (diff[0] if diff else verdict or first_error(err))
    elif rc == 1:
        r["cls"], r["reason"] = "refused", first_error(err or out)
    elif "verification PASSED" in verdict:
        r["cls"], r["reason"] = "passed", ""
    else:
        r["cls"], r["reason"] = "crash", "exit status 0 without 'verification PASSED'"


CLASSES = ["passed", "refused", "wrong", "crash", "timeout", "racy/oob", "inconclusive"]
FAILING = {"wrong", "crash", "timeout", "racy/oob"}


def slug(seed, extra, use_oclgrind, uninit=True):
    text = "seed%s" % seed + "".join("_" + re.sub(r"[^A-Za-z0-9=.,]+", "", a.lstrip("-"))
                                     for a in extra)
    return text + (("_oclgrind" if uninit else "_oclgrind-nouninit") if use_oclgrind else "")


def keep_failure(r, keep_dir):
    os.makedirs(keep_dir, exist_ok=True)
    name = os.path.basename(r["prog"])
    dest = os.path.join(keep_dir, name)
    shutil.copyfile(r["prog"], dest)
    log = dest[:-len(".sten")] + ".oclgrind.log"
    with open(dest[:-len(".sten")] + ".txt", "w") as f:
        f.write("class:   %s\nreason:  %s\nexit:    %s\ncommand: %s\nseconds: %.1f\n\n"
                % (r["cls"], r["reason"], r["rc"], " ".join(r["cmd"]), r["seconds"]))
        f.write("---- stdout\n%s\n---- stderr\n%s\n" % (r["stdout"], r["stderr"]))
        if r["oclgrind_log"]:
            f.write("---- oclgrind log: %s\n" % os.path.basename(log))
    if r["oclgrind_log"]:
        with open(log, "w") as f:
            f.write(r["oclgrind_log"])
    return dest


def cmd_run(args):
    tessel = find_tessel(args.tessel)
    extra = list(args.extra)
    if extra and extra[0] == "--":
        extra = extra[1:]
    oclgrind = None
    if args.oclgrind:
        oclgrind = shutil.which(args.oclgrind_path) or (
            args.oclgrind_path if os.access(args.oclgrind_path, os.X_OK) else None)
        if not oclgrind:
            sys.exit("random_programs.py: error: --oclgrind: '%s' not found (install oclgrind)"
                     % args.oclgrind_path)
        backend = None
        for n, a in enumerate(extra):
            if a == "--backend" and n + 1 < len(extra):
                backend = extra[n + 1]
            elif a.startswith("--backend="):
                backend = a.split("=", 1)[1]
        if backend not in (None, "opencl"):
            sys.exit("random_programs.py: error: --oclgrind checks OpenCL kernels, but the "
                     "backend is '%s'" % backend)

    tmp = tempfile.mkdtemp(prefix="tessel-random-")
    try:
        progdir = os.path.join(tmp, "programs")
        t0 = time.time()
        stats = generate(args.seed, args.count, progdir, tessel, args.jobs)
        print_generate_stats(stats, args.count, progdir, True)
        print("generated in %.1f s" % (time.time() - t0))
        progs = sorted(os.path.join(progdir, p) for p in os.listdir(progdir))
        print("running: %s run PROG --verify %s%s" % (
            tessel, "" if "--backend" in " ".join(extra) else "--backend opencl ",
            " ".join(extra)) + ("  (under oclgrind --data-races%s)" % (
                "" if args.no_uninitialized else " --uninitialized") if oclgrind else ""))
        sys.stdout.flush()
        t0 = time.time()
        results = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(run_one, p, tessel, extra, bool(oclgrind), oclgrind,
                                   args.timeout, tmp, not args.no_uninitialized)
                       for p in progs]
            for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                r = fut.result()
                results.append(r)
                if not args.quiet:
                    print("[%3d/%d] %s  %-12s %6.1f s  %s" % (
                        n, len(progs), os.path.basename(r["prog"]), r["cls"], r["seconds"],
                        r["reason"][:100]))
                    sys.stdout.flush()
        wall = time.time() - t0

        keep_dir = os.path.join(args.keep, slug(args.seed, extra, bool(oclgrind),
                                                not args.no_uninitialized))
        results.sort(key=lambda r: r["prog"])
        for r in results:
            if r["cls"] != "passed":
                r["kept"] = keep_failure(r, keep_dir)
        report(results, wall, args, keep_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    counts = {c: sum(1 for r in results if r["cls"] == c) for c in CLASSES}
    failed = sum(counts[c] for c in FAILING)
    if args.fail_on_refusal:
        failed += counts["refused"]
    return 1 if failed else 0


def report(results, wall, args, keep_dir):
    counts = {c: sum(1 for r in results if r["cls"] == c) for c in CLASSES}
    print()
    print("summary: %d programs (seed %s), %.1f s wall with %d jobs, %.1f s per program "
          "(mean of the per-program times)" % (
              len(results), args.seed, wall, args.jobs,
              sum(r["seconds"] for r in results) / max(1, len(results))))
    print("  %-13s %5s" % ("class", "count"))
    for c in CLASSES:
        print("  %-13s %5d" % (c, counts[c]))
        if c == "racy/oob" and counts[c]:
            # each program under the most serious kind among its reports
            order = [k for k, _ in REPORT_KINDS]
            worst = {}
            for r in results:
                if r["cls"] == c:
                    k = min(r["oclgrind_kinds"], key=order.index)
                    worst[k] = worst.get(k, 0) + 1
            labels = {"oob": "out of bounds (Invalid read/write, Index exceeds)",
                      "race": "data race", "other": "other Oclgrind report",
                      "uninit": "uninitialised value only"}
            for k in order:
                if k in worst:
                    print("    %-11s %5d  %s" % (k, worst[k], labels[k]))
    if any(r["cls"] == "racy/oob" and set(r["oclgrind_kinds"]) == {"uninit"}
           for r in results):
        print("  note: 'uninit only' is weak evidence. Oclgrind 21.10's --uninitialized treats "
              "buffers zero-filled\n"
              "  with clEnqueueFillBuffer (allocin arrays, arrays in no data list) as "
              "uninitialised, and staging\n"
              "  loads copy never-written elements of local arrays into shared memory. Its "
              "reports can also fill\n"
              "  Oclgrind's 1000-error limit and hide later ones: --no-uninitialized checks "
              "bounds and races alone.")
    retried = sum(1 for r in results if r.get("build_options"))
    if retried:
        print("  (%d program%s rerun under Oclgrind with the kernels built at -O0: at -O2 its "
              "uninitialized-value plugin met an instruction it does not support)"
              % (retried, "" if retried == 1 else "s"))
    also_wrong = sum(1 for r in results if r["cls"] == "racy/oob" and r["rc"] == 2)
    if also_wrong:
        print("  (%d of the racy/oob programs also failed verification)" % also_wrong)
    others = [r for r in results if r["cls"] != "passed"]
    if others:
        print()
        print("not passed (kept in %s):" % keep_dir)
        for r in others:
            print("  %-12s %s" % (r["cls"], r.get("kept", r["prog"])))
            print("               %s" % r["reason"])


# --------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------

def cmd_generate(args):
    tessel = None if args.no_check else find_tessel(args.tessel)
    stats = generate(args.seed, args.count, args.out, tessel, args.jobs, args.rejected)
    print_generate_stats(stats, args.count, args.out, tessel is not None)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Random valid Tessel programs, and a driver that runs them with --verify "
                    "for differential testing.",
        epilog="'%(prog)s generate --help' and '%(prog)s run --help' describe each subcommand.")
    sub = parser.add_subparsers(dest="command", required=True)

    g = sub.add_parser(
        "generate", help="write random programs that tessel check accepts",
        description="Writes COUNT random programs OUT/prog_XXXX.sten, deterministic for a seed "
                    "(and a tessel binary). Each candidate is checked with 'tessel check'; a "
                    "rejected candidate or a duplicate is replaced by the next candidate drawn "
                    "for the same slot. Prints the acceptance rate and the rejection reasons.")
    g.add_argument("--seed", default="1", help="seed (any string; default 1)")
    g.add_argument("--count", type=int, default=100, help="number of programs (default 100)")
    g.add_argument("--out", required=True, help="output directory")
    g.add_argument("--tessel", help="tessel binary (default: $TESSEL, build/tessel, the PATH)")
    g.add_argument("--jobs", type=int, default=2, help="parallel 'tessel check' runs (default 2)")
    g.add_argument("--no-check", action="store_true",
                   help="write the first candidates without checking them")
    g.add_argument("--rejected", metavar="DIR",
                   help="also write the rejected candidates there, with tessel's error")
    g.set_defaults(func=cmd_generate)

    r = sub.add_parser(
        "run", help="generate programs and run each with tessel run --verify",
        description="Generates the programs of a seed (as 'generate' does) into a temporary "
                    "directory and runs each with 'tessel run PROG --verify --backend opencl "
                    "EXTRA...' (a --backend in EXTRA replaces opencl), optionally under "
                    "'oclgrind --data-races --uninitialized'. Classes: passed; refused (exit 1, "
                    "tessel rejected the program, schedule or options); wrong (exit 2); crash "
                    "(exit 3, a signal, or exit 0 without 'verification PASSED'); timeout; "
                    "racy/oob (an Oclgrind report: invalid access, data race, uninitialised "
                    "value, ...); inconclusive (Oclgrind itself failed). Programs that do not "
                    "pass are copied with a report into KEEP/<seed and options>/. Exit status 1 "
                    "if any program is wrong, crashed, timed out or has an Oclgrind report "
                    "(with --fail-on-refusal, also if any was refused); else 0.",
        epilog="example: %(prog)s --seed 1 --count 40 --jobs 2 --oclgrind -- --schedule stream "
               "--time-tile 2")
    r.add_argument("--tessel", help="tessel binary (default: $TESSEL, build/tessel, the PATH)")
    r.add_argument("--seed", default="1", help="seed (default 1)")
    r.add_argument("--count", type=int, default=100, help="number of programs (default 100)")
    r.add_argument("--jobs", type=int, default=2, help="programs run in parallel (default 2)")
    r.add_argument("--oclgrind", action="store_true",
                   help="run under oclgrind --data-races --uninitialized (opencl backend only)")
    r.add_argument("--no-uninitialized", action="store_true",
                   help="with --oclgrind: leave out --uninitialized (the uninitialised-value "
                        "plugin is the noisiest check and has known false positives)")
    r.add_argument("--oclgrind-path", default="oclgrind", help=argparse.SUPPRESS)
    r.add_argument("--timeout", type=float, default=600,
                   help="seconds per program before it counts as a timeout (default 600)")
    r.add_argument("--keep", default=DEFAULT_KEEP,
                   help="where programs that do not pass are kept (default: "
                        "bench-results/random-failures/ in the repository)")
    r.add_argument("--fail-on-refusal", action="store_true",
                   help="exit 1 also when tessel refuses a program")
    r.add_argument("--quiet", action="store_true", help="no line per program, only the summary")
    r.add_argument("extra", nargs=argparse.REMAINDER,
                   help="after '--': options for every 'tessel run' (e.g. --schedule stream "
                        "--time-tile 2, --backend cpp, --param T=1)")
    r.set_defaults(func=cmd_run)

    args = parser.parse_args(argv)
    if getattr(args, "count", 1) < 1 or getattr(args, "jobs", 1) < 1:
        parser.error("--count and --jobs must be at least 1")
    try:
        return args.func(args)
    except RuntimeError as e:            # a generator that cannot fill a slot, a tessel crash
        sys.exit("random_programs.py: error: %s" % e)


if __name__ == "__main__":
    sys.exit(main())
