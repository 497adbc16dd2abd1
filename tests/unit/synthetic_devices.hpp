// Devices made up for the launch checks' unit tests, as the driver reports the real ones.
#pragma once

#include <cstdio>

#include "launch/limits.hpp"

namespace cuabi {
namespace launch {

// An H100 SXM.
inline DeviceLimits hopper() {
    DeviceLimits device;
    device.max_grid[0] = 2147483647u;
    device.max_grid[1] = 65535u;
    device.max_grid[2] = 65535u;
    device.max_block[0] = 1024u;
    device.max_block[1] = 1024u;
    device.max_block[2] = 64u;
    device.max_threads_per_block = 1024u;
    device.shared_per_block = 48u * 1024u;
    device.shared_per_block_optin = 232448u;  // 227 KiB
    device.multiprocessor_count = 132u;
    device.max_threads_per_multiprocessor = 2048u;
    device.cc_major = 9;
    device.cc_minor = 0;
    device.cooperative_launch = true;
    device.cluster_launch = true;
    std::snprintf(device.arch, sizeof device.arch, "sm_90");
    return device;
}

}  // namespace launch
}  // namespace cuabi
