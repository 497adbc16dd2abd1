// The fast path of a validated launch: the common launch (plain grid and block, a cuabi stream, no
// flags, no cluster, a kernel of up to kFastParams parameters that has launched before) checked
// against numbers kept on two cache lines inside the kernel object, by one compact function
// (launch_fast in launcher.cpp).
//
// Why it exists: the driver's cuLaunchKernel (about 3 us on an H100 host) evicts cuabi's code and
// data from the first-level caches, so what a validated launch adds to it is mostly cache misses:
// the cost grows with the lines cuabi touches (docs/performance.md, "Where the time went"). The
// general path walks a dozen objects and runs checks in separate functions; on the H100 it added
// 150-250 ns per launch. The fast path touches the two handle slots, the two lines below, the
// stream's first line, the counters and the caller's arguments.
//
// It checks the same limits as the general path and never reports an error: anything it does not
// admit (including every invalid launch) goes the general way, which checks everything again and
// says what is wrong. So `admits_*` must never accept what check_geometry, check_shared_memory,
// check_cluster_shape, check_arguments or check_packed would refuse;
// tests/unit/launch_fast_path_test.cpp holds them to that on synthetic devices.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>

#include "cuabi/cuabi.h"
#include "driver/driver_api.hpp"
#include "compile/fast_path_data.hpp"
#include "launch/arguments.hpp"
#include "launch/limits.hpp"

namespace cuabi {
namespace launch {

// Fills the limits and parameters of `out` from a kernel's facts (not the pointers, nor
// opted_in_shared, nor `eligible`) and says whether the kernel is eligible: not with an unknown
// layout, more than kFastParams parameters, compiled cluster dimensions, static shared memory
// beyond the device's maximum, or block limits of 2^16 or more.
bool prepare_fast_path(const DeviceLimits& device, const KernelLimits& limits, const ParamLayout& layout,
                       FastPath* out);

// Grid, block, thread count and dynamic shared memory of `config` (whose flags are 0 and cluster
// {0,0,0}), given the dynamic shared memory the kernel is already opted in to.
// (A LaunchConfig or a PlainLaunch: both have grid[3], block[3] and shared_memory_bytes.)
template <typename Config>
inline bool admits_shape(const FastPath& fast, const Config& config, uint32_t opted_in_shared) {
    // d - 1 wraps 0 to UINT32_MAX, so one comparison refuses both 0 and too large.
    bool ok = config.grid[0] - 1u < fast.max_grid[0];
    ok &= config.grid[1] - 1u < fast.max_grid[1];
    ok &= config.grid[2] - 1u < fast.max_grid[2];
    ok &= config.block[0] - 1u < fast.max_block[0];
    ok &= config.block[1] - 1u < fast.max_block[1];
    ok &= config.block[2] - 1u < fast.max_block[2];
    ok &= config.shared_memory_bytes <= fast.shared_room;
    ok &= config.shared_memory_bytes <= opted_in_shared;
    // Each block dimension is below 2^16 here (prepare_fast_path), so the product fits 64 bits.
    ok = ok && uint64_t{config.block[0]} * config.block[1] * config.block[2] <= fast.max_threads;
    return ok;
}

// An argument table: one non-NULL value per parameter, each of the parameter's size.
inline bool admits_table(const FastPath& fast, const cuabi_kernel_arg* args, size_t count) {
    if (count != fast.param_count || (count != 0 && args == nullptr)) return false;
    for (size_t i = 0; i < count; ++i)
        if (args[i].value == nullptr || args[i].size != fast.params[i].size) return false;
    return true;
}

// A packed buffer of exactly the parameters' bytes.
inline bool admits_packed(const FastPath& fast, const void* packed, size_t packed_size) {
    return packed_size == fast.param_bytes && (packed != nullptr || packed_size == 0);
}

}  // namespace launch
}  // namespace cuabi
