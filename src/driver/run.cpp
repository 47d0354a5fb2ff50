#include "driver/run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "analysis/bounds.h"
#include "analysis/counts.h"
#include "analysis/float_math.h"
#include "driver/backend.h"
#include "driver/params.h"
#include "runtime/data.h"
#include "runtime/interpreter.h"
#include "runtime/npy.h"

namespace tessel {

namespace {

/// This machine's memory in bytes (0 where the system does not say).
double physicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0;
}

/// Whether the run's arrays fit this machine's memory. A run holds each global array as 8-byte
/// values at least twice (the initial data and a backend's results; with --verify a third
/// time), and a call's local arrays while it runs: a size that cannot fit is the user's error,
/// said with the largest arrays, not a failed allocation deep inside.
bool fitsMemory(const Program& prog, const ParamValues& params, bool verify,
                DiagnosticEngine& diags) {
  const double memory = physicalMemory();
  if (memory <= 0) return true;
  struct Sized {
    std::string name;
    double elements;
  };
  std::vector<Sized> arrays;
  auto elements = [&](const std::vector<ExprPtr>& extents) {
    double n = 1;
    for (const ExprPtr& e : extents)
      n *= static_cast<double>(std::max<int64_t>(0, evalInt(e, params)));
    return n;
  };
  double globals = 0;
  for (const ArrayDecl& a : prog.arrays) {
    arrays.push_back({a.name, elements(a.extents)});
    globals += arrays.back().elements;
  }
  double locals = 0;  // the largest call's local arrays
  for (const CallInst& c : prog.calls) {
    double mine = 0;
    for (const LocalArray& l : c.localArrays) {
      const Sized local{c.name + "'s " + l.name, elements(l.extents)};
      mine += local.elements;
      if (std::none_of(arrays.begin(), arrays.end(), [&](const Sized& a) {
            return a.name == local.name && a.elements == local.elements;
          }))
        arrays.push_back(local);
    }
    locals = std::max(locals, mine);
  }
  const double bytes = 8 * (globals * (verify ? 3 : 2) + locals);
  if (bytes <= memory) return true;
  std::sort(arrays.begin(), arrays.end(),
            [](const Sized& a, const Sized& b) { return a.elements > b.elements; });
  std::string largest;
  for (size_t i = 0; i < arrays.size() && i < 3 && arrays[i].elements >= arrays[0].elements / 100;
       ++i)
    largest +=
        fmt::format("{}'{}' {:.4g} elements", i ? ", " : "", arrays[i].name, arrays[i].elements);
  diags.report(DiagId::bad_parameter_value, {},
               fmt::format("the run's arrays need about {:.3g} GiB at these parameter values, "
                           "more than this machine's {:.3g} GiB of memory (largest: {})",
                           bytes / (1ull << 30), memory / (1ull << 30), largest),
               "give smaller sizes with --param (tessel info shows each array's extents)");
  return false;
}

/// Why `v` cannot be a value of type `t` ("" where it can): an int must be finite and within
/// 32 bits (and, given on the command line, `whole`: an integer), a float within float's range
/// (an infinity or NaN given as such stays one).
std::string misfit(ScalarType t, double v, bool whole) {
  if (t == ScalarType::Int) {
    if (!std::isfinite(v)) return fmt::format("{} is not a number an int can hold", v);
    if (v < -2147483648.0 || v > 2147483647.0)
      return fmt::format("{} does not fit in an int's 32 bits", v);
    if (whole && v != std::trunc(v)) return fmt::format("{} is not an integer", v);
  }
  if (t == ScalarType::Float && std::isfinite(v) &&
      std::abs(v) > static_cast<double>(std::numeric_limits<float>::max()))
    return fmt::format("{} is beyond a float's range (it would be infinite)", v);
  return {};
}

bool applyInputs(const Program& prog, const RunOptions& opts, ProgramState& st,
                 DiagnosticEngine& diags) {
  bool ok = true;
  std::vector<std::string> arrayNames, scalarNames;
  for (auto& a : prog.arrays) arrayNames.push_back(a.name);
  for (auto& s : prog.scalars) scalarNames.push_back(s.name);
  // A name the program lacks: the closest of the right kind, or the option that takes what it
  // names (an array given to --scalar, a scalar or parameter to --input).
  auto unknown = [&](const std::string& opt, const std::string& n, const char* what,
                     const std::vector<std::string>& names) {
    std::string hint;
    if (prog.findArray(n) >= 0)
      hint = fmt::format("'{}' is an array: give it with --input {}=FILE.npy", n, n);
    else if (prog.findScalar(n) >= 0)
      hint = fmt::format("'{}' is a scalar: give it with --scalar {}=VALUE", n, n);
    else if (std::any_of(prog.params.begin(), prog.params.end(),
                         [&](const auto& p) { return p.name == n; }))
      hint = fmt::format("'{}' is a parameter: give it with --param {}=VALUE", n, n);
    else if (auto best = closestName(n, names))
      hint = fmt::format("did you mean '{}'?", *best);
    diags.report(DiagId::undeclared, {},
                 fmt::format("{} {}: the program has no {} '{}'", opt, n, what, n), hint);
    ok = false;
  };
  for (auto& [n, v] : opts.scalars) {
    int idx = prog.findScalar(n);
    if (idx < 0) {
      unknown("--scalar", n, "scalar", scalarNames);
      continue;
    }
    const ScalarType type = prog.scalars[idx].type;
    if (std::string why = misfit(type, v, true); !why.empty()) {
      diags.report(DiagId::bad_parameter_value, {},
                   fmt::format("--scalar {}: '{}' is {}, and {}", n, n, typeName(type), why));
      ok = false;
      continue;
    }
    st.scalars[idx] = convertTo(type, v);
  }
  for (auto& [n, path] : opts.inputs) {
    int idx = prog.findArray(n);
    if (idx < 0) {
      unknown("--input", n, "array", arrayNames);
      continue;
    }
    ArrayData in;
    try {
      in = readNpy(path);
    } catch (const std::exception& e) {
      diags.report(DiagId::bad_call_argument, {}, fmt::format("--input {}: {}", n, e.what()));
      ok = false;
      continue;
    }
    ArrayData& dst = st.arrays[idx];
    if (in.shape != dst.shape) {
      auto shapeStr = [](const std::vector<int64_t>& s) {
        std::string r;
        for (auto x : s) r += (r.empty() ? "" : ", ") + std::to_string(x);
        return "(" + r + ")";
      };
      diags.report(DiagId::bad_call_argument, {},
                   fmt::format("--input {}: '{}' has shape {}, but '{}' has shape {} at these "
                               "parameter values",
                               n, path, shapeStr(in.shape), n, shapeStr(dst.shape)),
                   "set the sizes with --param to match the file");
      ok = false;
      continue;
    }
    for (size_t i = 0; i < in.values.size(); ++i) {
      if (std::string why = misfit(dst.type, in.values[i], false); !why.empty()) {
        diags.report(DiagId::bad_call_argument, {},
                     fmt::format("--input {}: '{}' is {}, and element {} (flat index) of '{}': {}",
                                 n, n, typeName(dst.type), i, path, why),
                     "convert the data to the array's type first (numpy: astype)");
        ok = false;
        break;
      }
      dst.values[i] = convertTo(dst.type, in.values[i]);
    }
  }
  return ok;
}

// The arrays a run produces: the copyout list, or if it is empty every array some call writes.
std::vector<int> resultArrays(const Program& prog) {
  std::vector<int> out;
  for (size_t i = 0; i < prog.arrays.size(); ++i)
    if (prog.arrays[i].data.copyout) out.push_back(static_cast<int>(i));
  if (!out.empty()) return out;
  for (auto& c : prog.calls)
    for (auto& s : c.stmts)
      if (s.lhs->kind == ExprKind::ArrayRef && !s.lhs->array.local &&
          std::find(out.begin(), out.end(), s.lhs->array.index) == out.end())
        out.push_back(s.lhs->array.index);
  return out;
}

std::string timeStr(double s) {
  if (s < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

}  // namespace

double contractedTolerance(ScalarType t) { return t == ScalarType::Float ? 1e-4 : 1e-10; }

int runProgram(const Program& prog, const RunOptions& opts, Backend& backend,
               DiagnosticEngine& diags, std::ostream& report) {
  // The text report goes to `report` as it is made (so that an error still shows what ran);
  // with opts.json the same facts are collected in `j` and printed at the end instead.
  std::ostringstream discarded;
  std::ostream& out = opts.json ? discarded : report;
  nlohmann::json j;
  auto params = bindParams(prog, opts.params, diags);
  if (!params) return kExitUserError;
  if (!checkBounds(prog, *params, diags)) return kExitUserError;
  if (!fitsMemory(prog, *params, opts.verify, diags)) return kExitUserError;
  if (opts.repeat < 1) {
    diags.report(DiagId::bad_parameter_value, {}, "--repeat must be at least 1");
    return kExitUserError;
  }
  ProgramState initial = makeState(prog, *params, opts.seed);
  if (!applyInputs(prog, opts, initial, diags)) return kExitUserError;

  std::string ps;
  for (size_t i = 0; i < prog.params.size(); ++i)
    ps += (ps.empty() ? "" : ", ") + prog.params[i].name + "=" + std::to_string((*params)[i]);
  out << fmt::format("program      {}\n", prog.file ? prog.file->name() : "");
  j["program"] = prog.file ? prog.file->name() : "";
  for (size_t i = 0; i < prog.params.size(); ++i)
    j["parameters"][prog.params[i].name] = (*params)[i];
  j["backend"] = backend.name();
  j["backend_description"] = backend.description();
  // The backend's notes (the description's lines after the first), also one by one.
  j["notes"] = nlohmann::json::array();
  {
    std::istringstream lines(backend.description());
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line))
      if (const size_t at = line.find("note: "); at != std::string::npos)
        j["notes"].push_back(line.substr(at + 6));
  }
  j["generated"] = backend.generatedCode();
  if (opts.tuned)
    j["tuned"] = {{"fusion", opts.tuned->fusion},
                  {"schedule", opts.tuned->schedule},
                  {"measured_seconds", opts.tuned->seconds},
                  {"measured_at", opts.tuned->measuredAt},
                  {"db", opts.tuned->db}};
  out << fmt::format("parameters   {}\n", ps.empty() ? "(none)" : ps);

