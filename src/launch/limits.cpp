#include "launch/limits.hpp"

#include <cstdio>

namespace cuabi {
namespace launch {

DeviceLimits device_limits_from(const DeviceInfo& info) {
    DeviceLimits limits;
    for (int i = 0; i < 3; ++i) {
        limits.max_grid[i] = static_cast<uint32_t>(info.max_grid_dim[i]);
        limits.max_block[i] = static_cast<uint32_t>(info.max_block_dim[i]);
    }
    limits.max_threads_per_block = static_cast<uint32_t>(info.max_threads_per_block);
    limits.shared_per_block = static_cast<uint32_t>(info.max_shared_memory_per_block);
    limits.shared_per_block_optin = static_cast<uint32_t>(info.max_shared_memory_per_block_optin);
    // Devices before Volta have no opt-in: their maximum is the plain per-block one.
    if (limits.shared_per_block_optin < limits.shared_per_block) limits.shared_per_block_optin = limits.shared_per_block;
    limits.multiprocessor_count = static_cast<uint32_t>(info.multiprocessor_count);
    limits.max_threads_per_multiprocessor = static_cast<uint32_t>(info.max_threads_per_multiprocessor);
    limits.cc_major = info.compute_capability_major;
    limits.cc_minor = info.compute_capability_minor;
    limits.cooperative_launch = info.cooperative_launch != 0;
    limits.cluster_launch = info.cluster_launch != 0;
    std::snprintf(limits.arch, sizeof limits.arch, "sm_%d%d", info.compute_capability_major,
                  info.compute_capability_minor);
    return limits;
}

}  // namespace launch
}  // namespace cuabi
