#include "codegen/lower_gpu_staged.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessel::gpu {

using namespace lir;

namespace {

/// "m1", "0", "p2": a plane offset in a name.
std::string offsetTag(int64_t o) {
  return o < 0 ? fmt::format("m{}", -o) : o > 0 ? fmt::format("p{}", o) : "0";
}

/// "k-1", "k", "k+2".
std::string planeText(const std::string& iter, int64_t o) {
  return o == 0 ? iter : fmt::format("{}{:+}", iter, o);
}

}  // namespace

StagedKernel::StagedKernel(const Program& prog, const CallInst& call, const tessel::Stmt& st,
                           const GlobalNames& g, const GridShape& grid,
                           const std::vector<std::string>& lo, const std::vector<std::string>& hi,
                           Namer& scope, KernelSite& site)
    : prog_(prog), call_(call), g_(g), grid_(grid), lo_(lo), hi_(hi), site_(site) {
  int n = prog.dims();
  std::vector<int64_t> tile(static_cast<size_t>(n), 1);
  for (size_t gd = 0; gd < grid.iters.size(); ++gd) tile[grid.iters[gd]] = grid.tile(gd);
  staging_ = planStaging(prog, call, st, tile, grid.stream);
  t0_.assign(static_cast<size_t>(n), "");
  for (int it : grid.iters) t0_[it] = scope.take("t0_" + g.iters[it]);
  for (size_t gd = 0; gd < grid.iters.size(); ++gd) threads_ *= grid.block[gd];
  tid_ = scope.take("tid");
  elem_ = scope.take("e");
  for (int d = 0; d < n; ++d) coord_.push_back(scope.take("x_" + g.iters[d]));
  for (size_t gd = 0; gd < grid.iters.size(); ++gd)
    unroll_.push_back(grid.unroll[gd] > 1 ? scope.take("u_" + g.iters[grid.iters[gd]]) : "");
  if (grid.stream >= 0) {
    cs_ = scope.take("first_" + g.iters[grid.stream]);
    ce_ = scope.take("last_" + g.iters[grid.stream]);
  }
  for (auto& p : staging_.groups) {
    GroupNames nm;
    if (p.sharedElements() > 0) nm.shared = scope.take("s_" + p.group.name);
    for (int64_t o = p.regLo; o <= p.regHi; ++o)
      nm.regs.push_back(scope.take(fmt::format("r_{}_{}", p.group.name, offsetTag(o))));
    names_.push_back(nm);
  }
}

int StagedKernel::group(const Expr& ref) const {
  for (size_t i = 0; i < staging_.groups.size(); ++i) {
    const StageGroup& grp = staging_.groups[i].group;
    if (!(grp.array == ref.array) || grp.iters.size() != ref.subs.size()) continue;
    bool same = true;
    for (size_t p = 0; p < ref.subs.size(); ++p)
      same = same && grp.iters[p] == ref.subs[p].iter &&
             (!ref.subs[p].fixed() || grp.fixed[p] == ref.subs[p].offset);
    if (same) return static_cast<int>(i);
  }
  return -1;
}

ExprPtr StagedKernel::iterVar(int d) const { return var(g_.iters.at(d), ScalarType::Int); }

ExprPtr StagedKernel::tileIndex(const StagePlan& p, const std::vector<int64_t>& offsets) const {
  ExprPtr acc;
  const StageGroup& grp = p.group;
  for (size_t s = 0; s < grp.iters.size(); ++s) {
    int d = grp.iters[s];
    if (d < 0 || static_cast<int>(s) == p.streamPos) continue;
    ExprPtr c =
        indexAddConst(indexSub(iterVar(d), var(t0_[d], ScalarType::Int)), offsets[s] - p.first[s]);
    acc = acc ? indexAdd(indexMul(acc, intLit(p.extent[s])), c) : c;
  }
  return acc ? acc : intLit(0);
}

ExprPtr StagedKernel::globalIndex(const StagePlan& p, const std::vector<ExprPtr>& coords) {
  const auto& ext = prog_.extents(call_, p.group.array);
  ExprPtr acc;
  for (size_t s = 0; s < coords.size(); ++s)
    acc = acc ? indexAdd(indexMul(acc, site_.kernelIndex(ext[s])), coords[s]) : coords[s];
  return acc ? acc : intLit(0);
}

