// validate(): an impossible Schedule is a located error, never wrong code.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

#include "analysis/int_arithmetic.h"
#include "analysis/retiming.h"
#include "schedule/resolve.h"
#include "schedule/schedule.h"

namespace tessel {

namespace {

// The launch plan (lower/lower_gpu.h) holds unroll factors and chunks as int.
constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
/// Points per thread where the kernel writes a copy of the statement per point.
constexpr int64_t kMaxCopies = 64;

struct Checker {
  const Schedule& s;
  const Program& prog;
  const MachineDesc& m;
  DiagnosticEngine& diags;
  bool ok = true;

  void error(const Origin& o, std::string msg, std::string hint = {}) {
    diags.report(DiagId::bad_schedule, o.kind == Origin::Kind::File ? o.loc : SourceLoc{},
                 std::move(msg), std::move(hint));
    ok = false;
  }

  std::string machine() const { return fmt::format("{} ({})", m.name, m.id); }

  std::string iteratorList() const {
    std::string list;
    for (auto& it : prog.iterators) list += (list.empty() ? "" : ", ") + it.name;
    return list;
  }

  int iteratorIndex(const std::string& name) const {
    for (int d = 0; d < prog.dims(); ++d)
      if (prog.iterators[d].name == name) return d;
    return -1;
  }

  std::string notAnIterator(const std::string& name) const {
    return fmt::format("'{}' is not an iterator of this program (its iterators: {})", name,
                       iteratorList());
  }
  /// The hint for a name that is not an iterator: the closest one, else `example`, what to
  /// write instead.
  std::string didYouMean(const std::string& name, const std::string& example) const {
    if (auto best = closestName(name, prog.iteratorNames()))
      return fmt::format("did you mean '{}'?", *best);
    return "name one of this program's iterators, e.g. " + example;
  }

  // A streaming schedule streams one iterator that exists and is not the unit-stride one.
  void checkStream() {
    ScheduleFamily f = s.family.value;
    if (!streams(f)) {
      if (s.stream)
        error(s.stream->origin,
              fmt::format("{}: streaming needs a streaming schedule ('stream' or "
                          "'global-stream'), not '{}'",
                          settingName(s.stream->origin, "stream " + s.stream->value.iterator),
                          familyName(f)));
      return;
    }
    // `--schedule stream` alone on a 1-D program runs as `shared` (a note says so); an
    // explicit stream clause, or global-stream, cannot run.
    if (prog.dims() < 2 && (f == ScheduleFamily::GlobalStream || s.stream)) {
      const Origin& o = s.stream && s.stream->origin.kind != Origin::Kind::Default
                            ? s.stream->origin
                            : s.family.origin;
      std::string clause =
          s.stream && s.stream->origin.kind != Origin::Kind::Default
              ? (s.stream->value.full ? "full_stream " : "stream ") + s.stream->value.iterator
              : std::string("schedule ") + familyName(f);
      error(o,
            fmt::format("{}: the '{}' schedule needs a 2-D or 3-D program (it streams "
                        "one iterator and spreads the threads over the others); this program "
                        "has one iterator, '{}'",
                        settingName(o, clause), familyName(f), iteratorList()),
            o.outsideFile()
                ? "use --schedule global (one thread per point) or --schedule shared"
                : "remove the stream clause: the 'global' schedule runs one thread per point");
      return;
    }
    if (!s.stream) {
      if (prog.dims() >= 2)
        error(s.family.origin, fmt::format("{}: no iterator to stream along",
                                           settingName(s.family.origin, "schedule global-stream")));
      return;
    }
    const StreamSpec& st = s.stream->value;
    std::string what =
        settingName(s.stream->origin, (st.full ? "full_stream " : "stream ") + st.iterator);
    int d = iteratorIndex(st.iterator);
    if (d < 0) {
      error(s.stream->origin, fmt::format("{}: {}", what, notAnIterator(st.iterator)),
            didYouMean(st.iterator,
                       (st.full ? "--full-stream " : "--stream ") + prog.iterators.front().name));
    } else if (d == prog.dims() - 1) {
      error(s.stream->origin,
            fmt::format("{}: '{}' is the unit-stride (last) iterator and cannot be streamed: the "
                        "threads of a block run along it, so that neighbours read neighbouring "
                        "addresses",
                        what, st.iterator),
            fmt::format("stream the slowest iterator, '{}'", prog.iterators[0].name));
    }
  }

