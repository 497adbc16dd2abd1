// Launch geometry checks: grid, block, kernel thread limit, shared memory, cooperative residency
// and clusters. Pure functions over launch/limits.hpp, so they cost nanoseconds on the
// launch path and unit tests can run them against any device they make up.
//
// Each check returns CUABI_SUCCESS or fails with its own status and a message naming the kernel,
// the values, the limit and a fix. Arithmetic is 64-bit and saturating: three 32-bit dimensions
// multiply to up to 96 bits, so no product here can wrap into a small, "valid" number.
#pragma once

#include <cstdint>

#include "core/error.hpp"
#include "launch/limits.hpp"

namespace cuabi {
namespace launch {

// a * b, or UINT64_MAX when the product does not fit.
uint64_t mul_saturating(uint64_t a, uint64_t b);

// x * y * z in 64 bits, saturating.
uint64_t dim_product(const uint32_t dims[3]);

// What check_geometry learned, for the checks that follow it.
struct Geometry {
    uint64_t blocks = 0;             // grid product
    uint32_t threads_per_block = 0;  // block product (fits: checked against the device limit)
};

// Zero dimensions, each grid and block dimension against the device, threads per block against
// the device (CUABI_ERROR_LAUNCH_GRID / CUABI_ERROR_LAUNCH_BLOCK) and against the kernel's own
// limit (CUABI_ERROR_LAUNCH_KERNEL_THREADS).
Status check_geometry(const char* kernel, const DeviceLimits& device, const KernelLimits& limits, const Shape& shape,
                      Geometry* out);

// Static plus dynamic shared memory against the device's opt-in maximum
// (CUABI_ERROR_LAUNCH_SHARED_MEMORY). Raising the kernel's attribute is the caller's job.
Status check_shared_memory(const char* kernel, const DeviceLimits& device, const KernelLimits& limits,
                           uint32_t dynamic_shared_bytes);

// Cooperative launches, in the order that needs the fewest driver calls
// (all CUABI_ERROR_LAUNCH_COOPERATIVE): device support, then residency by thread count, then
// residency by occupancy (blocks_per_multiprocessor comes from the driver's occupancy calculator).
Status check_cooperative_support(const char* kernel, const DeviceLimits& device);
Status check_cooperative_threads(const char* kernel, const DeviceLimits& device, const Shape& shape,
                                 const Geometry& geometry);
Status check_cooperative_occupancy(const char* kernel, const DeviceLimits& device, const Shape& shape,
                                   const Geometry& geometry, uint32_t blocks_per_multiprocessor);

// Cluster shape (CUABI_ERROR_LAUNCH_CLUSTER): device support (compute capability 9.0+), no zero
// dimension in a requested cluster, agreement with the kernel's __cluster_dims__, and a grid that
// is a multiple of the cluster in every dimension (also for compile-time cluster dimensions).
Status check_cluster_shape(const char* kernel, const DeviceLimits& device, const KernelLimits& limits,
                           const Shape& shape);

// Programmatic dependent launch (CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT) needs compute capability
// 9.0 (CUABI_ERROR_UNSUPPORTED otherwise).
Status check_programmatic(const char* kernel, const DeviceLimits& device);

// A launch priority within the context's range, clamped as stream priorities are.
inline int32_t clamp_priority(const DeviceLimits& device, int32_t priority) {
    if (priority < device.greatest_priority) return device.greatest_priority;
    if (priority > device.least_priority) return device.least_priority;
    return priority;
}

// Blocks per requested cluster against the most the kernel can co-schedule
// (cuOccupancyMaxPotentialClusterSize for this block and shared memory).
Status check_cluster_size(const char* kernel, const DeviceLimits& device, const Shape& shape,
                          uint32_t max_cluster_blocks);

}  // namespace launch
}  // namespace cuabi
