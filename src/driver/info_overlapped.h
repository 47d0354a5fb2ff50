// `tessel info` for the overlapped family: each fused kernel's tile, regions, redundancy, shared
// memory and global traffic, from the tile-region analysis (analysis/tile_regions.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/program.h"
#include "schedule/schedule.h"

namespace tessel {

/// One entry per fused kernel the schedules give (empty when no stencil is overlapped), and one
/// per group that is not fused, with the reason.
nlohmann::json fusedKernelsJson(const Program& prog, const std::vector<Schedule>& schedules);
/// The entries as text ("" when there are none).
std::string fusedKernelsText(const nlohmann::json& kernels);

}  // namespace tessel