  void checkChunk() {
    if (s.chunk.value >= 1 && s.chunk.value <= kMaxInt) return;
    error(s.chunk.origin,
          fmt::format("{}: a chunk has at least 1 plane{}, not {}",
                      settingName(s.chunk.origin, fmt::format("chunk {}", s.chunk.value)),
                      s.chunk.value >= 1 ? fmt::format(" and at most {}", kMaxInt) : "",
                      s.chunk.value),
          "e.g. --chunk 16 (planes per block of a chunked 'stream')");
  }

  // Each kernel of a staged family fits the machine's shared memory per block.
  void checkResources() {
    if (!ok) return;  // the needs assume a valid block, stream and unroll
    bool byBlock = s.block.origin.kind != Origin::Kind::Default;
    const Origin& o = byBlock ? s.block.origin : s.family.origin;
    std::string clause =
        byBlock ? fmt::format("block ({})", fmt::join(s.block.value, ", "))
        : s.stream && s.family.origin.kind == Origin::Kind::File
            ? (s.stream->value.full ? "full_stream " : "stream ") + s.stream->value.iterator
            : std::string("schedule ") + familyName(s.family.value);
    for (const KernelNeeds& k : kernelNeeds(s, prog)) {
      if (k.sharedBytes <= m.sharedPerBlockMax()) continue;
      error(o,
            fmt::format("{}: the '{}' schedule of stencil '{}' needs {} bytes of shared memory "
                        "per block ({} threads) for statement s{} of call {} (staging {}), more "
                        "than the {} bytes per block that {} allows",
                        settingName(o, clause), familyName(s.family.value),
                        prog.stencils[s.stencil].name, k.sharedBytes, k.threads, k.stmt, k.call,
                        k.staged, m.sharedPerBlockMax(), machine()),
            s.family.value == ScheduleFamily::Stream && s.retime.value && s.sparePlane.value
                ? "use a smaller block or unroll, --spare-plane off (the retimed plane's second "
                  "slot left out: one barrier more per plane), or --schedule global"
                : "use a smaller block or unroll, or --schedule global");
      return;  // one error per schedule is enough
    }
  }

  void checkBlock() {
    const auto& b = s.block.value;
    std::string clause = "block (";
    for (size_t i = 0; i < b.size(); ++i) clause += (i ? ", " : "") + std::to_string(b[i]);
    clause += ")";
    std::string what = settingName(s.block.origin, clause);
    static const char* axis[] = {"x", "y", "z"};
    if (b.empty() || b.size() > 3) {
      error(s.block.origin, fmt::format("{}: a block has 1 to 3 extents, not {}", what, b.size()));
      return;
    }
    bool extentsOk = true;
    for (size_t d = 0; d < b.size(); ++d) {
      if (b[d] < 1) {
        error(s.block.origin,
              fmt::format("{}: block extent {} in {} must be at least 1", what, b[d], axis[d]));
        extentsOk = false;
      } else if (b[d] > m.limits.maxBlockDims[d]) {
        error(s.block.origin,
              fmt::format("{}: block extent {} in {} is more than the {} that {} allows in {}",
                          what, b[d], axis[d], m.limits.maxBlockDims[d], machine(), axis[d]));
        extentsOk = false;
      }
    }
    if (!extentsOk) return;
    int64_t threads = s.blockThreads();  // no overflow: each extent is within the machine's limit
    if (threads > m.limits.maxThreadsPerBlock)
      error(s.block.origin,
            fmt::format("{} has {} threads, more than the {} threads per block that {} allows",
                        what, threads, m.limits.maxThreadsPerBlock, machine()),
            fmt::format("a block may have at most {} threads (x * y * z)",
                        m.limits.maxThreadsPerBlock));
    // Thread dimensions beyond the grid's would compute the same points twice.
    if (streams(s.family.value) && prog.dims() < 2) return;
    auto grid = gridDims(s, prog);
    size_t used = b.size();
    while (used > 0 && b[used - 1] == 1) --used;
    if (used > grid.size()) {
      std::string names;
      for (int d : grid) names += (names.empty() ? "" : ", ") + prog.iterators[d].name;
      int sd = streamDim(s, prog);
      std::string streamed =
          sd >= 0 ? fmt::format("; '{}' is streamed", prog.iterators[sd].name) : "";
      error(s.block.origin,
            fmt::format("{} spreads threads over {} dimensions, but the '{}' grid of this {}-D "
                        "program has {} ({}{})",
                        what, used, familyName(s.family.value), prog.dims(), grid.size(), names,
                        streamed),
            fmt::format("extents beyond the grid's {} must be 1", grid.size()));
    }
  }

