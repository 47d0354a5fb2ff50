#include "schedule/family.h"

namespace tessel {

const char* familyName(ScheduleFamily f) {
  switch (f) {
    case ScheduleFamily::Global:
      return "global";
    case ScheduleFamily::GlobalStream:
      return "global-stream";
    case ScheduleFamily::Shared:
      return "shared";
    case ScheduleFamily::Stream:
      return "stream";
    case ScheduleFamily::Overlapped:
      return "overlapped";
  }
  return "?";
}

std::optional<ScheduleFamily> parseFamily(std::string_view s) {
  for (ScheduleFamily f :
       {ScheduleFamily::Global, ScheduleFamily::GlobalStream, ScheduleFamily::Shared,
        ScheduleFamily::Stream, ScheduleFamily::Overlapped})
    if (s == familyName(f)) return f;
  return std::nullopt;
}

bool streams(ScheduleFamily f) {
  return f == ScheduleFamily::GlobalStream || f == ScheduleFamily::Stream;
}

std::vector<int64_t> defaultBlockShape(ScheduleFamily f, size_t gridDims) {
  if (gridDims <= 1) return {256};
  if (f == ScheduleFamily::Overlapped)
    return gridDims == 2 ? std::vector<int64_t>{32, 16} : std::vector<int64_t>{16, 8, 4};
  if (gridDims == 3 && f == ScheduleFamily::Shared) return {32, 4, 4};
  return {32, 8, 1};
}

}  // namespace tessel
