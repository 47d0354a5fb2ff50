// A program written back in the input language (print_program.h).
#include "ir/print_program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <stdexcept>

namespace tessel {

namespace {

std::string expr(const ExprPtr& e, const Program& prog) {
  return toString(e, prog.iteratorNames());
}

/// The names a call's locals are written with. The written stencil names the global arrays and
/// scalars directly, so a local with a global's name would hide it there (language.md 4.3: a
/// local hides the global of its name), as a formal of that name hid it in the input: such a
/// local gets a name nothing else has, `name_stencil` (then `name_stencil3`, ...).
struct LocalNames {
  std::vector<std::string> arrays, scalars, inits;
  std::vector<bool> arraysRenamed, scalarsRenamed, initsRenamed;
};

LocalNames localNames(const Program& prog, const CallInst& call) {
  std::set<std::string> globals;
  for (const ArrayDecl& d : prog.arrays) globals.insert(d.name);
  for (const ScalarDecl& d : prog.scalars) globals.insert(d.name);
  for (const Param& p : prog.params) globals.insert(p.name);
  for (const Iterator& i : prog.iterators) globals.insert(i.name);
  std::set<std::string> taken = globals;
  for (const LocalArray& l : call.localArrays) taken.insert(l.name);
  for (const LocalScalar& l : call.localScalars) taken.insert(l.name);
  for (const InitLocal& l : call.inits) taken.insert(l.name);
  auto name = [&](const std::string& n, std::vector<std::string>& names,
                  std::vector<bool>& renamed) {
    std::string fresh = n;
    if (globals.count(n))
      for (int k = 2; fresh == n || taken.count(fresh); ++k)
        fresh = fmt::format("{}_{}{}", n, call.name, k == 2 ? "" : std::to_string(k));
    taken.insert(fresh);
    names.push_back(fresh);
    renamed.push_back(fresh != n);
  };
  LocalNames out;
  for (const LocalArray& l : call.localArrays) name(l.name, out.arrays, out.arraysRenamed);
  for (const LocalScalar& l : call.localScalars) name(l.name, out.scalars, out.scalarsRenamed);
  for (const InitLocal& l : call.inits) name(l.name, out.inits, out.initsRenamed);
  return out;
}

/// `e` with its global arrays and scalars named as the program declares them (a call's
/// statements name them by the stencil's formal arguments) and its locals as `locals` says.
ExprPtr actualNames(const ExprPtr& e, const Program& prog, const LocalNames& locals) {
  auto copy = std::make_shared<Expr>(*e);
  const auto at = [](const std::vector<std::string>& names, int index) {
    return names.at(static_cast<size_t>(index));
  };
  if (e->kind == ExprKind::ArrayRef)
    copy->name = e->array.local ? at(locals.arrays, e->array.index)
                                : prog.arrays.at(static_cast<size_t>(e->array.index)).name;
  if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Global)
    copy->name = prog.scalars.at(static_cast<size_t>(e->index)).name;
  if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Local)
    copy->name = at(locals.scalars, e->index);
  if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Init)
    copy->name = at(locals.inits, e->index);
  for (ExprPtr& a : copy->args) a = actualNames(a, prog, locals);
  return copy;
}

