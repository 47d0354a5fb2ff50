#include "perf/register_estimate.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tessel {

using lir::CType;
using lir::StmtKind;

RegisterFit sm90RegisterFit() {
  // scripts/register_fit.py docs/data/2026-11-27-ptxas-sm90-registers.csv (nvcc 13, sm_90; its
  // `--schedule stream --retime` rows compiled again on 2026-11-29): fitted on the kernels of
  // the fitting half of the benchmarks.
  return {{{"global", 14.02},
           {"global-stream", 18.67},
           {"overlapped", 37.32},
           {"shared", 13.81},
           {"stream", 24.99},
           {"stream + time_tile", 17.02}},
          0.661};
}

namespace {

/// 32-bit registers of one value of type `t`.
int width(CType t) { return std::max(1, lir::byteSize(t) / 4); }
/// The same for a value of language type `t` (ints are `intBits` wide in the kernel).
int width(ScalarType t, int intBits) {
  return t == ScalarType::Int ? intBits / 32 : width(lir::ctypeOf(t));
}

/// ptxas keeps at most about this many registers of loaded values in flight per thread (12
/// doubles): a stretch of more loads issues them in turns. This and kUnrollBudget were chosen
/// on the fitting half (scripts/register_fit.py: 16 to 40 and 300 to 1200 tried).
constexpr int kLoadsInFlight = 24;

/// nvcc unrolls an innermost loop of unknown trip count (one it is not told to keep rolled) up
/// to this factor and issues the copies' loads together (the overlapped family's stage loops),
/// as long as the unrolled body stays within a budget of expression nodes.
constexpr int kRuntimeUnroll = 4;
constexpr int kUnrollBudget = 600;
/// Expression nodes of `body`, statements included.
int nodes(const std::vector<lir::StmtPtr>& body) {
  int n = 0;
  for (const auto& s : body) {
    ++n;
    for (const ExprPtr* e : {&s->lo, &s->hi, &s->step, &s->index, &s->value})
      if (*e) visitExpr(*e, [&](const ExprPtr&) { ++n; });
    for (const auto& a : s->args) visitExpr(a, [&](const ExprPtr&) { ++n; });
    n += nodes(s->body) + nodes(s->orElse);
  }
  return n;
}

/// The copies nvcc makes of an innermost loop with body `body`.
int unrollCopies(const std::vector<lir::StmtPtr>& body) {
  return std::clamp(kUnrollBudget / std::max(1, nodes(body)), 1, kRuntimeUnroll);
}

/// A structural hash of an expression: loads of the same element hash equal (a collision
/// would merely count two loads as one).
uint64_t structuralHash(const ExprPtr& e) {
  uint64_t h = std::hash<std::string>{}(e->name);
  auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(static_cast<uint64_t>(e->kind));
  mix(static_cast<uint64_t>(e->ival));
  mix(std::hash<double>{}(e->fval));
  mix(static_cast<uint64_t>(e->op));
  for (const auto& a : e->args) mix(structuralHash(a));
  return h;
}

/// The liveness walk (register_estimate.h): statements numbered in program order, each named
/// value's interval from its declaration to its last use, loops' intervals, and each statement's
/// straight-line stretch's loads.
class Walk {
 public:
  /// Walks the body of `f`; features() then gives what it counted.
  explicit Walk(const lir::Function& f) : intBits_(f.intBits) {
    openScope();
    walkAll(f.body->body);
    closeStretch();
    closeScope();
  }

  RegisterFeatures features() const {
    // Extend every value used inside a loop that began after its declaration to the loop's end.
    std::vector<Value> values = values_;
    for (Value& v : values)
      if (v.loop >= 0) v.lastUse = std::max(v.lastUse, loopEnd_[static_cast<size_t>(v.loop)]);
    std::vector<int> delta(static_cast<size_t>(pos_) + 2, 0);
    for (const Value& v : values) {
      delta[static_cast<size_t>(v.def)] += v.width;
      delta[static_cast<size_t>(std::max(v.def, v.lastUse)) + 1] -= v.width;
    }
    RegisterFeatures out;
    int live = 0;
    for (int p = 0; p <= pos_; ++p) {
      live += delta[static_cast<size_t>(p)];
      out.namedPeak = std::max(out.namedPeak, live);
      const int loads = p < static_cast<int>(stretchLoads_.size()) ? stretchLoads_[p] : 0;
      out.pressure = std::max(out.pressure, live + std::min(loads, kLoadsInFlight));
    }
    for (int l : stretchLoads_) out.loadsPeak = std::max(out.loadsPeak, l);
    return out;
  }

 private:
  struct Value {
    int def = 0, lastUse = 0, width = 1;
    /// The outermost loop around its last use that began after its declaration (-1: none): it
    /// lives to that loop's end. A later use is in the same loop or a later one, so the last
    /// use's loop ends last.
    int loop = -1;
  };

  int intBits_;
  int pos_ = 0;
  std::vector<Value> values_;
  // Each name's declarations in the scopes open now, innermost last (indices into values_), and
  // per open scope the names it declared: a use looks its name up once, not scope by scope.
  std::unordered_map<std::string, std::vector<size_t>> bound_;
  std::vector<std::vector<const std::string*>> scopes_;
  std::vector<int> loopStart_, loopEnd_;  // per loop, its first and last positions
  std::vector<int> openLoops_;            // the loops around the current position, outermost first
  std::vector<int> stretchLoads_;         // per statement position: its stretch's loaded registers
  int stretchStart_ = 0;
  std::unordered_set<uint64_t> stretchKeys_;
  int stretchWidth_ = 0;
  int copies_ = 1;  // inside an innermost loop the compiler unrolls: its copies

