// The schedule families and their default blocks: the one definition that the Schedule, its
// validation and the GPU lowering share (docs/gpu.md, "Schedule families").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tessel {

enum class ScheduleFamily { Global, GlobalStream, Shared, Stream, Overlapped };
/// "global", "global-stream", "shared", "stream", "overlapped"
const char* familyName(ScheduleFamily f);
/// global-stream and stream: a family that sweeps an iterator.
bool streams(ScheduleFamily f);
std::optional<ScheduleFamily> parseFamily(std::string_view s);

/// The family's default block for a thread grid of `gridDims` dimensions (x first): (256) for
/// 1-D; (32, 8, 1) for 2-D and 3-D, but overlapped (32, 16) in 2-D and (16, 8, 4) in 3-D and
/// shared (32, 4, 4) in 3-D (overlapped: the block covers the tile and its halo).
std::vector<int64_t> defaultBlockShape(ScheduleFamily f, size_t gridDims);

}  // namespace tessel
