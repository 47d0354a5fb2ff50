// Source text and locations: what every diagnostic points at.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessel {

/// One input file held in memory, with a line index for `file:line:col` reporting.
class SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  /// 1-based line and column of a byte offset.
  std::pair<int, int> lineCol(uint32_t offset) const;
  /// The text of a 1-based line, without its newline.
  std::string_view lineText(int line) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> lineStarts_;
};

/// A position in a source file (byte offset). A default location is "nowhere".
struct SourceLoc {
  const SourceFile* file = nullptr;
  uint32_t offset = 0;
  bool valid() const { return file != nullptr; }
  int line() const { return file ? file->lineCol(offset).first : 0; }
  int col() const { return file ? file->lineCol(offset).second : 0; }
};

}  // namespace tessel
