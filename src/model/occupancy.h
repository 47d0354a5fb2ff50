// Occupancy: how many blocks of one kernel a multiprocessor holds at once, by NVIDIA's allocation
// rules for compute capabilities 3.5 to 9.0 (the CUDA Occupancy Calculator's rules, which the
// CUDA toolkit's host-only header cuda_occupancy.h also implements; tests/unit/test_occupancy.cpp
// compares the two over thousands of configurations per compute capability).
//
// A block is resident when the multiprocessor has room for all of it at once:
//   warps      ceil(threads / warp size) of the SM's max threads / warp size;
//   registers  registers per thread x warp size, rounded up to the allocation granularity (256),
//              per warp; warps are spread over the SM's sub-partitions (4; 2 on compute
//              capability 6.0), each holding a quarter of the register file, and a block's warps
//              must fit the per-block limit rounded up to whole sub-partitions;
//   shared     static + dynamic + the bytes the driver reserves per block (1 KiB from 8.0),
//              rounded up to the granularity (256 bytes before 8.0, 128 after); from 7.0 the SM's
//              shared memory is a carve-out of the unified L1/shared array, configured per
//              kernel in fixed steps (the preference, or the smallest step that holds a block);
//   blocks     the per-SM block limit of the compute capability;
//   barriers   9.0: named barriers per SM (twice the block limit) over those a block uses.
// The smallest of these is the answer; every limit that equals it is reported.
//
// Not modelled: partitioned global caching (5.2, 5.3, 6.1, 6.2 with -dlcm=ca; off by default, as
// in the calculator), the pre-7.0 L1/shared split other than "prefer shared" (the default), and
// the virtual resources of compute capability 10 and later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/machine.h"

namespace tessel {

/// The allocation rules of one compute capability.
struct OccupancyRules {
  int64_t sharedGranularity = 256;     // bytes: shared memory is allocated per block in these
  int64_t registerGranularity = 256;   // registers: allocated per warp in these
  int maxRegistersPerThread = 255;     // a kernel using more runs no block
  int subPartitions = 4;               // warp schedulers; each holds 1/n of the register file
  int maxBlocksPerSm = 16;             // resident blocks per SM
  int64_t reservedSharedPerBlock = 0;  // bytes the driver keeps per block (8.0 and later: 1 KiB)
  /// 7.0 and later: the shared-memory sizes (bytes) an SM's L1/shared carve-out can take, in
  /// increasing order; empty before 7.0 (the SM's whole shared memory, "prefer shared").
  std::vector<int64_t> carveouts;
  /// 9.0: named barriers per SM, as a multiple of maxBlocksPerSm (0: not a limit).
  int barrierSlotsPerBlockLimit = 0;
};

/// The rules of compute capability major.minor; nullopt outside 3.5-9.0 (and 4.x).
std::optional<OccupancyRules> occupancyRules(int major, int minor);

/// The compute capabilities occupancyRules knows, in increasing order ("3.5", ..., "9.0"): a
/// machine file must name one of them (model/machine.h).
std::vector<std::string> occupancyCapabilities();

/// One kernel's launch, as occupancy sees it.
struct OccupancyQuery {
  int64_t threads = 0;        // per block
  int registers = 0;          // per thread (ptxas), 0 allowed
  int64_t staticShared = 0;   // bytes, declared in the kernel
  int64_t dynamicShared = 0;  // bytes, given at launch
  bool optIn = false;         // the kernel opted in to the machine's larger per-block limit
  int carveoutPercent = -1;   // 7.0+: the preferred shared share of L1 (0-100); -1: default
  int barriers = 1;           // named barriers a block uses (__syncthreads uses one)
};

/// What limits a block count (several can at once).
enum OccupancyLimit : unsigned {
  kLimitWarps = 1,
  kLimitRegisters = 2,
  kLimitSharedMemory = 4,
  kLimitBlocks = 8,
  kLimitBarriers = 16,
};

struct Occupancy {
  int blocksPerSm = 0;  // resident blocks of the kernel per SM
  /// The block count each resource allows (a large number where it sets no limit).
  int byWarps = 0, byRegisters = 0, bySharedMemory = 0, byBlocks = 0, byBarriers = 0;
  unsigned limitedBy = 0;         // OccupancyLimit bits equal to blocksPerSm
  int64_t sharedPerBlock = 0;     // bytes allocated per block (with reserve and rounding)
  int64_t registersPerBlock = 0;  // registers allocated per block
  int64_t sharedPerSm = 0;        // the SM's configured shared memory for this kernel
  int activeWarps = 0;            // per SM
  double fraction = 0;            // active warps / the SM's maximum

  /// "registers", "shared memory and blocks": what limits it, in words.
  std::string limitText() const;
};

/// The occupancy of `q` on machine `m`. Throws std::invalid_argument for a compute capability
/// without rules (occupancyRules) or a negative input; an impossible launch (too many threads,
/// registers or shared bytes for one block) gives 0 blocks, limited by what is exceeded.
Occupancy occupancy(const MachineDesc& m, const OccupancyQuery& q);

}  // namespace tessel
