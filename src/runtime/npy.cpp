#include "runtime/npy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <vector>

namespace tessel {

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", path, what));
}

// The host must be little-endian: .npy data is read and written with memcpy.
bool hostLittleEndian() {
  const uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

const char* descrOf(ScalarType t) {
  switch (t) {
    case ScalarType::Double:
      return "<f8";
    case ScalarType::Float:
      return "<f4";
    case ScalarType::Int:
      return "<i4";
    case ScalarType::Bool:
      return "|b1";
  }
  return "<f8";
}

// ---- a tiny parser for the header dict: {'descr': '<f8', 'fortran_order': False, 'shape': (3,)}

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  HeaderParser(const std::string& path, const std::string& text) : path_(path), s_(text) {}

  Header parse() {
    Header h;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    expect('{');
    while (true) {
      skipWs();
      if (peek() == '}') break;
      std::string key = quoted();
      expect(':');
      skipWs();
      if (key == "descr") {
        h.descr = quoted();
        haveDescr = true;
      } else if (key == "fortran_order") {
        h.fortran = boolean();
        haveOrder = true;
      } else if (key == "shape") {
        h.shape = tuple();
        haveShape = true;
      } else {
        bad(fmt::format("unexpected key '{}'", key));
      }
      skipWs();
      if (peek() == ',') ++i_;
    }
    if (!haveDescr || !haveOrder || !haveShape)
      bad("it lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    fail(path_, fmt::format("malformed .npy header ({}): {}", what, s_));
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skipWs() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    skipWs();
    if (peek() != c) bad(fmt::format("expected '{}'", c));
    ++i_;
  }
  std::string quoted() {
    skipWs();
    char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string");
    size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos) bad("unterminated string");
    std::string r = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return r;
  }
  bool boolean() {
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    bad("expected True or False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> v;
    expect('(');
    while (true) {
      skipWs();
      if (peek() == ')') {
        ++i_;
        return v;
      }
      if (!std::isdigit(static_cast<unsigned char>(peek()))) bad("expected a dimension");
      int64_t x = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (x > (std::numeric_limits<int64_t>::max() - 9) / 10) bad("dimension too large");
        x = x * 10 + (s_[i_++] - '0');
      }
      v.push_back(x);
      skipWs();
      if (peek() == ',') ++i_;
    }
  }

  const std::string& path_;
  const std::string& s_;
  size_t i_ = 0;
};

template <typename T>
void decode(const std::vector<char>& raw, std::vector<double>& out) {
  for (size_t k = 0; k < out.size(); ++k) {
    T x;
    std::memcpy(&x, raw.data() + k * sizeof(T), sizeof(T));
    out[k] = static_cast<double>(x);
  }
}

template <typename T>
void encode(const std::vector<double>& in, std::vector<char>& raw) {
  raw.resize(in.size() * sizeof(T));
  for (size_t k = 0; k < in.size(); ++k) {
    T x = static_cast<T>(in[k]);
    std::memcpy(raw.data() + k * sizeof(T), &x, sizeof(T));
  }
}

}  // namespace