  static bool hasLoop(const std::vector<lir::StmtPtr>& body) {
    for (const auto& s : body)
      if (s->kind == StmtKind::For || hasLoop(s->body) || hasLoop(s->orElse)) return true;
    return false;
  }

  void openScope() { scopes_.emplace_back(); }
  void closeScope() {
    for (const std::string* name : scopes_.back()) bound_.at(*name).pop_back();
    scopes_.pop_back();
  }
  void declare(const std::string& name, int w) {
    values_.push_back({pos_, pos_, w});
    auto it = bound_.try_emplace(name).first;
    it->second.push_back(values_.size() - 1);
    scopes_.back().push_back(&it->first);
  }
  void use(const std::string& name) {
    auto it = bound_.find(name);
    if (it == bound_.end() || it->second.empty()) return;
    Value& v = values_[it->second.back()];
    v.lastUse = pos_;
    v.loop = -1;
    for (int l : openLoops_)
      if (loopStart_[static_cast<size_t>(l)] > v.def) {
        v.loop = l;
        break;
      }
  }
  void expr(const ExprPtr& e) {
    if (!e) return;
    visitExpr(e, [&](const ExprPtr& x) {
      if (x->kind == ExprKind::Var) use(x->name);
      if (x->kind == ExprKind::Load && stretchKeys_.insert(structuralHash(x)).second)
        stretchWidth_ += width(x->type, intBits_);
    });
  }
  /// Ends the straight-line stretch that began at stretchStart_: its statements hold its loads.
  void closeStretch() {
    stretchLoads_.resize(static_cast<size_t>(pos_) + 1, 0);
    const int w = stretchWidth_ * copies_;
    for (int p = stretchStart_; p < pos_; ++p) stretchLoads_[static_cast<size_t>(p)] = w;
    stretchStart_ = pos_;
    stretchKeys_.clear();
    stretchWidth_ = 0;
  }
  void walkAll(const std::vector<lir::StmtPtr>& body) {
    for (const auto& s : body) walk(*s);
  }
  void walk(const lir::Stmt& s) {
    switch (s.kind) {
      case StmtKind::Block:
        openScope();
        walkAll(s.body);
        closeScope();
        return;
      case StmtKind::For: {
        closeStretch();
        expr(s.lo);
        expr(s.hi);
        expr(s.step);
        const int outerCopies = copies_;
        if (s.loop == lir::LoopKind::Serial && !s.rolled && !hasLoop(s.body))
          copies_ = unrollCopies(s.body);
        const int id = static_cast<int>(loopStart_.size());
        loopStart_.push_back(pos_);
        loopEnd_.push_back(pos_);
        openLoops_.push_back(id);
        openScope();
        declare(s.name, intBits_ / 32);
        ++pos_;
        closeStretch();
        walkAll(s.body);
        closeStretch();
        use(s.name);  // the increment and the test at the end of each iteration
        closeScope();
        loopEnd_[static_cast<size_t>(id)] = pos_;
        openLoops_.pop_back();
        copies_ = outerCopies;
        ++pos_;
        closeStretch();
        return;
      }
      case StmtKind::If:
        closeStretch();
        expr(s.value);
        ++pos_;
        closeStretch();
        openScope();
        walkAll(s.body);
        closeScope();
        closeStretch();
        openScope();
        walkAll(s.orElse);
        closeScope();
        closeStretch();
        return;
      case StmtKind::Barrier:
        closeStretch();
        ++pos_;
        closeStretch();
        return;
      case StmtKind::LocalDecl:
        expr(s.value);
        declare(s.name, s.pointer ? 2 : width(s.type));
        ++pos_;
        return;
      case StmtKind::Assign:
        expr(s.value);
        use(s.name);
        ++pos_;
        return;
      default:
        expr(s.index);
        expr(s.value);
        for (const auto& a : s.args) expr(a);
        ++pos_;
        return;
    }
  }
};

}  // namespace

RegisterFeatures registerFeatures(const lir::Function& kernel) { return Walk(kernel).features(); }

int registerCap(const lir::Function& kernel, int64_t registersPerSm, int maxPerThread) {
  if (kernel.maxRegisters > 0) return std::min(kernel.maxRegisters, maxPerThread);
  const int64_t threads = static_cast<int64_t>(kernel.requiredBlock[0]) * kernel.requiredBlock[1] *
                          kernel.requiredBlock[2];
  if (threads <= 0 || kernel.minBlocksPerSm <= 0) return maxPerThread;
  const int64_t warpThreads = (threads + 31) / 32 * 32;
  const int64_t cap = registersPerSm / (kernel.minBlocksPerSm * warpThreads) / 8 * 8;
  return static_cast<int>(std::clamp<int64_t>(cap, 16, maxPerThread));
}

RegisterEstimate estimateRegisters(const lir::Function& kernel, const std::string& family,
                                   const RegisterFit& fit, int64_t registersPerSm,
                                   int maxPerThread) {
  RegisterEstimate e;
  e.features = registerFeatures(kernel);
  e.cap = registerCap(kernel, registersPerSm, maxPerThread);
  double intercept = 0;
  if (auto it = fit.intercept.find(family); it != fit.intercept.end()) {
    intercept = it->second;
  } else if (!fit.intercept.empty()) {
    for (const auto& [f, v] : fit.intercept) intercept += v / fit.intercept.size();
  }
  const double raw = intercept + fit.perPressure * e.features.pressure;
  e.registers = std::clamp(static_cast<int>(std::lround(raw)), std::min(16, e.cap), e.cap);
  return e;
}

nlohmann::json registerEstimateJson(const RegisterEstimate& e) {
  return {{"registers", e.registers},
          {"cap", e.cap},
          {"named_peak", e.features.namedPeak},
          {"loads_peak", e.features.loadsPeak},
          {"pressure", e.features.pressure}};
}

}  // namespace tessel