  void checkUnroll() {
    const UnrollSpec& u = s.unroll.value;
    std::set<std::string> seen;
    for (auto& [name, factor] : u.factors) {
      std::string what = settingName(s.unroll.origin, fmt::format("unroll {}={}", name, factor));
      if (iteratorIndex(name) < 0)
        error(s.unroll.origin, fmt::format("{}: {}", what, notAnIterator(name)),
              didYouMean(name, "--unroll " + prog.iterators.back().name + "=2"));
      else if (!seen.insert(name).second)
        error(s.unroll.origin, fmt::format("{}: '{}' is given more than once", what, name));
      if (factor < 1)
        error(s.unroll.origin,
              fmt::format("{}: unroll factor {} for '{}' must be at least 1 (1: no unrolling)",
                          what, factor, name));
      else if (factor > kMaxInt)
        error(s.unroll.origin, fmt::format("{}: unroll factor {} for '{}' must be at most {}", what,
                                           factor, name, kMaxInt));
    }
    // global, global-stream and stream (also its fused stages under a time tile) write one copy
    // of the statement per point of a thread (each with its own registers): a bounded number.
    const ScheduleFamily f = s.family.value;
    const bool copied = f == ScheduleFamily::Global || f == ScheduleFamily::GlobalStream ||
                        f == ScheduleFamily::Stream;
    if (!copied || prog.dims() < 2) return;
    const int sd = streamDim(s, prog);
    // A sweep computes one plane at a time: nothing unrolls along the streamed iterator. Asked
    // for on the command line, that is an error; a file's clause (written, perhaps, for another
    // family) or the model's family only draws a note (schedule_notes.cpp).
    if (f != ScheduleFamily::Global && sd >= 0 &&
        s.unroll.origin.kind == Origin::Kind::CommandLine &&
        s.family.origin.kind != Origin::Kind::Model)
      for (auto& [name, factor] : u.factors)
        if (factor > 1 && iteratorIndex(name) == sd) {
          std::vector<std::string> others;
          for (size_t d = 0; d < prog.iterators.size(); ++d)
            if (static_cast<int>(d) != sd) others.push_back(prog.iterators[d].name);
          error(s.unroll.origin,
                fmt::format("{}: '{}' is the iterator the '{}' schedule streams: its sweep "
                            "computes one plane at a time, so nothing unrolls along it",
                            settingName(s.unroll.origin, fmt::format("unroll {}={}", name, factor)),
                            name, familyName(f)),
                fmt::format("unroll along {} instead, or stream another iterator (--stream {})",
                            fmt::join(others, " or "), others.front()));
        }
    int64_t points = 1;
    for (auto& [name, factor] : u.factors)
      if (int it = iteratorIndex(name); it >= 0 && it != (f == ScheduleFamily::Global ? -1 : sd))
        points = std::min<int64_t>(kMaxInt, points * std::clamp<int64_t>(factor, 1, kMaxInt));
    if (points > kMaxCopies)
      error(s.unroll.origin,
            fmt::format("{}: {} points per thread under '{}': at most {} (the kernel holds a copy "
                        "of the statement, with its registers, per point)",
                        settingName(s.unroll.origin, "unroll"), points, familyName(f), kMaxCopies),
            "unroll less, or use --schedule shared, whose threads loop over their points");
  }

  // Prefetching loads a streamed sweep's next shared plane into registers: the stream family's
  // per-statement kernels (lower_gpu_staged_stream.cpp) and its fused rings (stream +
  // time_tile, lower_gpu_fused_rings.cpp).
  void checkPrefetch() {
    if (!s.prefetch.value || prefetchApplies(s, prog)) return;
    error(s.prefetch.origin,
          fmt::format("{}: prefetching loads the next plane of a streamed sweep into registers "
                      "while the current one is computed: it applies to the stream family's "
                      "kernels (also with time_tile), not to {}",
                      settingName(s.prefetch.origin, "prefetch"),
                      s.family.value == ScheduleFamily::Stream
                          ? std::string("a program without a streamed iterator")
                          : fmt::format("the '{}' family", familyName(s.family.value))),
          "use --schedule stream, or leave prefetch out");
  }

