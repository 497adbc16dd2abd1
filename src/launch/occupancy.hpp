// Occupancy: how many blocks of a kernel fit on a multiprocessor, which cluster sizes it can be
// co-scheduled in, and which block size suits it best. The launch path asks the first two for
// cooperative and cluster launches; answers are cached per kernel (launch/occupancy_cache.hpp)
// because the driver's calculator costs microseconds.
#pragma once

#include <cstdint>

#include "launch/kernel_facts.hpp"

namespace cuabi {
namespace launch {

// cuOccupancyMaxActiveBlocksPerMultiprocessor, cached. The shape must have passed the geometry and
// shared memory checks, and the kernel must be opted in to `shared_bytes` (ensure_dynamic_shared).
Status blocks_per_multiprocessor(const Kernel& kernel, KernelFacts& facts, uint32_t threads, uint32_t shared_bytes,
                                 uint32_t* out_blocks);

// cuOccupancyMaxPotentialClusterSize for the shape's block and dynamic shared memory, cached.
Status max_cluster_blocks(const Kernel& kernel, KernelFacts& facts, const Shape& shape, uint32_t* out_blocks);

// Behind cuabi_kernel_get_max_active_blocks_per_sm(): checks the values like a launch of one block
// would, then answers from the cache.
Status max_active_blocks(Kernel& kernel, uint32_t block_threads, uint32_t shared_bytes, uint32_t* out_blocks);

// Behind cuabi_kernel_get_max_active_clusters(): checks the block, shared memory and cluster of
// `shape` like a launch of one cluster would, then asks cuOccupancyMaxActiveClusters.
Status max_active_clusters(Kernel& kernel, const Shape& shape, uint32_t* out_clusters);

// Behind cuabi_kernel_suggest_block_size(): cuOccupancyMaxPotentialBlockSize.
Status suggest_block_size(Kernel& kernel, uint32_t shared_bytes, uint32_t* out_block_threads,
                          uint32_t* out_min_grid_blocks);

}  // namespace launch
}  // namespace cuabi