ExprPtr StagedKernel::inArray(const StagePlan& p, const std::vector<ExprPtr>& coords) {
  const auto& ext = prog_.extents(call_, p.group.array);
  ExprPtr ok;
  for (size_t s = 0; s < coords.size(); ++s) {
    if (p.group.iters[s] < 0) continue;  // a constant index lies inside (sema)
    ok = allOf(ok, binary(Op::Le, intLit(0), coords[s]));
    ok = allOf(ok, binary(Op::Lt, coords[s], site_.kernelIndex(ext[s])));
  }
  return ok ? ok : boolLit(true);
}

ExprPtr StagedKernel::slotOf(const StagePlan& p, const ExprPtr& plane) const {
  if (p.sharedPlanes() == 1) return intLit(0);
  return binary(Op::Mod, plane, intLit(p.sharedPlanes()));
}

std::vector<StmtPtr> StagedKernel::loadTile(size_t gi, const ExprPtr& plane, const ExprPtr& slot,
                                            const std::string& ownReg) {
  const StagePlan& p = staging_.groups[gi];
  const StageGroup& grp = p.group;
  size_t n = grp.iters.size();
  // Row-major over the tile's subscripts (the last fastest); the outermost needs no modulo.
  std::vector<int64_t> stride(n, 1);
  int64_t acc = 1;
  int outer = -1;
  for (size_t s = n; s-- > 0;) {
    stride[s] = acc;
    acc *= p.extent[s];
    if (grp.iters[s] >= 0 && static_cast<int>(s) != p.streamPos && p.extent[s] > 1)
      outer = static_cast<int>(s);
  }
  int64_t total = p.tileElements();
  std::vector<StmtPtr> body;
  std::vector<ExprPtr> coords(n);
  for (size_t s = 0; s < n; ++s) {
    int d = grp.iters[s];
    if (d < 0) {
      coords[s] = intLit(grp.fixed[s]);
    } else if (static_cast<int>(s) == p.streamPos) {
      coords[s] = plane;
    } else {
      ExprPtr c = var(elem_, ScalarType::Int);
      if (p.extent[s] == 1) {
        c = intLit(0);
      } else {
        if (stride[s] > 1) c = binary(Op::Div, c, intLit(stride[s]));
        if (static_cast<int>(s) != outer) c = binary(Op::Mod, c, intLit(p.extent[s]));
      }
      ExprPtr x = indexAdd(indexAddConst(var(t0_[d], ScalarType::Int), p.first[s]), c);
      body.push_back(localDecl(CType::Int64, coord_[d], x));
      coords[s] = var(coord_[d], ScalarType::Int);
    }
  }
  auto atSlot = [&](ExprPtr e) { return slot ? indexAdd(indexMul(slot, intLit(total)), e) : e; };
  std::vector<StmtPtr> out;
  ExprPtr cond = inArray(p, coords);
  if (!ownReg.empty()) {
    // The block's own points come from the registers; the loop loads the halo around them.
    out.push_back(store(names_[gi].shared, atSlot(tileIndex(p, std::vector<int64_t>(n, 0))),
                        var(ownReg, grp.type)));
    ExprPtr halo;
    for (size_t s = 0; s < n; ++s) {
      int d = grp.iters[s];
      if (d < 0 || static_cast<int>(s) == p.streamPos) continue;
      int bl = 1;
      for (size_t gd = 0; gd < grid_.iters.size(); ++gd)
        if (grid_.iters[gd] == d) bl = grid_.block[gd];
      ExprPtr t0 = var(t0_[d], ScalarType::Int);
      ExprPtr outside = binary(Op::Or, binary(Op::Lt, coords[s], t0),
                               binary(Op::Gt, coords[s], indexAddConst(t0, bl - 1)));
      halo = halo ? binary(Op::Or, halo, outside) : outside;
    }
    if (halo) cond = binary(Op::And, cond, halo);
  }
  std::string buf = site_.readBuffer(grp.array);
  body.push_back(ifThen(cond, {store(names_[gi].shared, atSlot(var(elem_, ScalarType::Int)),
                                     load(buf, globalIndex(p, coords), grp.type))}));
  out.push_back(
      forStep(elem_, var(tid_, ScalarType::Int), intLit(total - 1), intLit(threads_), body));
  return out;
}

StmtPtr StagedKernel::loadRegister(size_t gi, const ExprPtr& plane, const std::string& reg) {
  const StagePlan& p = staging_.groups[gi];
  const StageGroup& grp = p.group;
  std::vector<ExprPtr> coords;
  for (size_t s = 0; s < grp.iters.size(); ++s)
    coords.push_back(grp.iters[s] < 0                     ? intLit(grp.fixed[s])
                     : static_cast<int>(s) == p.streamPos ? plane
                                                          : iterVar(grp.iters[s]));
  std::string buf = site_.readBuffer(grp.array);
  return ifThen(inArray(p, coords), {assign(reg, load(buf, globalIndex(p, coords), grp.type))});
}