  // Values in registers are the overlapped kernel's placement (analysis/tile_regions.h); the
  // other families decide their placement themselves (streamed kernels keep centre-only values
  // in registers already).
  void checkRegisterValues() {
    if (!s.registerValues.value || s.family.value == ScheduleFamily::Overlapped) return;
    error(s.registerValues.origin,
          fmt::format("{}: it has the overlapped kernel compute a value read once, at its centre, "
                      "in its reader's loop: it applies to the overlapped family, not to the "
                      "'{}' family",
                      settingName(s.registerValues.origin, "register_values on"),
                      familyName(s.family.value)),
          "use --schedule overlapped, or leave --register-values out");
  }

  // The input and mixed perspectives give the shared family's blocks a thread per element of
  // the input tile: the block must leave output points inside its halo, one point per thread.
  void checkPerspective() {
    if (!s.perspective || s.perspective->value == Perspective::Output) return;
    const std::string what = settingName(
        s.perspective->origin,
        s.perspective->value == Perspective::Input ? "perspective input" : "perspective mixed");
    const bool fused = s.family.value == ScheduleFamily::Overlapped || streamsTimeTiled(s, prog);
    if (fused) {
      error(s.perspective->origin,
            fmt::format("{}: time-tiled kernels already have the input perspective: a block has a "
                        "thread per point of its largest stage's region, which the stages' halos "
                        "shrink to the output tile (paper 001), so there is no other to choose",
                        what),
            "leave perspective out, or use --schedule shared for a per-statement kernel with it");
      return;
    }
    if (s.family.value != ScheduleFamily::Shared) {
      error(s.perspective->origin,
            fmt::format("{}: the input and mixed perspectives give a block a thread per element "
                        "of its input tile: they apply to the shared family's kernels, not to the "
                        "'{}' family",
                        what, familyName(s.family.value)),
            "use --schedule shared, or --perspective output");
      return;
    }
    const auto halo = perspectiveHalo(s, prog);
    const GridShape g = gridOf(s, prog);
    // The iterators along which the block leaves no output point inside the halo, reported in
    // one error with a block that would leave two per iterator (where one within the machine's
    // threads per block does).
    std::vector<std::string> shortDims, names;
    const std::vector<int64_t> block(g.block.begin(), g.block.begin() + g.iters.size());
    std::vector<int64_t> suggested = block, least = block;
    for (size_t gd = 0; gd < g.iters.size(); ++gd) {
      const int64_t h = halo[0][gd] + halo[1][gd];
      least[gd] = h > 0 ? h + 2 : 1;  // two output points along it, or one thread
      if (h == 0) continue;
      const std::string& it = prog.iterators[static_cast<size_t>(g.iters[gd])].name;
      if (g.unroll[gd] > 1) {
        error(s.perspective->origin,
              fmt::format("{}: a thread loads one element along '{}', so it computes one point: "
                          "unroll {}={} does not combine with it",
                          what, it, it, g.unroll[gd]),
              "leave unroll out along that iterator, or use --perspective output");
      } else if (g.tile(gd) < 1) {
        shortDims.push_back(fmt::format("{} thread{} along '{}' against a halo of {} + {}",
                                        g.block[gd], g.block[gd] == 1 ? "" : "s", it, halo[0][gd],
                                        halo[1][gd]));
        names.push_back("'" + it + "'");
        suggested[gd] = least[gd];
      }
    }
    if (shortDims.empty()) return;
    auto product = [](const std::vector<int64_t>& b) {
      int64_t t = 1;
      for (int64_t e : b) t *= e;
      return t;
    };
    if (product(suggested) > m.limits.maxThreadsPerBlock) suggested = least;
    const int64_t threads = product(suggested);
    const std::string hint =
        threads <= m.limits.maxThreadsPerBlock
            ? fmt::format(
                  "give a block above the halo along {} (--block): e.g. --block {} ({} "
                  "threads, {} of them computing an output point)",
                  fmt::join(names, " and "), fmt::join(suggested, ","), threads,
                  [&] {
                    int64_t outputs = 1;
                    for (size_t gd = 0; gd < suggested.size(); ++gd)
                      outputs *= suggested[gd] - halo[0][gd] - halo[1][gd];
                    return outputs;
                  }())
            : fmt::format(
                  "no block of at most {} threads ({}) leaves an output point inside "
                  "this halo: use --perspective mixed (input along x only) or output",
                  m.limits.maxThreadsPerBlock, machine());
    error(s.perspective->origin,
          fmt::format("{}: a block of {} threads leaves no output point inside the stencil's "
                      "halo: {}",
                      what, fmt::join(block, "x"), fmt::join(shortDims, "; ")),
          hint);
  }

