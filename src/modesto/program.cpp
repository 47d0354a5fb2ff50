// Stencil programs of the hierarchical model (program.h).
#include "modesto/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace tessel::modesto {

int StencilProgram::producer(const std::string& field) const {
  for (size_t s = 0; s < stencils.size(); ++s)
    if (stencils[s].name == field) return static_cast<int>(s);
  return -1;
}

bool StencilProgram::isOutput(int stencil) const {
  const std::string& name = stencils.at(static_cast<size_t>(stencil)).name;
  return std::find(outputs.begin(), outputs.end(), name) != outputs.end();
}

std::vector<std::string> StencilProgram::inputFields() const {
  std::vector<std::string> out;
  for (const Stencil& s : stencils)
    for (const Access& a : s.in)
      if (producer(a.field) < 0 && std::find(out.begin(), out.end(), a.field) == out.end())
        out.push_back(a.field);
  return out;
}

int StencilProgram::fieldIndex(const std::string& field,
                               const std::vector<std::string>& inputs) const {
  const int s = producer(field);
  if (s >= 0) return s;
  return static_cast<int>(stencils.size() +
                          (std::find(inputs.begin(), inputs.end(), field) - inputs.begin()));
}

void validate(const StencilProgram& p) {
  auto fail = [](const std::string& m) { throw std::invalid_argument(m); };
  if (p.dims < 1 || p.dims > kMaxDims)
    fail(fmt::format("a stencil program has 1 to {} dimensions, not {}", kMaxDims, p.dims));
  std::set<std::string> computed;
  for (const Stencil& s : p.stencils) {
    if (!computed.insert(s.name).second) fail(fmt::format("field '{}' is computed twice", s.name));
    for (const Access& a : s.in) {
      if (static_cast<int>(a.offset.size()) != p.dims)
        fail(fmt::format("stencil '{}' reads '{}' with {} offsets in a {}-D program", s.name,
                         a.field, a.offset.size(), p.dims));
      if (!a.absolute.empty() && static_cast<int>(a.absolute.size()) != p.dims)
        fail(fmt::format("stencil '{}' reads '{}' with {} absolute flags in a {}-D program", s.name,
                         a.field, a.absolute.size(), p.dims));
      if (a.field == s.name) fail(fmt::format("stencil '{}' reads its own field", s.name));
      const int prod = p.producer(a.field);
      if (prod >= 0 && !computed.count(a.field))
        fail(fmt::format("stencil '{}' reads '{}' before it is computed (list producers first)",
                         s.name, a.field));
      if (prod >= 0 && std::find(a.absolute.begin(), a.absolute.end(), true) != a.absolute.end())
        fail(
            fmt::format("stencil '{}' reads the computed field '{}' at an absolute coordinate "
                        "(a fixed plane or fewer dimensions): only input fields are read so",
                        s.name, a.field));
    }
    if (s.domain && (static_cast<int>(s.domain->lo.size()) != p.dims ||
                     static_cast<int>(s.domain->hi.size()) != p.dims))
      fail(fmt::format("stencil '{}' has a domain of the wrong rank", s.name));
  }
  if (p.outputs.empty()) fail("a stencil program needs at least one output");
  for (const std::string& o : p.outputs) {
    const int s = p.producer(o);
    if (s < 0) fail(fmt::format("output '{}' is computed by no stencil", o));
    if (!p.stencils[static_cast<size_t>(s)].domain)
      fail(fmt::format("output '{}' needs a domain (where it is evaluated)", o));
  }
}

}  // namespace tessel::modesto
