#include "exec/build_util.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "analysis/bounds.h"
#include "runtime/errors.h"
#include "support/diagnostics.h"

namespace fs = std::filesystem;

namespace tessel {

std::vector<std::string> withOptLevel(std::vector<std::string> flags, const std::string& level) {
  if (level.empty()) return flags;
  for (std::string& f : flags)
    if (f.size() >= 3 && f.rfind("-O", 0) == 0) f = level;
  return flags;
}

std::string hostCpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 || line.rfind("flags", 0) == 0) return line;
  return {};
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path tempName(const fs::path& p) {
  static std::atomic<unsigned> counter{0};  // uniqueness only; holds no program state
  return fs::path(p.string() + fmt::format(".tmp.{}.{}", getpid(), counter++));
}

void writeFile(const fs::path& p, const std::string& text) {
  fs::path tmp = tempName(p);
  std::error_code ignored;
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
      const int err = errno ? errno : EIO;
      fs::remove(tmp, ignored);
      throw fs::filesystem_error("cannot write", p, std::error_code(err, std::generic_category()));
    }
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp, ignored);  // no temporary left behind
    throw fs::filesystem_error("cannot write", p, ec);
  }
}

bool directoryWritable(const fs::path& dir, std::string& why) {
  const fs::path probe = tempName(dir / ".tessel-write-test");
  errno = 0;
  std::ofstream out(probe, std::ios::binary);
  if (!out) {
    why = std::error_code(errno ? errno : EACCES, std::generic_category()).message();
    return false;
  }
  out.close();
  std::error_code ignored;
  fs::remove(probe, ignored);
  return true;
}

std::string firstLines(const std::string& text, int n) {
  std::istringstream in(text);
  std::string line, out;
  for (int k = 0; k < n && std::getline(in, line); ++k) out += line + "\n";
  return out;
}

int runInDirectory(const fs::path& dir, const std::string& command, const fs::path& log) {
  std::string full = fmt::format("cd {} && {} > {} 2>&1", shellQuote(dir.string()), command,
                                 shellQuote(log.string()));
  int rc = std::system(full.c_str());
  if (rc == 0) return 0;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// ---- typed buffers for one run -----------------------------------------------------------

TypedBuffer::TypedBuffer(ArrayData& a) : a_(a) {
  size_t n = a.values.size();
  switch (a.type) {
    case ScalarType::Double:
      ptr_ = a.values.data();
      break;  // used in place
    case ScalarType::Float:
      f_.assign(a.values.begin(), a.values.end());
      ptr_ = f_.data();
      break;
    case ScalarType::Int:
      i_.resize(n);
      for (size_t k = 0; k < n; ++k) i_[k] = static_cast<int32_t>(a.values[k]);
      ptr_ = i_.data();
      break;
    case ScalarType::Bool:
      b_ = std::make_unique<bool[]>(n);
      for (size_t k = 0; k < n; ++k) b_[k] = a.values[k] != 0;
      ptr_ = b_.get();
      break;
  }
}

void TypedBuffer::storeBack() {
  size_t n = a_.values.size();
  switch (a_.type) {
    case ScalarType::Double:
      break;
    case ScalarType::Float:
      for (size_t k = 0; k < n; ++k) a_.values[k] = f_[k];
      break;
    case ScalarType::Int:
      for (size_t k = 0; k < n; ++k) a_.values[k] = i_[k];
      break;
    case ScalarType::Bool:
      for (size_t k = 0; k < n; ++k) a_.values[k] = b_[k] ? 1.0 : 0.0;
      break;
  }
}

void checkState(const Program& prog, const ProgramState& st) {
  if (st.params.size() != prog.params.size())
    throw RuntimeError(fmt::format("the program has {} parameters, the state gives {} values",
                                   prog.params.size(), st.params.size()));
  if (st.arrays.size() != prog.arrays.size() || st.scalars.size() != prog.scalars.size())
    throw RuntimeError("the state's arrays or scalars do not match the program");
  for (size_t a = 0; a < prog.arrays.size(); ++a) {
    const ArrayDecl& d = prog.arrays[a];
    int64_t n = elementCount(d.extents, st.params);
    if (st.arrays[a].type != d.type || static_cast<int64_t>(st.arrays[a].values.size()) != n)
      throw RuntimeError(fmt::format("array '{}' holds {} {} values; the program needs {} {}",
                                     d.name, st.arrays[a].values.size(),
                                     typeName(st.arrays[a].type), n, typeName(d.type)));
  }
  DiagnosticEngine diags;
  if (!checkBounds(prog, st.params, diags)) {
    std::string msg;
    for (auto& dg : diags.diagnostics())
      if (dg.severity == Severity::Error) msg += DiagnosticEngine::render(dg);
    throw RuntimeError(msg.empty() ? "an access would leave an array" : msg);
  }
}

TypedArrays::TypedArrays(ProgramState& state) {
  bufs_.reserve(state.arrays.size());  // no reallocation: ptrs_ point into the buffers
  for (auto& a : state.arrays) {
    bufs_.emplace_back(a);
    ptrs_.push_back(bufs_.back().ptr());
  }
}

void TypedArrays::storeBack() {
  for (auto& b : bufs_) b.storeBack();
}

}  // namespace tessel
