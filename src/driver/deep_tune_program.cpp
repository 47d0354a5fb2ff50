// A deep-tuned composition as a program (deep_tune_program.h).
#include "driver/deep_tune_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <set>
#include <stdexcept>

#include "ir/expr.h"
#include "ir/print_program.h"

namespace tessel {

namespace {

void collect(const std::vector<ExecNode>& nodes, const ParamValues& params, size_t limit,
             std::vector<int>& out) {
  for (const ExecNode& n : nodes) {
    if (out.size() >= limit) return;
    if (n.kind == ExecNode::Kind::Call) {
      out.push_back(n.call);
      continue;
    }
    const int64_t lo = evalInt(n.lo, params), hi = evalInt(n.hi, params);
    for (int64_t t = lo; t <= hi && out.size() < limit; ++t) collect(n.body, params, limit, out);
  }
}

/// The `#pragma` clauses of a stencil whose calls fuse `degree` steps under `flags`.
std::string pragmaFor(const Program& prog, const std::map<std::string, std::string>& flags,
                      int degree) {
  auto flag = [&](const char* f) {
    auto it = flags.find(f);
    return it == flags.end() ? std::string() : it->second;
  };
  if (flag("--schedule") == "overlapped") return fmt::format("time_tile {}", degree);
  const std::string tile = degree > 1 ? fmt::format(" time_tile {}", degree) : "";
  std::string stream = "stream " + prog.iterators.at(0).name;
  if (!flag("--full-stream").empty())
    stream = "full_stream " + flag("--full-stream");
  else if (!flag("--stream").empty())
    stream = "stream " + flag("--stream");
  return stream + tile;
}

/// The shortest run of `steps[first, first + length)` that repeats over all of it (each step
/// the one p before it) and is a whole number of kernels of `degree` steps, at most half of
/// `length` and 64 kernels; 0 if none.
size_t repeatingRun(const std::vector<int>& steps, size_t first, size_t length, size_t degree) {
  for (size_t p = degree; 2 * p <= length && p <= 64 * degree; p += degree) {
    bool repeats = true;
    for (size_t k = first + p; k < first + length && repeats; ++k)
      repeats = steps[k] == steps[k - p];
    if (repeats) return p;
  }
  return 0;
}

/// Calls `f` on every expression of `prog`'s declarations, calls and loop bounds, which it may
/// replace (not on the parameters' defaults).
template <typename F>
void forEachExpr(Program& prog, F&& f) {
  auto domain = [&](Domain& d) {
    for (Range& r : d) {
      f(r.lo);
      f(r.hi);
    }
  };
  for (ArrayDecl& a : prog.arrays)
    for (ExprPtr& e : a.extents) f(e);
  for (CallInst& c : prog.calls) {
    domain(c.domain);
    for (LocalArray& l : c.localArrays)
      for (ExprPtr& e : l.extents) f(e);
    for (InitLocal& l : c.inits) f(l.value);
    for (Stmt& st : c.stmts) {
      f(st.lhs);
      f(st.rhs);
      if (st.domain) domain(*st.domain);
    }
  }
  std::vector<std::vector<ExecNode>*> lists = {&prog.body};
  while (!lists.empty()) {
    std::vector<ExecNode>& nodes = *lists.back();
    lists.pop_back();
    for (ExecNode& n : nodes)
      if (n.kind == ExecNode::Kind::Iterate) {
        f(n.lo);
        f(n.hi);
        lists.push_back(&n.body);
      }
  }
}

/// The parameters `e` reads, into `used`.
void paramsRead(const ExprPtr& e, std::set<int>& used) {
  visitExpr(e, [&](const ExprPtr& x) {
    if (x->kind == ExprKind::ParamRef) used.insert(x->index);
  });
}

/// `e` with each parameter index p read as index[p].
ExprPtr renumberParams(const ExprPtr& e, const std::vector<int>& index) {
  auto copy = std::make_shared<Expr>(*e);
  if (e->kind == ExprKind::ParamRef) copy->index = index.at(static_cast<size_t>(e->index));
  for (ExprPtr& a : copy->args) a = renumberParams(a, index);
  return copy;
}

/// The parameters the bounds of `nodes`' loops read, into `used`.
void loopBoundParams(const std::vector<ExecNode>& nodes, std::set<int>& used) {
  for (const ExecNode& n : nodes)
    if (n.kind == ExecNode::Kind::Iterate) {
      paramsRead(n.lo, used);
      paramsRead(n.hi, used);
      loopBoundParams(n.body, used);
    }
}

/// Leaves the parameters of `candidates` that nothing in `prog` reads out of it (the written
/// program's defaults are literals), renumbering the others; returns their names.
std::vector<std::string> dropUnreadParams(Program& prog, const std::set<int>& candidates) {
  std::set<int> used;
  forEachExpr(prog, [&](ExprPtr& e) { paramsRead(e, used); });
  std::vector<int> index(prog.params.size(), -1);
  std::vector<Param> kept;
  std::vector<std::string> dropped;
  for (size_t p = 0; p < prog.params.size(); ++p) {
    if (candidates.count(static_cast<int>(p)) && !used.count(static_cast<int>(p))) {
      dropped.push_back(prog.params[p].name);
      continue;
    }
    index[p] = static_cast<int>(kept.size());
    kept.push_back(prog.params[p]);
  }
  prog.params = std::move(kept);
  forEachExpr(prog, [&](ExprPtr& e) { e = renumberParams(e, index); });
  return dropped;
}

/// The command line that runs the written program as deep-tune ran its versions.
std::string runFlags(const std::map<std::string, std::string>& flags) {
  std::string out;
  for (const auto& [f, v] : flags) {
    if (v.empty() || f == "--time-tile" || f == "--stream" || f == "--full-stream" ||
        f == "--schedule-chosen-by")
      continue;
    if (f == "--schedule" && v != "overlapped") continue;  // the pragmas say stream
    out += v == "on" ? " " + f : fmt::format(" {} {}", f, v);
  }
  return out;
}

}  // namespace

std::vector<int> executedCalls(const Program& prog, const ParamValues& params, size_t limit) {
  std::vector<int> out;
  collect(prog.body, params, limit, out);
  return out;
}

SplitResult writeComposedProgram(const Program& prog, const std::string& file,
                                 const ParamValues& params, const FusionComposition& composition,
                                 const std::map<std::string, std::string>& flags,
                                 const std::string& dir, const std::vector<std::string>& notes) {
  SplitResult r;
  const std::vector<int> steps =
      executedCalls(prog, params, static_cast<size_t>(kMaxComposedSteps) + 1);
  const int64_t covered =
      std::accumulate(composition.parts.begin(), composition.parts.end(), int64_t{0});
  std::vector<std::string> values;
  for (size_t p = 0; p < prog.params.size() && p < params.size(); ++p)
    values.push_back(fmt::format("{}={}", prog.params[p].name, params[p]));
  if (steps.size() > static_cast<size_t>(kMaxComposedSteps)) {
    r.error = fmt::format("the run executes more than {} calls at {}: too many to write out",
                          kMaxComposedSteps, fmt::join(values, ", "));
    r.hint = "give smaller loop bounds with --param";
    return r;
  }
  if (covered != static_cast<int64_t>(steps.size())) {
    r.error =
        fmt::format("the composition {} covers {} steps, but the run executes {} call{} at {}",
                    composition.text(), covered, steps.size(), steps.size() == 1 ? "" : "s",
                    fmt::join(values, ", "));
    r.hint =
        fmt::format("give --steps {} (or leave --steps out) to write the program", steps.size());
    return r;
  }
  // One call per (call of the input, degree) pair, in the order of first use.
  // The parameters default to the values written for (the loops are written out).
  Program out = prog;
  for (size_t p = 0; p < out.params.size() && p < params.size(); ++p)
    out.params[p].defaultValue = intLit(params[p]);
  out.calls.clear();
  out.body.clear();
  std::map<std::pair<int, int>, int> copies;
  std::vector<std::string> pragmas;
  auto callNode = [&](int c, int degree) {
    auto [it, added] = copies.try_emplace({c, degree}, static_cast<int>(out.calls.size()));
    if (added) {
      CallInst call = prog.calls.at(static_cast<size_t>(c));
      call.name = fmt::format("{}_x{}", call.name, degree);
      out.calls.push_back(std::move(call));
      pragmas.push_back(pragmaFor(prog, flags, degree));
    }
    ExecNode n;
    n.kind = ExecNode::Kind::Call;
    n.call = it->second;
    return n;
  };
  // Each part's steps (a degree, the kernels of it in a row): a loop over the shortest repeating
  // run of them that is a whole number of kernels, where it repeats at least twice, then the
  // steps left over in a row.
  size_t s = 0, loops = 0;
  for (size_t i = 0; i < composition.parts.size();) {
    const int degree = composition.parts[i];
    size_t j = i;
    while (j < composition.parts.size() && composition.parts[j] == degree) ++j;
    const size_t length = (j - i) * static_cast<size_t>(degree);
    const size_t period = repeatingRun(steps, s, length, static_cast<size_t>(degree));
    const size_t iterations = period > 0 ? length / period : 0;
    if (iterations >= 2) {
      ExecNode loop;
      loop.kind = ExecNode::Kind::Iterate;
      loop.lo = intLit(1);
      loop.hi = intLit(static_cast<int64_t>(iterations));
      for (size_t k = 0; k < period; ++k) loop.body.push_back(callNode(steps[s + k], degree));
      out.body.push_back(std::move(loop));
      ++loops;
      s += iterations * period;
    }
    for (const size_t end = s + (length - (iterations >= 2 ? iterations * period : 0)); s < end;
         ++s)
      out.body.push_back(callNode(steps[s], degree));
    i = j;
  }
  size_t written = 0;
  for (const ExecNode& n : out.body) written += n.kind == ExecNode::Kind::Call ? 1 : n.body.size();
  if (written > static_cast<size_t>(kMaxWrittenCalls)) {
    r.error = fmt::format(
        "the composition {} of the run at {} takes {} calls to write (its steps do not repeat "
        "as whole kernels): more than {}",
        composition.text(), fmt::join(values, ", "), written, kMaxWrittenCalls);
    r.hint = "give smaller loop bounds with --param";
    return r;
  }
  // The run's steps are written out: a parameter only the input's loop bounds read does nothing
  // here, and is left out (a value given for it is an error, not ignored); one that stays
  // (it sizes an array, say) does not change the steps.
  std::set<int> bounds;
  loopBoundParams(prog.body, bounds);
  for (auto it = bounds.begin(); it != bounds.end();)  // an iterate's own: not declared
    it = prog.params.at(static_cast<size_t>(*it)).fromIterate ? bounds.erase(it) : std::next(it);
  const std::vector<std::string> dropped = dropUnreadParams(out, bounds);
  std::vector<std::string> stay;  // read by the input's loop bounds and by something else
  for (int p : bounds)
    if (std::find(dropped.begin(), dropped.end(), prog.params.at(static_cast<size_t>(p)).name) ==
        dropped.end())
      stay.push_back(prog.params.at(static_cast<size_t>(p)).name);
  const std::string name = std::filesystem::path(file).stem().string() + "-deep-tuned.sten";
  std::string header = fmt::format(
      "// {} written by `tessel deep-tune` from {}: the composition {} of the run at {}\n"
      "// ({} steps, written out; the parameters default to those values{}{}).\n"
      "// Each call is a stencil of its own; its #pragma fuses the steps of the composition's "
      "part\n"
      "// it belongs to (parts in order, largest first); a part's steps are a loop where they\n"
      "// repeat as whole kernels ({} loop{} here), and a run of fused calls ends where the time\n"
      "// tile changes. The input's #pragma hints are not carried over.\n"
      "// Run it as deep-tune ran the versions: tessel run {}{}\n",
      name, file, composition.text(), fmt::join(values, ", "), steps.size(),
      dropped.empty()
          ? ""
          : fmt::format("; {}, which only the loop bounds read, {} left out",
                        fmt::join(dropped, " and "), dropped.size() == 1 ? "is" : "are"),
      stay.empty() ? ""
                   : fmt::format("; a value given for {} does not change the steps",
                                 fmt::join(stay, " or ")),
      loops, loops == 1 ? "" : "s", name, runFlags(flags));
  for (const std::string& n : notes) header += "// " + n + "\n";
  std::string text;
  try {
    text = programSource(out, header, pragmas);
  } catch (const std::invalid_argument& e) {
    r.error = fmt::format("cannot write the composed program: {}", e.what());
    r.hint = "mark no arguments inout: in the stencils to compose";
    return r;
  }
  writeProgramText(dir, name, text, r);
  if (!r.path.empty()) r.calls = out.calls.size();
  return r;
}

}  // namespace tessel