ExprPtr StagedKernel::read(const Expr& ref) const {
  int gi = group(ref);
  if (gi < 0) internal("a reference to '" + ref.name + "' outside the staging analysis");
  const StagePlan& p = staging_.groups[gi];
  if (p.kind == StageKind::Global) return nullptr;
  std::vector<int64_t> offs;
  for (auto& s : ref.subs) offs.push_back(s.fixed() ? 0 : s.offset);
  const GroupNames& nm = names_[gi];
  if (p.kind == StageKind::Tile) return load(nm.shared, tileIndex(p, offs), ref.type);
  int64_t o = offs[p.streamPos];
  if (!p.planeInShared[o - p.group.lo[p.streamPos]]) return var(nm.regs.at(o - p.regLo), ref.type);
  ExprPtr slot = slotOf(p, indexAddConst(iterVar(grid_.stream), o));
  return load(nm.shared, indexAdd(indexMul(slot, intLit(p.tileElements())), tileIndex(p, offs)),
              ref.type);
}

void StagedKernel::declare(Function& f) const {
  for (size_t i = 0; i < staging_.groups.size(); ++i) {
    const StagePlan& p = staging_.groups[i];
    if (p.sharedElements() > 0)
      f.shared.push_back(sharedArray(ctypeOf(p.group.type), names_[i].shared, p.sharedElements()));
  }
  f.requiredBlock = {1, 1, 1};
  for (size_t gd = 0; gd < grid_.iters.size(); ++gd) f.requiredBlock[gd] = grid_.block[gd];
  // At least half of a multiprocessor's 2048 threads resident: on CUDA, registers are capped
  // at 64 per thread for 256-thread blocks, as without launch bounds (a block size alone
  // lets ptxas pick a tighter cap, and spill). At most 16 blocks: every GPU since Kepler
  // holds that many per multiprocessor (ptxas ignores a larger value, with a warning).
  f.minBlocksPerSm = std::clamp(1024 / threads_, 1, 16);
}

ExprPtr StagedKernel::guard() const {
  ExprPtr ok;
  for (int it : grid_.iters)
    ok = allOf(ok, binary(Op::Le, iterVar(it), var(hi_[it], ScalarType::Int)));
  return ok ? ok : boolLit(true);
}

std::string StagedKernel::describe() const {
  std::string out;
  auto dims = [](const StagePlan& p) {
    std::vector<std::string> e;
    for (size_t s = 0; s < p.extent.size(); ++s)
      if (p.group.iters[s] >= 0 && static_cast<int>(s) != p.streamPos)
        e.push_back(std::to_string(p.extent[s]));
    return e.empty() ? std::string("1") : fmt::format("{}", fmt::join(e, "x"));
  };
  for (auto& p : staging_.groups) {
    std::string line = p.group.name;
    if (p.kind == StageKind::Global) {
      line += ": read at its centre only, from global memory";
    } else if (p.kind == StageKind::Tile) {
      line += fmt::format(": a {} tile in shared memory, loaded once", dims(p));
    } else {
      const std::string& it = g_.iters[grid_.stream];
      std::vector<std::string> regs, shared;
      int64_t lo = p.group.lo[p.streamPos];
      for (int64_t o = lo; o <= p.group.hi[p.streamPos]; ++o) {
        bool inShared = p.planeInShared[o - lo];
        bool read = false;
        for (auto& r : p.group.refs) read = read || r[p.streamPos] == o;
        if (read) (inShared ? shared : regs).push_back(planeText(it, o));
      }
      line += ": planes";
      if (!regs.empty()) line += fmt::format(" {} in registers", fmt::join(regs, ", "));
      if (!regs.empty() && !shared.empty()) line += ",";
      if (!shared.empty())
        line += fmt::format(" {} in shared memory ({} of {})", fmt::join(shared, ", "),
                            p.sharedPlanes() == 1
                                ? std::string("one plane")
                                : fmt::format("a ring of {} planes", p.sharedPlanes()),
                            dims(p));
    }
    out += (out.empty() ? "" : "\n") + line;
  }
  return out;
}

std::vector<StmtPtr> StagedKernel::body(const std::vector<StmtPtr>& compute) {
  return grid_.family == ScheduleFamily::Stream ? streamBody(compute) : sharedBody(compute);
}

