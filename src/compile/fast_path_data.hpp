// What the launch fast path reads about a kernel, kept inside the kernel object (compile/kernel.hpp)
// so that a launch follows no pointer to reach it. The compile layer only stores it; src/launch/
// fills it from the kernel's facts on its first launch (prepare_fast_path) and reads it on every
// later one (launch/fast_path.hpp explains the fast path).
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>

#include "driver/driver_api.hpp"

namespace cuabi {

struct Counters;

// Kernels with more parameters than this launch through the general path.
constexpr uint32_t kFastParams = 32;

struct alignas(64) FastPath {
    // First line: what every fast launch reads besides grid limits and parameters. Copies of what
    // it needs from the kernel, its context and the driver, so that it follows no pointers there.
    CUfunction function = nullptr;
    CUcontext context = nullptr;
    Counters* counters = nullptr;  // the context's
    decltype(DriverApi::cuLaunchKernel) launch_kernel = nullptr;
    uint32_t max_threads = 0;  // min(device limit, kernel limit)
    uint32_t shared_room = 0;  // device opt-in maximum - the kernel's static shared memory
    // The kernel's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as cuabi last saw or set it. Only
    // ever raised (ensure_dynamic_shared), so a launch reads it without a lock.
    mutable std::atomic<uint32_t> opted_in_shared{0};
    uint16_t param_count = 0;
    uint16_t param_bytes = 0;  // ParamLayout::total_bytes
    // Set (release) once everything above and below is filled, when prepare_fast_path said the
    // kernel is eligible; read (acquire) first by every fast launch.
    std::atomic<bool> eligible{false};
    // The device's grid limits end the first line (fast_path.cpp asserts it); the second holds the
    // block limits and the first 13 parameters (offset and size of each, both below 32 KiB), and
    // each further line 16 more.
    uint32_t max_grid[3] = {0, 0, 0};
    uint32_t max_block[3] = {0, 0, 0};
    struct Param {
        uint16_t offset;
        uint16_t size;
    } params[kFastParams] = {};
};

}  // namespace cuabi