  // Folding stages a combination instead of its arrays: the staged families' per-statement
  // kernels (shared, stream) and stream + time_tile's input rings, not with retiming (whose parts
  // regroup the products folding would combine). The global families and `overlapped` stage no
  // array the kernel only reads (overlapped reads its inputs from global memory).
  void checkFold() {
    if (!s.fold.value || foldApplies(s)) return;
    const ScheduleFamily f = s.family.value;
    const bool staged = f == ScheduleFamily::Shared || f == ScheduleFamily::Stream;
    const std::string why =
        staged ? std::string("retimed ones")
        : f == ScheduleFamily::Overlapped
            ? std::string(
                  "the 'overlapped' family (its kernels read the arrays they do not write "
                  "from global memory: nothing is staged to fold)")
            : fmt::format("the '{}' family (nothing is staged)", familyName(f));
    error(s.fold.origin,
          fmt::format("{}: folding stages arrays combined point-wise as their combination in "
                      "shared memory or registers: it applies to the shared and stream families' "
                      "kernels (also with time_tile), not to {}",
                      settingName(s.fold.origin, "fold"), why),
          staged ? "leave fold or retime out"
                 : "use --schedule shared or stream (also with --time-tile), or leave fold out");
  }

  // Statement fusion builds the `global` family's kernels (analysis/stmt_fusion.h) and the
  // `stream` family's (one streamed kernel per call, the fused kernel of stream + time_tile);
  // `shared` and `global-stream` stage or sweep per statement, and overlapped fuses already.
  void checkFuseStatements() {
    if (!s.fuseStatements.value || fuseStatementsApplies(s)) return;
    error(s.fuseStatements.origin,
          fmt::format("{}: statement fusion applies to the 'global' and 'stream' families' "
                      "kernels, not to '{}'{}",
                      settingName(s.fuseStatements.origin, "fuse_statements"),
                      familyName(s.family.value),
                      s.family.value == ScheduleFamily::Overlapped
                          ? " (its kernels fuse the statements and calls of a time tile already)"
                          : " (its kernels stage each statement's tiles on their own)"),
          s.family.value == ScheduleFamily::Overlapped
              ? "leave fuse_statements out"
              : "use --schedule stream (one streamed kernel per call), --schedule overlapped "
                "--time-tile 1 (one kernel per call, halos recomputed in shared memory) or "
                "--schedule global, or leave fuse_statements out");
  }

  // Retiming (analysis/retiming.h) needs the stream family's per-statement sweep, and every
  // statement of the stencil retimable along the streamed iterator.
  void checkRetime() {
    if (!s.retime.value) return;
    const std::string what = settingName(s.retime.origin, "retime");
    const int sd = streamDim(s, prog);
    if (!retimeApplies(s, prog)) {
      error(s.retime.origin,
            fmt::format("{}: retiming accumulates each statement plane by plane in a streamed "
                        "sweep: it applies to the stream (also with time_tile) and global-stream "
                        "families' kernels, not to the '{}' family{}",
                        what, familyName(s.family.value),
                        sd < 0 && s.family.value == ScheduleFamily::Stream
                            ? " without a streamed iterator"
                            : ""),
            "use --schedule stream, or leave retime out");
      return;
    }
    const std::string& name = prog.stencils[s.stencil].name;
    for (const CallInst& call : prog.calls) {
      if (call.stencil != s.stencil) continue;
      for (size_t k = 0; k < call.stmts.size(); ++k) {
        const Stmt& st = call.stmts[k];
        Retiming r = retime(prog, call, st, sd);
        std::string why = r.whyNot;
        SourceLoc at = r.where;
        if (r.ok && streamsTimeTiled(s, prog)) why = whyFusedKernelsCannotRetime(st, r, at);
        if (why.empty()) continue;
        diags.report(DiagId::bad_schedule, at.valid() ? at : st.loc,
                     fmt::format("{}: statement s{} of stencil '{}' cannot be retimed along {}: {}",
                                 what, k, name, prog.iterators[static_cast<size_t>(sd)].name, why),
                     "leave retime out for this stencil (the stream family runs it without)");
        ok = false;
        return;
      }
    }
  }

