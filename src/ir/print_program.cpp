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

/// `e` with its global arrays and scalars named as the program declares them (a call's
/// statements name them by the stencil's formal arguments).
ExprPtr actualNames(const ExprPtr& e, const Program& prog) {
  auto copy = std::make_shared<Expr>(*e);
  if (e->kind == ExprKind::ArrayRef && !e->array.local)
    copy->name = prog.arrays.at(static_cast<size_t>(e->array.index)).name;
  if (e->kind == ExprKind::ScalarRef && e->scalarKind == ScalarKind::Global)
    copy->name = prog.scalars.at(static_cast<size_t>(e->index)).name;
  for (ExprPtr& a : copy->args) a = actualNames(a, prog);
  return copy;
}

/// Expression `e` of a call, with the program's names.
std::string callExpr(const ExprPtr& e, const Program& prog) {
  return expr(actualNames(e, prog), prog);
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
    out += fmt::format("  {} {}[{}];\n", typeName(a.type), a.name, fmt::join(ext, ","));
  }
  for (size_t n = 0; n < call.localScalars.size(); ++n)
    if (scalars.count(static_cast<int>(n)))
      out +=
          fmt::format("  {} {};\n", typeName(call.localScalars[n].type), call.localScalars[n].name);
  for (size_t n = 0; n < call.inits.size(); ++n)
    if (inits.count(static_cast<int>(n)))
      out += fmt::format("  {} {} = {};\n", typeName(call.inits[n].type), call.inits[n].name,
                         callExpr(call.inits[n].value, prog));
  for (const Stmt& st : call.stmts)
    out += fmt::format("  {}{} {} {};\n", st.domain ? domainText(*st.domain, prog) + " : " : "",
                       callExpr(st.lhs, prog), assignOpSpelling(st.op), callExpr(st.rhs, prog));
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
