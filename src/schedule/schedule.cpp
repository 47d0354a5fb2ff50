// Building a Schedule: the stencil's hints, then the command line over them, then defaults.
#include "schedule/schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace tessel {

std::string describe(const Origin& o) {
  switch (o.kind) {
    case Origin::Kind::Default:
      return "default";
    case Origin::Kind::File:
      if (!o.loc.valid()) return "program";
      return fmt::format("{}:{}:{}", o.loc.file->name(), o.loc.line(), o.loc.col());
    case Origin::Kind::CommandLine:
      return fmt::format("command line ({})", o.flag);
    case Origin::Kind::Model:
      return fmt::format("the performance model's choice ({})", o.flag);
  }
  return "?";
}

std::array<int64_t, 3> Schedule::blockShape() const {
  std::array<int64_t, 3> b{1, 1, 1};
  for (size_t d = 0; d < block.value.size() && d < 3; ++d) b[d] = block.value[d];
  return b;
}

int64_t Schedule::blockThreads() const {
  auto b = blockShape();
  return b[0] * b[1] * b[2];
}

int64_t Schedule::unrollFactor(const std::string& iterator) const {
  int64_t f = 1;
  for (auto& [name, n] : unroll.value.factors)
    if (name == iterator) f = n;
  return f;
}

int streamDim(const Schedule& s, const Program& prog) {
  if (!streams(s.family.value) || !s.stream) return -1;
  for (int d = 0; d < prog.dims(); ++d)
    if (prog.iterators[d].name == s.stream->value.iterator) return d;
  return -1;
}

std::array<std::array<int, 3>, 2> perspectiveHalo(const Schedule& s, const Program& prog) {
  std::array<std::array<int, 3>, 2> halo{};
  if (!s.perspective || s.perspective->value == Perspective::Output) return halo;
  const std::vector<int> dims = gridDims(s, prog);
  const size_t n = s.perspective->value == Perspective::Mixed ? std::min<size_t>(1, dims.size())
                                                              : std::min<size_t>(3, dims.size());
  for (const CallInst& call : prog.calls) {
    if (call.stencil != s.stencil) continue;
    for (const Stmt& st : call.stmts)
      visitExpr(st.rhs, [&](const ExprPtr& e) {
        if (e->kind != ExprKind::ArrayRef) return;
        for (const Subscript& sub : e->subs)
          for (size_t gd = 0; gd < n; ++gd)
            if (!sub.fixed() && sub.iter == dims[gd]) {
              halo[0][gd] = std::max<int>(halo[0][gd], static_cast<int>(-sub.offset));
              halo[1][gd] = std::max<int>(halo[1][gd], static_cast<int>(sub.offset));
            }
      });
  }
  return halo;
}

std::vector<int> gridDims(const Schedule& s, const Program& prog) {
  int streamed = streamDim(s, prog);
  std::vector<int> g;
  for (int d = prog.dims() - 1; d >= 0; --d)
    if (d != streamed) g.push_back(d);
  return g;
}

bool severalStatements(const Program& prog, int stencil) {
  return std::any_of(prog.calls.begin(), prog.calls.end(),
                     [&](const CallInst& c) { return c.stencil == stencil && c.stmts.size() > 1; });
}

const std::vector<std::string>& scheduleFlags() {
  static const std::vector<std::string> f = {
      "--schedule",      "--block",   "--stream",          "--full-stream",    "--unroll",
      "--time-tile",     "--chunk",   "--dead-stores",     "--spare-plane",    "--index-bits",
      "--fma",           "--retime",  "--prefetch",        "--fold",           "--perspective",
      "--max-registers", "--machine", "--fuse-statements", "--register-values"};
  return f;
}

bool scheduleSwitch(const std::string& flag) {
  return flag == "--fma" || flag == "--retime" || flag == "--prefetch" || flag == "--fold" ||
         flag == "--fuse-statements";
}