namespace {

/// The thread's index in its block: x fastest.
ExprPtr flatThreadId(const GridShape& grid) {
  ExprPtr acc;
  for (size_t gd = grid.iters.size(); gd-- > 0;) {
    ExprPtr l = intrinsic(Intrinsic::LocalId, static_cast<int>(gd));
    acc = acc ? indexAdd(indexMul(acc, intLit(grid.block[gd])), l) : l;
  }
  return acc;
}

}  // namespace

std::vector<StmtPtr> StagedKernel::sharedBody(const std::vector<StmtPtr>& compute) {
  std::vector<StmtPtr> b;
  b.push_back(comment("The block's tile starts at t0."));
  for (size_t gd = 0; gd < grid_.iters.size(); ++gd) {
    int it = grid_.iters[gd];
    ExprPtr group = intrinsic(Intrinsic::GroupId, static_cast<int>(gd));
    b.push_back(localDecl(
        CType::Int64, t0_[it],
        indexAdd(var(lo_[it], ScalarType::Int), indexMul(group, intLit(grid_.tile(gd))))));
  }
  bool any = false;
  for (size_t gi = 0; gi < staging_.groups.size(); ++gi) {
    if (staging_.groups[gi].kind != StageKind::Tile) continue;
    if (!any) {
      b.push_back(localDecl(CType::Int64, tid_, flatThreadId(grid_)));
      any = true;
    }
    b.push_back(comment(fmt::format("Stage '{}': tile and halo, loaded by the whole block.",
                                    staging_.groups[gi].group.name)));
    for (auto& x : loadTile(gi, nullptr, nullptr)) b.push_back(x);
  }
  if (any) b.push_back(barrier());
  // Each thread: unroll[gd] points along grid dimension gd (blocked: consecutive; cyclic: a
  // block apart), guarded against the region's upper bounds.
  std::vector<StmtPtr> inner;
  for (size_t gd = 0; gd < grid_.iters.size(); ++gd) {
    int it = grid_.iters[gd], e = grid_.unroll[gd], bl = grid_.block[gd];
    ExprPtr l = intrinsic(Intrinsic::LocalId, static_cast<int>(gd));
    if (e > 1) {
      ExprPtr u = var(unroll_[gd], ScalarType::Int);
      l = grid_.cyclic ? indexAdd(l, indexMul(u, intLit(bl))) : indexAdd(indexMul(l, intLit(e)), u);
    }
    inner.push_back(
        localDecl(CType::Int64, g_.iters[it], indexAdd(var(t0_[it], ScalarType::Int), l)));
  }
  inner.push_back(ifThen(guard(), compute));
  for (size_t gd = grid_.iters.size(); gd-- > 0;)
    if (grid_.unroll[gd] > 1)
      inner = {
          forLoop(unroll_[gd], intLit(0), intLit(grid_.unroll[gd] - 1), LoopKind::Serial, inner)};
  b.insert(b.end(), inner.begin(), inner.end());
  return b;
}