std::string domainText(const Domain& d, const Program& prog) {
  std::vector<std::string> parts;
  for (const Range& r : d) parts.push_back(expr(r.lo, prog) + ":" + expr(r.hi, prog));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

/// The stencil name of call `c`: the stencil's own when only this call uses it, else with the
/// call's index.
std::string stencilName(const Program& prog, int c) {
  const CallInst& call = prog.calls.at(static_cast<size_t>(c));
  int uses = 0;
  for (const CallInst& other : prog.calls) uses += other.name == call.name ? 1 : 0;
  return uses == 1 ? call.name : fmt::format("{}_c{}", call.name, c);
}

std::string stencilText(const Program& prog, int c) {
  const CallInst& call = prog.calls.at(static_cast<size_t>(c));
  std::string out = fmt::format("stencil {} () {{\n", stencilName(prog, c));
  const LocalNames names = localNames(prog, call);
  const auto callExpr = [&](const ExprPtr& e) { return expr(actualNames(e, prog, names), prog); };
  const auto renamedFrom = [&](bool renamed, const std::string& name) {
    return renamed ? fmt::format("  // '{}' in the input: a global has that name", name)
                   : std::string();
  };
  // Only the locals the statements use (a split call keeps its stencil's declarations).
  std::set<int> arrays, scalars, inits;
  auto note = [&](const ExprPtr& e) {
    if (e->kind == ExprKind::ArrayRef && e->array.local) arrays.insert(e->array.index);
    if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Local)
      scalars.insert(e->index);
    if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Init) inits.insert(e->index);
  };
  for (const Stmt& st : call.stmts) {
    visitExpr(st.lhs, note);
    visitExpr(st.rhs, note);
  }
  for (size_t i = call.inits.size(); i-- > 0;)  // an initialised local may use earlier ones
    if (inits.count(static_cast<int>(i))) visitExpr(call.inits[i].value, note);
  for (size_t n = 0; n < call.localArrays.size(); ++n) {
    const LocalArray& a = call.localArrays[n];
    if (!arrays.count(static_cast<int>(n))) continue;
    if (a.scratchOf >= 0)
      throw std::invalid_argument(fmt::format(
          "call {} of '{}' has the scratch array '{}' (inout:), which a stencil without formal "
          "arguments cannot express",
          c, call.name, a.name));
    std::vector<std::string> ext;
    for (const ExprPtr& e : a.extents) ext.push_back(expr(e, prog));
    out += fmt::format("  {} {}[{}];{}\n", typeName(a.type), names.arrays[n], fmt::join(ext, ","),
                       renamedFrom(names.arraysRenamed[n], a.name));
  }
  for (size_t n = 0; n < call.localScalars.size(); ++n)
    if (scalars.count(static_cast<int>(n)))
      out += fmt::format("  {} {};{}\n", typeName(call.localScalars[n].type), names.scalars[n],
                         renamedFrom(names.scalarsRenamed[n], call.localScalars[n].name));
  for (size_t n = 0; n < call.inits.size(); ++n)
    if (inits.count(static_cast<int>(n)))
      out += fmt::format("  {} {} = {};{}\n", typeName(call.inits[n].type), names.inits[n],
                         callExpr(call.inits[n].value),
                         renamedFrom(names.initsRenamed[n], call.inits[n].name));
  for (const Stmt& st : call.stmts)
    out += fmt::format("  {}{} {} {};\n", st.domain ? domainText(*st.domain, prog) + " : " : "",
                       callExpr(st.lhs), assignOpSpelling(st.op), callExpr(st.rhs));
  return out + "}\n";
}

void bodyText(const Program& prog, const std::vector<ExecNode>& nodes, const std::string& indent,
              std::string& out) {
  for (const ExecNode& n : nodes) {
    if (n.kind == ExecNode::Kind::Call) {
      const CallInst& call = prog.calls.at(static_cast<size_t>(n.call));
      out += fmt::format("{}{} : {} ();\n", indent, domainText(call.domain, prog),
                         stencilName(prog, n.call));
      continue;
    }
    out += fmt::format("{}iterate {}:{} {{\n", indent, expr(n.lo, prog), expr(n.hi, prog));
    bodyText(prog, n.body, indent + "  ", out);
    out += indent + "}\n";
  }
}

/// `copyin a, b;` for the declarations whose flag `f` is set.
template <typename F>
std::string dataList(const Program& prog, const char* keyword, F flag) {
  std::vector<std::string> names;
  for (const ArrayDecl& a : prog.arrays)
    if (flag(a.data)) names.push_back(a.name);
  for (const ScalarDecl& s : prog.scalars)
    if (flag(s.data)) names.push_back(s.name);
  return names.empty() ? "" : fmt::format("{} {};\n", keyword, fmt::join(names, ", "));
}

}  // namespace

std::string programSource(const Program& prog, const std::string& header,
                          const std::vector<std::string>& pragmas) {
  std::string out = header;
  std::vector<std::string> params;
  for (const Param& p : prog.params)
    if (!p.fromIterate)
      params.push_back(p.defaultValue ? p.name + "=" + expr(p.defaultValue, prog) : p.name);
  if (!params.empty()) out += fmt::format("parameter {};\n", fmt::join(params, ", "));
  std::vector<std::string> iters;
  for (const Iterator& it : prog.iterators) iters.push_back(it.name);
  out += fmt::format("iterator {};\n", fmt::join(iters, ", "));
  for (const ArrayDecl& a : prog.arrays) {
    std::vector<std::string> ext;
    for (const ExprPtr& e : a.extents) ext.push_back(expr(e, prog));
    out += fmt::format("{} {}[{}];\n", typeName(a.type), a.name, fmt::join(ext, ","));
  }
  for (const ScalarDecl& s : prog.scalars) out += fmt::format("{} {};\n", typeName(s.type), s.name);
  out += dataList(prog, "copyin", [](const DataFlags& d) { return d.copyin; });
  out += dataList(prog, "allocin", [](const DataFlags& d) { return d.allocin; });
  out += dataList(prog, "constant", [](const DataFlags& d) { return d.constant; });
  out += dataList(prog, "coefficient", [](const DataFlags& d) { return d.coefficient; });
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    out += "\n";
    if (c < pragmas.size() && !pragmas[c].empty()) out += "#pragma " + pragmas[c] + "\n";
    out += stencilText(prog, static_cast<int>(c));
  }
  out += "\n";
  bodyText(prog, prog.body, "", out);
  out += dataList(prog, "copyout", [](const DataFlags& d) { return d.copyout; });
  return out;
}

}  // namespace tessel