namespace {

std::optional<int64_t> parseInt(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> splitCommas(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t c = s.find(',', start);
    parts.push_back(s.substr(start, c == std::string_view::npos ? s.npos : c - start));
    if (c == std::string_view::npos) return parts;
    start = c + 1;
  }
}

std::string joinInts(const std::vector<int64_t>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

std::string unrollText(const UnrollSpec& u, const char* sep) {
  std::string s;
  for (size_t i = 0; i < u.factors.size(); ++i)
    s += fmt::format("{}{}={}", i ? sep : "", u.factors[i].first, u.factors[i].second);
  if (u.distribution == UnrollDistribution::Cyclic) s += std::string(sep) + "cyclic";
  return s;
}

bool identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

bool setScheduleOption(ScheduleOptions& opts, std::string_view flag, std::string_view value,
                       DiagnosticEngine& diags) {
  auto bad = [&](std::string what, std::string hint = {}) {
    diags.report(DiagId::bad_schedule, {}, fmt::format("{} '{}': {}", flag, value, what),
                 std::move(hint));
    return false;
  };
  if (flag == "--schedule") {
    auto f = parseFamily(value);
    if (!f)
      return bad("unknown schedule family",
                 "the families are 'global', 'global-stream', 'shared', 'stream' and "
                 "'overlapped'; on the command line 'auto' lets the performance model choose");
    opts.family = *f;
  } else if (flag == "--block") {
    std::vector<int64_t> b;
    auto parts = splitCommas(value);
    for (auto p : parts)
      if (auto v = parseInt(p)) b.push_back(*v);
    if (b.size() != parts.size() || b.empty() || b.size() > 3)
      return bad("expected 1 to 3 integers separated by commas", "e.g. --block 32,8 or 32,4,2");
    opts.block = b;
  } else if (flag == "--stream" || flag == "--full-stream") {
    if (!identifier(value))
      return bad("expected an iterator name", "e.g. " + std::string(flag) + " k");
    (flag == "--stream" ? opts.stream : opts.fullStream) = std::string(value);
  } else if (flag == "--unroll") {
    UnrollSpec u;
    bool blocked = false, cyclic = false;
    for (auto p : splitCommas(value)) {
      if (p == "blocked" || p == "cyclic") {
        (p == "blocked" ? blocked : cyclic) = true;
        continue;
      }
      auto eq = p.find('=');
      auto n = eq == p.npos ? std::nullopt : parseInt(p.substr(eq + 1));
      if (!n || !identifier(p.substr(0, eq)))
        return bad(fmt::format("'{}' is not ITERATOR=FACTOR", p),
                   "e.g. --unroll j=2,i=1 (optionally ,blocked or ,cyclic)");
      u.factors.emplace_back(std::string(p.substr(0, eq)), *n);
    }
    if (blocked && cyclic)
      return bad("'blocked' and 'cyclic' contradict each other",
                 "blocked gives a thread consecutive points, cyclic points a block apart: "
                 "give one, e.g. --unroll i=2,cyclic");
    if (u.factors.empty()) return bad("expected ITERATOR=FACTOR pairs", "e.g. --unroll j=2,i=1");
    if (cyclic) u.distribution = UnrollDistribution::Cyclic;
    opts.unroll = u;
  } else if (flag == "--time-tile") {
    auto v = parseInt(value);
    if (!v) return bad("expected an integer", "e.g. --time-tile 2");
    opts.timeTile = *v;
  } else if (flag == "--chunk") {
    auto v = parseInt(value);
    if (!v) return bad("expected an integer (planes per block)", "e.g. --chunk 16");
    opts.chunk = *v;
  } else if (flag == "--dead-stores") {
    if (value != "keep" && value != "drop")
      return bad(fmt::format("'{}' is neither keep nor drop", value),
                 "--dead-stores drop (the default) leaves out the write-back of arrays no later "
                 "kernel reads; keep writes every one");
    opts.keepDeadStores = value == "keep";
  } else if (flag == "--retime") {
    opts.retime = value == "on";
  } else if (flag == "--prefetch") {
    opts.prefetch = value == "on";
  } else if (flag == "--fold") {
    opts.fold = value == "on";
  } else if (flag == "--fuse-statements") {
    opts.fuseStatements = value == "on";
  } else if (flag == "--fusion-groups") {
    opts.fusionGroups = std::string(value);
  } else if (flag == "--schedule-chosen-by") {
    opts.familyChosenBy = std::string(value);
  } else if (flag == "--perspective") {
    if (value != "output" && value != "input" && value != "mixed")
      return bad(fmt::format("'{}' is not output, input or mixed", value),
                 "--perspective output (the default: a thread per output point), input (a thread "
                 "per input element, the halo's threads idle while the tile computes) or mixed "
                 "(input along x only)");
    opts.perspective = value == "input"   ? Perspective::Input
                       : value == "mixed" ? Perspective::Mixed
                                          : Perspective::Output;
  } else if (flag == "--spare-plane" || flag == "--register-values") {
    if (value != "on" && value != "off")
      return bad(fmt::format("'{}' is neither on nor off", value),
                 flag == "--spare-plane"
                     ? "--spare-plane on (the default) gives each input ring of stream + "
                       "time_tile, and the plane of a retimed stream kernel, a spare plane, one "
                       "barrier per plane fewer; off saves its shared memory"
                     : "--register-values on has the overlapped kernel compute a value read "
                       "once, at its centre, in its reader's loop, in a register; off (the "
                       "default) gives every value a shared tile");
    (flag == "--spare-plane" ? opts.sparePlane : opts.registerValues) = value == "on";
  } else if (flag == "--index-bits") {
    if (value != "auto" && value != "32" && value != "64")
      return bad(fmt::format("'{}' is not auto, 32 or 64", value),
                 "--index-bits auto (the default) uses 32-bit index arithmetic where the sizes "
                 "of a run allow it; 32 insists on it; 64 never narrows");
    opts.indexBits = value == "auto" ? 0 : value == "32" ? 32 : 64;
  } else if (flag == "--max-registers") {
    if (value == "bounds") {  // the family's launch bounds, no cap (also over a #pragma's)
      opts.maxRegisters = 0;
      return true;
    }
    auto v = parseInt(value);
    if (!v)
      return bad("expected an integer (registers per thread), auto or bounds",
                 "e.g. --max-registers 64, or --max-registers auto for the model's choice");
    // 0 would read as `bounds` and a huge value wrap: a cap is a register count (the machine's
    // range is checked with the schedule, schedule_validate.cpp).
    if (*v < 1 || *v > 65535)
      return bad("not a register cap (registers per thread)",
                 "a cap is from 16 to the machine's 255 registers per thread, e.g. "
                 "--max-registers 64; auto is the model's choice, bounds the family's launch "
                 "bounds");
    opts.maxRegisters = static_cast<int>(*v);
  } else if (flag == "--fma") {
    if (value != "on" && value != "off")
      return bad(fmt::format("'{}' is neither on nor off", value),
                 "--fma (on) contracts a*b+c into fused multiply-adds; without it (off) the "
                 "kernels keep the exact operations");
    opts.fma = value == "on";
  } else if (flag == "--machine") {
    if (value.empty()) return bad("expected a machine name or a machine file");
    opts.machine = std::string(value);
  } else {
    throw std::invalid_argument(fmt::format("setScheduleOption: unknown flag '{}'", flag));
  }
  return true;
}

std::vector<int64_t> defaultBlock(const Schedule& s, const Program& prog) {
  return defaultBlockShape(s.family.value, gridDims(s, prog).size());
}

Schedule buildSchedule(const Program& prog, int stencil, const ScheduleOptions& opts,
                       DiagnosticEngine& diags) {
  if (stencil < 0 || stencil >= static_cast<int>(prog.stencils.size()))
    throw std::out_of_range(fmt::format("buildSchedule: no stencil {}", stencil));
  const StencilDef& def = prog.stencils[stencil];
  Schedule s;
  s.stencil = stencil;

  // 1. The program's hints, clause by clause (a repeated clause: the last one counts).
  std::optional<Setting<StreamSpec>> fileStream;
  for (auto& c : def.hints.clauses) {
    Origin here = Origin::file(c.loc);
    if (c.name == "stream" || c.name == "full_stream") {
      StreamSpec spec{c.words.empty() ? "" : c.words[0], c.name == "full_stream"};
      if (fileStream &&
          (fileStream->value.iterator != spec.iterator || fileStream->value.full != spec.full)) {
        auto& prev = fileStream->value;
        diags.report(DiagId::bad_schedule, c.loc,
                     fmt::format("'{} {}' contradicts '{} {}' ({}): a stencil streams along one "
                                 "iterator",
                                 c.name, spec.iterator, prev.full ? "full_stream" : "stream",
                                 prev.iterator, describe(fileStream->origin)));
        continue;
      }
      fileStream = Setting<StreamSpec>{spec, here};
    } else if (c.name == "block") {
      std::vector<int64_t> b;
      for (double v : c.numbers) b.push_back(static_cast<int64_t>(v));
      s.block = {b, here};
    } else if (c.name == "unroll") {
      UnrollSpec u{c.assignments, UnrollDistribution::Blocked};
      bool blocked = std::count(c.words.begin(), c.words.end(), "blocked") > 0;
      bool cyclic = std::count(c.words.begin(), c.words.end(), "cyclic") > 0;
      if (blocked && cyclic)
        diags.report(DiagId::bad_schedule, c.loc,
                     "'unroll' takes one distribution, 'blocked' or 'cyclic', not both");
      if (cyclic) u.distribution = UnrollDistribution::Cyclic;
      s.unroll = {u, here};
    } else if (c.name == "time_tile" && !c.numbers.empty()) {
      s.timeTile = {static_cast<int64_t>(c.numbers[0]), here};
    } else if (c.name == "max_registers" && !c.numbers.empty()) {
      s.maxRegisters = {static_cast<int>(c.numbers[0]), here};
    } else if (c.name == "index_bits" && !c.numbers.empty()) {
      s.indexBits = {static_cast<int>(c.numbers[0]), here};
    } else if (c.name == "occupancy" && !c.numbers.empty()) {
      s.occupancy = Setting<double>{c.numbers[0], here};
    } else if (c.name == "perspective" && !c.words.empty()) {
      Perspective p = c.words[0] == "input"   ? Perspective::Input
                      : c.words[0] == "mixed" ? Perspective::Mixed
                                              : Perspective::Output;
      s.perspective = Setting<Perspective>{p, here};
    } else if (c.name == "prefetch") {
      s.prefetch = {true, here};
    } else if (c.name == "retime") {
      s.retime = {true, here};
    } else if (c.name == "fold") {
      s.fold = {true, here};
    } else if (c.name == "fuse_statements") {
      s.fuseStatements = {true, here};
    } else if (c.name == "no_shmem") {
      s.noShmem = {true, here};
    }
  }
  // Each placement points at the array's name in its list.
  auto place = [&](const std::vector<Hints::Placed>& placed, PlacementKind k) {
    for (auto& p : placed) s.placements.push_back({p.array, k, Origin::file(p.loc)});
  };
  place(def.hints.shmem, PlacementKind::Shmem);
  place(def.hints.gmem, PlacementKind::Gmem);
  place(def.hints.noShmem, PlacementKind::NoShmem);

  // 2. The command line overrides the file.
  std::optional<Setting<StreamSpec>> cliStream;
  if (opts.stream && opts.fullStream) {
    diags.report(DiagId::bad_schedule, {},
                 fmt::format("--stream {} and --full-stream {} contradict each other: a stencil "
                             "streams along one iterator",
                             *opts.stream, *opts.fullStream),
                 "give one of them: --stream ITER sweeps chunks of planes concurrently "
                 "(--chunk), --full-stream ITER every plane in one block");
  } else if (opts.stream || opts.fullStream) {
    bool full = opts.fullStream.has_value();
    std::string it = full ? *opts.fullStream : *opts.stream;
    cliStream = Setting<StreamSpec>{
        {it, full},
        Origin::commandLine(fmt::format("{} {}", full ? "--full-stream" : "--stream", it))};
  }
  if (opts.family) {
    s.family = {*opts.family,
                opts.familyChosenBy
                    ? Origin::model(*opts.familyChosenBy)
                    : Origin::commandLine(fmt::format("--schedule {}", familyName(*opts.family)))};
    if (!streams(*opts.family) && cliStream)
      diags.report(
          DiagId::bad_schedule, {},
          fmt::format("{} needs a streaming schedule ('stream' or 'global-stream'), but "
                      "--schedule {} was given",
                      cliStream->origin.flag, familyName(*opts.family)),
          fmt::format("drop --schedule {}, or give --schedule stream", familyName(*opts.family)));
  } else if (cliStream) {
    s.family = {ScheduleFamily::Stream, cliStream->origin};
  } else if (fileStream) {
    s.family = {ScheduleFamily::Stream, fileStream->origin};
  }
  if (streams(s.family.value)) {
    bool gs = s.family.value == ScheduleFamily::GlobalStream;
    if (cliStream)
      s.stream = cliStream;
    else if (fileStream)
      s.stream = fileStream;
    else if (prog.dims() > 1 || (gs && prog.dims() > 0))
      // The family's default: the slowest iterator; global-stream: every thread sweeps all of
      // it; stream: in chunks. (A 1-D program has none to stream: `stream` runs as `shared`.)
      s.stream = Setting<StreamSpec>{{prog.iterators[0].name, gs}, Origin::defaulted()};
  }
  if (opts.block)
    s.block = {*opts.block, Origin::commandLine("--block " + joinInts(*opts.block, ","))};
  if (opts.unroll)
    s.unroll = {*opts.unroll, Origin::commandLine("--unroll " + unrollText(*opts.unroll, ","))};
  if (opts.keepDeadStores)
    s.keepDeadStores = {*opts.keepDeadStores,
                        Origin::commandLine(fmt::format("--dead-stores {}",
                                                        *opts.keepDeadStores ? "keep" : "drop"))};
  // On overrides the file; off too (`tessel analyze` predicts a `#pragma`'s optimisations
  // without them that way; the command line's switches only turn them on).
  if (opts.retime) s.retime = {*opts.retime, Origin::commandLine("--retime")};
  if (opts.prefetch) s.prefetch = {*opts.prefetch, Origin::commandLine("--prefetch")};
  if (opts.fold) s.fold = {*opts.fold, Origin::commandLine("--fold")};
  if (opts.fuseStatements && *opts.fuseStatements)
    s.fuseStatements = {true, Origin::commandLine("--fuse-statements")};
  // Fusion groups mean a kernel per group: the families that fuse statements on request do;
  // overlapped does anyway; the others say that they do not.
  if (opts.fusionGroups && *opts.fusionGroups != "none") {
    const bool fuses =
        s.family.value == ScheduleFamily::Global || s.family.value == ScheduleFamily::Stream;
    if (fuses && !s.fuseStatements.value)
      s.fuseStatements = {true, Origin::commandLine("--fusion-groups " + *opts.fusionGroups)};
    const bool several = severalStatements(prog, stencil);
    if (!fuses && s.family.value != ScheduleFamily::Overlapped && several)
      s.adjustments.push_back(fmt::format(
          "stencil '{}': --fusion-groups {}: the '{}' family runs each statement of a group as "
          "a kernel of its own (stream, global and overlapped run a group as one kernel where "
          "its dependences allow)",
          def.name, *opts.fusionGroups, familyName(s.family.value)));
  }
  if (opts.perspective)
    s.perspective = Setting<Perspective>{
        *opts.perspective,
        Origin::commandLine(
            fmt::format("--perspective {}", *opts.perspective == Perspective::Input   ? "input"
                                            : *opts.perspective == Perspective::Mixed ? "mixed"
                                                                                      : "output"))};
  if (opts.sparePlane)
    s.sparePlane = {*opts.sparePlane, Origin::commandLine(fmt::format(
                                          "--spare-plane {}", *opts.sparePlane ? "on" : "off"))};
  if (opts.registerValues)
    s.registerValues = {*opts.registerValues,
                        Origin::commandLine(fmt::format("--register-values {}",
                                                        *opts.registerValues ? "on" : "off"))};
  if (opts.indexBits)
    s.indexBits = {*opts.indexBits,
                   Origin::commandLine(fmt::format(
                       "--index-bits {}", *opts.indexBits == 0 ? std::string("auto")
                                                               : std::to_string(*opts.indexBits)))};
  if (opts.maxRegisters)
    s.maxRegisters = {
        *opts.maxRegisters,
        Origin::commandLine(*opts.maxRegisters == 0
                                ? std::string("--max-registers bounds")
                                : fmt::format("--max-registers {}", *opts.maxRegisters))};
  if (opts.fma) s.fma = {*opts.fma, Origin::commandLine(*opts.fma ? "--fma" : "--fma off")};
  if (opts.timeTile)
    s.timeTile = {*opts.timeTile,
                  Origin::commandLine(fmt::format("--time-tile {}", *opts.timeTile))};
  if (opts.chunk)
    s.chunk = {*opts.chunk, Origin::commandLine(fmt::format("--chunk {}", *opts.chunk))};

  dropFileClausesNotApplied(s, prog);

  // 3. Defaults for what nobody gave.
  if (s.block.value.empty()) s.block.value = defaultBlock(s, prog);
  return s;
}

std::optional<std::vector<Schedule>> buildSchedules(const Program& prog,
                                                    const ScheduleOptions& opts,
                                                    const MachineDesc& m, DiagnosticEngine& diags,
                                                    bool refuseStreamedExcess) {
  std::vector<Schedule> out;
  int before = diags.errorCount();
  for (int i = 0; i < static_cast<int>(prog.stencils.size()); ++i)
    out.push_back(buildSchedule(prog, i, opts, diags));
  if (diags.errorCount() != before) {
    for (const Schedule& s : out) validate(s, prog, m, diags);  // report every error at once
    return std::nullopt;
  }
  // Settings nobody gave explicitly for the family in use adapt until they fit (notes say how).
  fitSchedules(out, prog, m);
  demoteForOccupancy(out, prog, m);
  bool ok = true;
  for (const Schedule& s : out) ok = validate(s, prog, m, diags) && ok;
  if (ok) ok = validateFusion(out, prog, m, diags, refuseStreamedExcess);
  if (!ok) return std::nullopt;
  return out;
}

std::string toString(const Schedule& s, bool origins) {
  std::vector<std::string> parts;
  auto add = [&](std::string text, const Origin& o) {
    parts.push_back(origins ? fmt::format("{} [{}]", text, describe(o)) : text);
  };
  add(familyName(s.family.value), s.family.origin);
  if (s.stream)
    add(fmt::format("{} {}", s.stream->value.full ? "full_stream" : "stream",
                    s.stream->value.iterator),
        s.stream->origin);
  if (s.family.value == ScheduleFamily::Stream && s.stream && !s.stream->value.full)
    add(fmt::format("chunk {}", s.chunk.value), s.chunk.origin);
  add(fmt::format("block ({})", joinInts(s.block.value, ", ")), s.block.origin);
  if (!s.unroll.value.factors.empty())
    add("unroll " + unrollText(s.unroll.value, ", "), s.unroll.origin);
  if (s.timeTile.value != 1) add(fmt::format("time_tile {}", s.timeTile.value), s.timeTile.origin);
  if (s.keepDeadStores.value) add("dead_stores keep", s.keepDeadStores.origin);
  if (!s.sparePlane.value && s.family.value == ScheduleFamily::Stream &&
      (s.timeTile.value > 1 || s.retime.value))
    add("spare_plane off", s.sparePlane.origin);
  if (s.registerValues.value && s.family.value == ScheduleFamily::Overlapped)
    add("register_values on", s.registerValues.origin);
  if (s.fma.value) add("fma", s.fma.origin);
  if (s.maxRegisters.value != 0)
    add(fmt::format("max_registers {}", s.maxRegisters.value), s.maxRegisters.origin);
  if (s.indexBits.value != 0)
    add(fmt::format("index_bits {}", s.indexBits.value), s.indexBits.origin);
  if (s.prefetch.value) add("prefetch", s.prefetch.origin);
  if (s.retime.value) add("retime", s.retime.origin);
  if (s.fold.value) add("fold", s.fold.origin);
  if (s.fuseStatements.value) add("fuse_statements", s.fuseStatements.origin);
  if (s.noShmem.value) add("no_shmem", s.noShmem.origin);
  if (s.occupancy) add(fmt::format("occupancy {}", s.occupancy->value), s.occupancy->origin);
  if (s.perspective) {
    Perspective p = s.perspective->value;
    add(fmt::format("perspective {}", p == Perspective::Input   ? "input"
                                      : p == Perspective::Mixed ? "mixed"
                                                                : "output"),
        s.perspective->origin);
  }
  for (auto& p : s.placements)
    add(fmt::format("{} ({})",
                    p.kind == PlacementKind::Shmem  ? "shmem"
                    : p.kind == PlacementKind::Gmem ? "gmem"
                                                    : "no_shmem",
                    p.array),
        p.origin);
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

std::string settingName(const Origin& o, const std::string& clause) {
  switch (o.kind) {
    case Origin::Kind::CommandLine:
      return o.flag;
    case Origin::Kind::Model:
      return "the model's '" + clause + "'";
    case Origin::Kind::File:
      return "'" + clause + "'";
    case Origin::Kind::Default:
      break;
  }
  return "the default " + clause;
}

}  // namespace tessel