  void checkRest() {
    if (s.timeTile.value < 1)
      error(
          s.timeTile.origin,
          fmt::format("{}: time_tile must be at least 1 (1: no time tiling), not {}",
                      settingName(s.timeTile.origin, fmt::format("time_tile {}", s.timeTile.value)),
                      s.timeTile.value));
    if ((s.family.value == ScheduleFamily::Overlapped ||
         s.family.value == ScheduleFamily::Stream) &&
        s.timeTile.value > 8)
      error(
          s.timeTile.origin,
          fmt::format("{}: the {} family fuses at most 8 time steps, not {}",
                      settingName(s.timeTile.origin, fmt::format("time_tile {}", s.timeTile.value)),
                      familyName(s.family.value), s.timeTile.value),
          "the halo and the shared memory grow with every fused step; use 1 to 8");
    if (int n = s.maxRegisters.value; n != 0) {
      const std::string what =
          settingName(s.maxRegisters.origin, fmt::format("max_registers {}", n));
      const int64_t most =
          m.limits.maxRegistersPerThread > 0 ? m.limits.maxRegistersPerThread : 255;
      const int64_t block = s.blockThreads();
      if (n < 16 || n > most)
        error(s.maxRegisters.origin,
              fmt::format("{}: a register cap must be from 16 to {} per thread on {}", what, most,
                          m.name),
              "ptxas needs at least 16; without a cap the CUDA kernels take the model's "
              "(--max-registers auto, the default), and --max-registers bounds keeps each "
              "family's launch bounds");
      else if (m.limits.maxRegistersPerBlock > 0 && n * block > m.limits.maxRegistersPerBlock)
        error(s.maxRegisters.origin,
              fmt::format("{}: {} registers for each of the block's {} threads are {}, more than "
                          "the {} a block may hold on {}",
                          what, n, block, n * block, m.limits.maxRegistersPerBlock, m.name),
              fmt::format("use at most {} registers, or a smaller block",
                          m.limits.maxRegistersPerBlock / block));
    }
    if (s.indexBits.value == 32) {
      if (const Stmt* st = intArithmeticIn(prog, s.stencil)) {
        // At the statement: that is what has to change (or the setting, which the hint names).
        diags.report(DiagId::bad_schedule, st->loc,
                     fmt::format("{}: this statement computes with ints, which the language "
                                 "computes in 64 bits; 32-bit kernels would wrap them",
                                 settingName(s.indexBits.origin, "index_bits 32")),
                     "use --index-bits auto (the default), which keeps such kernels at 64 bits");
        ok = false;
      }
    }
    if (s.occupancy && !(s.occupancy->value > 0 && s.occupancy->value <= 1))
      error(s.occupancy->origin,
            fmt::format(
                "{}: the occupancy target must be in (0, 1]",
                settingName(s.occupancy->origin, fmt::format("occupancy {}", s.occupancy->value))));
  }
};

}  // namespace

bool validate(const Schedule& s, const Program& prog, const MachineDesc& m,
              DiagnosticEngine& diags) {
  if (s.stencil < 0 || s.stencil >= static_cast<int>(prog.stencils.size()))
    throw std::out_of_range(fmt::format("validate: the schedule names no stencil ({})", s.stencil));
  Checker c{s, prog, m, diags};
  c.checkStream();
  c.checkBlock();
  c.checkUnroll();
  c.checkPrefetch();
  c.checkRegisterValues();
  c.checkFold();
  c.checkFuseStatements();
  c.checkPerspective();
  c.checkChunk();
  c.checkRest();
  c.checkRetime();
  c.checkResources();
  return c.ok;
}

}  // namespace tessel