  out << fmt::format("backend      {}\n", backend.description());
  if (!backend.generatedCode().empty())
    out << fmt::format("generated    {}\n", backend.generatedCode());

  // Each scalar as its type writes it (an int in full, a bool as true or false).
  std::string scalars;
  j["seed"] = opts.seed;
  j["scalars"] = nlohmann::json::object();
  for (size_t i = 0; i < prog.scalars.size(); ++i) {
    const double v = initial.scalars[i];
    const ScalarType t = prog.scalars[i].type;
    scalars += (scalars.empty() ? "" : ", ") + prog.scalars[i].name + "=" +
               (t == ScalarType::Int    ? fmt::format("{}", static_cast<int64_t>(v))
                : t == ScalarType::Bool ? std::string(v != 0 ? "true" : "false")
                                        : fmt::format("{:.6g}", v));
    j["scalars"][prog.scalars[i].name] = t == ScalarType::Int
                                             ? nlohmann::json(static_cast<int64_t>(v))
                                         : t == ScalarType::Bool ? nlohmann::json(v != 0)
                                                                 : nlohmann::json(v);
  }
  if (!scalars.empty())
    out << fmt::format("scalars      {}{}\n", scalars,
                       opts.scalars.size() < prog.scalars.size()
                           ? fmt::format("  (random ones from --seed {})", opts.seed)
                           : "");