std::vector<StmtPtr> StagedKernel::streamBody(const std::vector<StmtPtr>& compute) {
  int s = grid_.stream;
  const std::string& it = g_.iters[s];
  std::vector<StmtPtr> b;
  b.push_back(comment("The block's tile of a plane starts at t0; each thread owns one point."));
  for (size_t gd = 0; gd < grid_.iters.size(); ++gd) {
    int d = grid_.iters[gd];
    ExprPtr group = intrinsic(Intrinsic::GroupId, static_cast<int>(gd));
    b.push_back(localDecl(
        CType::Int64, t0_[d],
        indexAdd(var(lo_[d], ScalarType::Int), indexMul(group, intLit(grid_.block[gd])))));
  }
  for (size_t gd = 0; gd < grid_.iters.size(); ++gd) {
    int d = grid_.iters[gd];
    b.push_back(localDecl(CType::Int64, g_.iters[d],
                          indexAdd(var(t0_[d], ScalarType::Int),
                                   intrinsic(Intrinsic::LocalId, static_cast<int>(gd)))));
  }
  ExprPtr lo = var(lo_[s], ScalarType::Int), hi = var(hi_[s], ScalarType::Int);
  if (grid_.chunk == 0) {
    b.push_back(comment(fmt::format("Serial streaming: the block sweeps every plane of {}.", it)));
    b.push_back(localDecl(CType::Int64, cs_, lo));
    b.push_back(localDecl(CType::Int64, ce_, hi));
  } else {
    b.push_back(comment(
        fmt::format("Concurrent streaming: the block sweeps a chunk of {} planes.", grid_.chunk)));
    ExprPtr chunk = intrinsic(Intrinsic::GroupId, static_cast<int>(grid_.iters.size()));
    b.push_back(localDecl(CType::Int64, cs_, indexAdd(lo, indexMul(chunk, intLit(grid_.chunk)))));
    b.push_back(localDecl(CType::Int64, ce_,
                          indexMin(indexAddConst(var(cs_, ScalarType::Int), grid_.chunk - 1), hi)));
  }
  ExprPtr first = var(cs_, ScalarType::Int), cur = iterVar(s);
  bool shared = staging_.sharedBytes > 0;
  if (shared) b.push_back(localDecl(CType::Int64, tid_, flatThreadId(grid_)));
  std::vector<StmtPtr> lead;  // each plane: the leading plane of every window
  std::vector<StmtPtr> shift;
  for (size_t gi = 0; gi < staging_.groups.size(); ++gi) {
    const StagePlan& p = staging_.groups[gi];
    const GroupNames& nm = names_[gi];
    const std::string& name = p.group.name;
    if (p.kind == StageKind::Tile) {
      b.push_back(
          comment(fmt::format("Stage '{}' (the same for every plane): tile and halo.", name)));
      for (auto& x : loadTile(gi, nullptr, nullptr)) b.push_back(x);
      continue;
    }
    if (p.kind != StageKind::Planes) continue;
    if (!nm.regs.empty()) {
      b.push_back(comment(fmt::format("'{}': planes {}..{} of the own point in registers.", name,
                                      planeText(it, p.regLo), planeText(it, p.regHi))));
      for (size_t r = 0; r < nm.regs.size(); ++r)
        b.push_back(localDecl(valueType(p.group.type), nm.regs[r], zeroOf(p.group.type), false));
      for (size_t r = 0; r + 1 < nm.regs.size(); ++r)
        b.push_back(
            loadRegister(gi, indexAddConst(first, p.regLo + static_cast<int64_t>(r)), nm.regs[r]));
      lead.push_back(loadRegister(gi, indexAddConst(cur, p.regHi), nm.regs.back()));
      for (size_t r = 0; r + 1 < nm.regs.size(); ++r)
        shift.push_back(assign(nm.regs[r], var(nm.regs[r + 1], p.group.type)));
    }
    if (p.sharedPlanes() == 1) {
      b.push_back(comment(fmt::format("'{}': plane {} in shared memory, loaded at each step.", name,
                                      planeText(it, p.sharedHi))));
    } else if (p.sharedPlanes() > 1) {
      b.push_back(comment(fmt::format(
          "'{}': planes {}..{} in a ring of shared planes (slot: plane mod {}); the first {} "
          "loaded before the sweep.",
          name, planeText(it, p.sharedLo), planeText(it, p.sharedHi), p.sharedPlanes(),
          p.sharedPlanes() - 1)));
    }
    if (p.sharedPlanes() > 0) {
      for (int64_t q = 0; q + 1 < p.sharedPlanes(); ++q) {
        ExprPtr plane = indexAddConst(first, p.sharedLo + q);
        for (auto& x : loadTile(gi, plane, slotOf(p, plane))) b.push_back(x);
      }
      // The leading shared plane: where the shift register holds it (its register was loaded
      // just before), each thread stores its own point and the loop loads only the halo.
      ExprPtr plane = indexAddConst(cur, p.sharedHi);
      std::string own = p.ownFromRegisters ? nm.regs.at(static_cast<size_t>(p.sharedHi - p.regLo))
                                           : std::string();
      for (auto& x : loadTile(gi, plane, slotOf(p, plane), own)) lead.push_back(x);
    }
  }
  std::vector<StmtPtr> loop;
  if (shared) {
    loop.push_back(comment("Every thread is done with the slot the leading plane overwrites."));
    loop.push_back(barrier());
  }
  loop.insert(loop.end(), lead.begin(), lead.end());
  if (shared) loop.push_back(barrier());
  loop.push_back(ifThen(guard(), compute));
  if (!shift.empty()) {
    loop.push_back(comment("Rotate the register planes."));
    loop.insert(loop.end(), shift.begin(), shift.end());
  }
  b.push_back(forLoop(it, first, var(ce_, ScalarType::Int), LoopKind::Serial, loop));
  return b;
}

}  // namespace tessel::gpu
