#include "support/source.h"

#include <algorithm>

namespace tessel {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
}

std::pair<int, int> SourceFile::lineCol(uint32_t offset) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  int line = static_cast<int>(it - lineStarts_.begin());
  uint32_t start = lineStarts_[line - 1];
  return {line, static_cast<int>(offset - start) + 1};
}

std::string_view SourceFile::lineText(int line) const {
  if (line < 1 || line > static_cast<int>(lineStarts_.size())) return {};
  uint32_t start = lineStarts_[line - 1];
  uint32_t end = start;
  while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
  return std::string_view(text_).substr(start, end - start);
}

}  // namespace tessel
