// `tessel info` for the overlapped family and stream + time_tile: each fused kernel's tile,
// regions, redundancy, shared memory and global traffic, from the tile-region analysis
// (analysis/tile_regions.h; per plane when streamed).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/program.h"
#include "model/machine.h"
#include "schedule/resolve.h"

namespace tessel {

/// One entry per fused kernel the schedules give (empty when no stencil is overlapped), and one
/// per group that is not fused, with the reason. A kernel needing more shared memory than
/// `machine` gives a block is marked ("exceeds_shared", with a note): `run` and `emit` refuse it.
nlohmann::json fusedKernelsJson(const Program& prog, const ResolvedSchedule& resolved,
                                const MachineDesc& machine);
/// The entries as text ("" when there are none).
std::string fusedKernelsText(const nlohmann::json& kernels);

}  // namespace tessel