  // One untimed warm-up run: the first run of a compiled backend pays for thread start-up.
  if (backend.name() != "reference") {
    ProgramState warm = initial;
    backend.run(warm);
  }
  ProgramState result;
  std::vector<double> times;
  for (int r = 0; r < opts.repeat; ++r) {
    ProgramState st = initial;
    times.push_back(backend.run(st));
    if (r == 0) result = std::move(st);
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();  // the median: the middle time, or the mean of the middle two
  const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  Work w = programWork(prog, *params);
  j["time_s"] = median;
  j["min_time_s"] = sorted.front();
  j["times_s"] = times;
  j["stencil_points"] = w.stencilPoints;
  j["flops"] = w.flops;
  j["gstencils_per_s"] = median > 0 ? w.stencilPoints / median * 1e-9 : 0.0;
  j["gflops_per_s"] = median > 0 ? w.flops / median * 1e-9 : 0.0;
  out << fmt::format("time         {}{}\n", timeStr(median),
                     opts.repeat > 1 ? fmt::format(" (median of {} runs; min {})", opts.repeat,
                                                   timeStr(sorted.front()))
                                     : "");
  if (median > 0)
    out << fmt::format(
        "throughput   {:.3f} GStencil/s, {:.3f} GFLOP/s  ({:.4g} stencil points, "
        "{:.4g} FLOPs)\n",
        w.stencilPoints / median * 1e-9, w.flops / median * 1e-9, w.stencilPoints, w.flops);

  int code = kExitOk;
  const Program& written = opts.reference ? *opts.reference : prog;
  std::vector<int> results = resultArrays(written);
  if (opts.verify) {
    std::optional<ProgramState> computed;
    std::optional<ProgramState>& cached = opts.referenceCache ? *opts.referenceCache : computed;
    if (!cached) {
      cached = initial;
      cached->arrays.resize(written.arrays.size());  // without the transformation's temporaries
      interpret(written, *cached);
    }
    const ProgramState& ref = *cached;
    double worst = 0;
    std::string failures;
    nlohmann::json differing = nlohmann::json::array();
    // GPU float built-ins are not correctly rounded (analysis/float_math.h): a double array that
    // carries one's value agrees to float precision.
    const bool gpu = backend.name() == "opencl" || backend.name() == "cuda";
    const std::vector<bool> floatMath = gpu ? floatMathArrays(written) : std::vector<bool>{};
    std::vector<std::string> floatPrecision;
    for (int a : results) {
      ScalarType type = prog.arrays[a].type;
      const bool carriesFloatMath =
          type == ScalarType::Double && static_cast<size_t>(a) < floatMath.size() && floatMath[a];
      const ScalarType compareAs = carriesFloatMath ? ScalarType::Float : type;
      double tol = opts.tolerance >= 0 ? opts.tolerance
                   : opts.contracted   ? contractedTolerance(compareAs)
                                       : defaultTolerance(compareAs);
      if (carriesFloatMath && opts.tolerance < 0) floatPrecision.push_back(prog.arrays[a].name);
      CompareResult cr = compareArrays(result.arrays[a], ref.arrays[a], tol, opts.contracted);
      worst = std::max(worst, cr.maxRelErr);
      if (!cr.ok) {
        std::string idx;
        for (auto x : cr.worstIndex) idx += (idx.empty() ? "" : ", ") + std::to_string(x);
        differing.push_back({{"array", prog.arrays[a].name},
                             {"index", cr.worstIndex},
                             {"got", cr.got},
                             {"expected", cr.expected},
                             {"relative_error", cr.maxRelErr},
                             {"tolerance", tol},
                             {"mismatches", cr.mismatches}});
        failures += fmt::format(
            "  '{}' differs at [{}]: got {:.17g}, expected {:.17g} (relative error {:.3g} > "
            "tolerance {:.1g}); {} element{} over tolerance\n",
            prog.arrays[a].name, idx, cr.got, cr.expected, cr.maxRelErr, tol, cr.mismatches,
            cr.mismatches == 1 ? "" : "s");
      }
    }
    j["verification"] = {{"passed", failures.empty()}, {"max_relative_error", worst}};
    if (!floatPrecision.empty()) j["verification"]["float_precision_arrays"] = floatPrecision;
    const std::string floatNote =
        floatPrecision.empty()
            ? ""
            : fmt::format(
                  "  ({} computed from float math functions, which the {} built-ins do "
                  "not round correctly: compared to float precision, {:.0e}; --tolerance "
                  "sets another)\n",
                  fmt::join(floatPrecision, ", "), backend.name() == "cuda" ? "CUDA" : "OpenCL",
                  opts.contracted ? contractedTolerance(ScalarType::Float)
                                  : defaultTolerance(ScalarType::Float));
    if (!failures.empty()) {
      j["verification"]["failures"] = failures;
      j["verification"]["arrays"] = differing;
    }
    if (failures.empty()) {
      out << fmt::format(
          "verification PASSED: {} {} the reference interpreter (max relative error {:.3g}{})\n",
          results.size(), results.size() == 1 ? "array matches" : "arrays match", worst,
          opts.contracted
              ? "; --fma or --retime: relative to each array's largest magnitude where an "
                "element is smaller"
              : "");
      out << floatNote;
    } else {
      out << "verification FAILED against the reference interpreter"
          << (opts.contracted
                  ? " (--fma or --retime: errors relative to each array's largest magnitude where "
                    "an element is smaller)"
                  : "")
          << ":\n"
          << failures << floatNote;
      code = kExitVerifyFailed;
    }
  }
  if (!opts.outputDir.empty()) {
    std::filesystem::create_directories(opts.outputDir);
    for (int a : results) {
      std::string path =
          (std::filesystem::path(opts.outputDir) / (prog.arrays[a].name + ".npy")).string();
      writeNpy(path, result.arrays[a]);
    }
    j["output"] = opts.outputDir;
    out << fmt::format("output       {} array{} written to {}/ as NAME.npy\n", results.size(),
                       results.size() == 1 ? "" : "s", opts.outputDir);
  }
  if (opts.json) report << j.dump(2) << "\n";
  return code;
}

}  // namespace tessel
