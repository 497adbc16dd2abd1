// The numbers a launch is checked against, as plain data.
//
// DeviceLimits and KernelLimits are copied from the driver once per kernel (launch/kernel_facts)
// and then only read, so the checks in launch/geometry and launch/arguments are pure functions
// that unit tests drive with synthetic limits, no GPU needed.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "cuabi/cuabi.h"
#include "device/context.hpp"

namespace cuabi {
namespace launch {

// The default ceiling of dynamic shared memory per block before a kernel opts in
// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), on every architecture since Volta.
constexpr uint32_t kDefaultSharedMemoryBytes = 48u * 1024u;

// Facts of the device a kernel runs on.
struct DeviceLimits {
    uint32_t max_grid[3] = {0, 0, 0};
    uint32_t max_block[3] = {0, 0, 0};
    uint32_t max_threads_per_block = 0;
    uint32_t shared_per_block = 0;        // without opt-in (48 KiB)
    uint32_t shared_per_block_optin = 0;  // the most a kernel can opt in to
    uint32_t multiprocessor_count = 0;
    uint32_t max_threads_per_multiprocessor = 0;
    int32_t cc_major = 0;
    int32_t cc_minor = 0;
    bool cooperative_launch = false;
    bool cluster_launch = false;
    // Stream priorities the context allows (cuCtxGetStreamPriorityRange): lower numbers run first,
    // greatest_priority <= p <= least_priority.
    int32_t least_priority = 0;
    int32_t greatest_priority = 0;
    char arch[16] = {};  // "sm_90", for messages
};

// Facts of one loaded kernel (cuFuncGetAttribute).
struct KernelLimits {
    uint32_t max_threads_per_block = 0;  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: launch bounds, registers
    uint32_t registers_per_thread = 0;   // CU_FUNC_ATTRIBUTE_NUM_REGS, to explain the above
    uint32_t static_shared_bytes = 0;    // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
    uint32_t required_cluster[3] = {0, 0, 0};  // __cluster_dims__, {0,0,0} when the kernel has none
};

// A launch as the caller configured it: the fields of cuabi_launch_config, which src/api/ reads with
// its struct_size and translates (a 1.0 caller's config has priority 0).
struct LaunchConfig {
    uint32_t flags = 0;  // CUABI_LAUNCH_*
    uint32_t grid[3] = {1, 1, 1};
    uint32_t block[3] = {1, 1, 1};
    uint32_t cluster[3] = {0, 0, 0};
    uint32_t shared_memory_bytes = 0;
    cuabi_stream* stream = nullptr;
    int32_t priority = 0;
};

// A plain launch (no flags, no cluster, a stream) as the fast path reads it: views of the caller's
// three grid and three block dimensions, which src/api/ points into the caller's config once it has
// checked the config's size and that the launch is plain, so the fast path copies nothing.
struct PlainLaunch {
    const uint32_t* grid = nullptr;
    const uint32_t* block = nullptr;
    uint32_t shared_memory_bytes = 0;
    cuabi_stream* stream = nullptr;
};

// What the caller asked for, read from the LaunchConfig.
struct Shape {
    uint32_t grid[3] = {1, 1, 1};
    uint32_t block[3] = {1, 1, 1};
    uint32_t cluster[3] = {0, 0, 0};  // {0,0,0}: no cluster
    uint32_t dynamic_shared_bytes = 0;
    bool cooperative = false;
    bool prioritized = false;   // CUABI_LAUNCH_PRIORITY: `priority` instead of the stream's
    bool programmatic = false;  // CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT
    int32_t priority = 0;

    bool has_cluster() const { return cluster[0] != 0 || cluster[1] != 0 || cluster[2] != 0; }
    // Whether the launch needs launch attributes, and so cuLaunchKernelEx.
    bool needs_attributes() const { return cooperative || prioritized || programmatic || has_cluster(); }
};

// The driver's launch config for `shape` on `stream`, without attributes (cuLaunchKernelEx and
// the cluster occupancy calculator both take one).
inline CUlaunchConfig driver_config(const Shape& shape, CUstream stream) {
    CUlaunchConfig config{};
    config.gridDimX = shape.grid[0];
    config.gridDimY = shape.grid[1];
    config.gridDimZ = shape.grid[2];
    config.blockDimX = shape.block[0];
    config.blockDimY = shape.block[1];
    config.blockDimZ = shape.block[2];
    config.sharedMemBytes = shape.dynamic_shared_bytes;
    config.hStream = stream;
    return config;
}

// Copies the launch limits out of a device's info (see query_device_info).
DeviceLimits device_limits_from(const DeviceInfo& info);

}  // namespace launch
}  // namespace cuabi