ArrayData readNpy(const std::string& path) {
  if (!hostLittleEndian()) fail(path, ".npy files need a little-endian host");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, not an .npy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open the file");
  char pre[kMagicLen + 2];
  if (!in.read(pre, sizeof pre) || std::memcmp(pre, kMagic, kMagicLen) != 0)
    fail(path, "not a NumPy .npy file (bad magic string)");
  int major = static_cast<unsigned char>(pre[kMagicLen]);
  uint32_t headerLen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) fail(path, "truncated .npy header");
    headerLen = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) fail(path, "truncated .npy header");
    headerLen = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  } else {
    fail(path, fmt::format("unsupported .npy format version {}", major));
  }
  if (headerLen > (1u << 26)) fail(path, "implausibly large .npy header");
  std::string text(headerLen, '\0');
  if (!in.read(text.data(), headerLen)) fail(path, "truncated .npy header");
  Header h = HeaderParser(path, text).parse();
  // Fortran order is C order where at most one extent exceeds 1 (a vector, a column).
  const auto wide = std::count_if(h.shape.begin(), h.shape.end(), [](int64_t e) { return e > 1; });
  if (h.fortran && wide > 1)
    fail(path,
         "Fortran-order arrays are not supported; save a C-order array "
         "(numpy.ascontiguousarray)");

  ArrayData a;
  a.shape = h.shape;
  int64_t count = 1;
  for (int64_t e : h.shape) {
    if (e != 0 && count > std::numeric_limits<int64_t>::max() / 16 / e)
      fail(path, "array too large");
    count *= e;
  }
  std::string d = h.descr;
  if (d.size() == 3 && d[0] == '=') d[0] = '<';  // native order on a little-endian host
  size_t width = 0;
  if (d == "<f8") {
    a.type = ScalarType::Double, width = 8;
  } else if (d == "<f4") {
    a.type = ScalarType::Float, width = 4;
  } else if (d == "<i4") {
    a.type = ScalarType::Int, width = 4;
  } else if (d == "<i8") {
    a.type = ScalarType::Int, width = 8;
  } else if (d == "|b1" || d == "<b1" || d == "?") {
    a.type = ScalarType::Bool, width = 1;
  } else if (!d.empty() && d[0] == '>') {
    fail(path, fmt::format("big-endian dtype '{}' is not supported", h.descr));
  } else {
    fail(path, fmt::format("unsupported dtype '{}' (expected '<f8', '<f4', '<i4', '<i8' or '|b1')",
                           h.descr));
  }
  std::vector<char> raw(static_cast<size_t>(count) * width);
  if (!in.read(raw.data(), static_cast<std::streamsize>(raw.size())))
    fail(path, fmt::format("truncated data: expected {} bytes for shape {} of '{}'", raw.size(),
                           fmt::join(h.shape, "x"), h.descr));
  if (in.peek() != std::char_traits<char>::eof())
    fail(path, fmt::format("more data than its header says (shape {} of '{}': {} bytes)",
                           fmt::join(h.shape, "x"), h.descr, raw.size()));
  a.values.resize(static_cast<size_t>(count));
  if (d == "<f8") {
    decode<double>(raw, a.values);
  } else if (d == "<f4") {
    decode<float>(raw, a.values);
  } else if (d == "<i4") {
    decode<int32_t>(raw, a.values);
  } else if (d == "<i8") {
    for (size_t k = 0; k < a.values.size(); ++k) {
      int64_t x;
      std::memcpy(&x, raw.data() + k * 8, 8);
      if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max())
        fail(path, fmt::format("int64 value {} at element {} does not fit in int", x, k));
      a.values[k] = static_cast<double>(x);
    }
  } else {
    for (size_t k = 0; k < a.values.size(); ++k) a.values[k] = raw[k] != 0 ? 1.0 : 0.0;
  }
  return a;
}

void writeNpy(const std::string& path, const ArrayData& a) {
  if (!hostLittleEndian()) fail(path, ".npy files need a little-endian host");
  int64_t count = 1;
  for (int64_t e : a.shape) {
    if (e < 0) fail(path, fmt::format("cannot write a negative extent {}", e));
    count *= e;
  }
  if (count != static_cast<int64_t>(a.values.size()))
    fail(path, fmt::format("shape {} has {} elements but {} values are given",
                           fmt::join(a.shape, "x"), count, a.values.size()));
  std::string shape = "(";
  for (size_t k = 0; k < a.shape.size(); ++k) shape += fmt::format("{}, ", a.shape[k]);
  if (a.shape.size() > 1) shape.resize(shape.size() - 2);  // (3,) keeps its comma
  if (a.shape.size() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                 descrOf(a.type), shape);
  // Pad with spaces so that the data starts at a multiple of 64 bytes; end with a newline.
  auto paddedHeader = [&](size_t pre) {
    size_t total = pre + dict.size() + 1;
    return dict + std::string((total + 63) / 64 * 64 - total, ' ') + "\n";
  };
  int major = 1;
  std::string header = paddedHeader(kMagicLen + 2 + 2);
  if (header.size() > 65535) {  // version 1.0 has a 16-bit header length
    major = 2;
    header = paddedHeader(kMagicLen + 2 + 4);
  }

  std::vector<double> vals(a.values.size());
  for (size_t k = 0; k < vals.size(); ++k) vals[k] = convertTo(a.type, a.values[k]);
  std::vector<char> raw;
  switch (a.type) {
    case ScalarType::Double:
      encode<double>(vals, raw);
      break;
    case ScalarType::Float:
      encode<float>(vals, raw);
      break;
    case ScalarType::Int:
      encode<int32_t>(vals, raw);
      break;
    case ScalarType::Bool:
      encode<uint8_t>(vals, raw);
      break;
  }

  // A file that cannot be written is the user's path (a directory without permission, a
  // directory of that name): the path and the system's reason, as every file Tessel writes.
  auto cannotWrite = [&] {
    throw std::filesystem::filesystem_error(
        "cannot write", path, std::error_code(errno ? errno : EIO, std::generic_category()));
  };
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) cannotWrite();
  out.write(kMagic, kMagicLen);
  out.put(static_cast<char>(major));
  out.put(0);
  uint32_t len = static_cast<uint32_t>(header.size());
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>((len >> 8) & 0xff));
  if (major == 2) {
    out.put(static_cast<char>((len >> 16) & 0xff));
    out.put(static_cast<char>((len >> 24) & 0xff));
  }
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(raw.data(), static_cast<std::streamsize>(raw.size()));
  out.flush();
  if (!out) cannotWrite();
}

}  // namespace tessel
