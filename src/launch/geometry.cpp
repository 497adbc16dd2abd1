#include "launch/geometry.hpp"

namespace cuabi {
namespace launch {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

using ull = unsigned long long;

}  // namespace

uint64_t mul_saturating(uint64_t a, uint64_t b) {
    uint64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

uint64_t dim_product(const uint32_t dims[3]) { return mul_saturating(mul_saturating(dims[0], dims[1]), dims[2]); }

Status check_geometry(const char* kernel, const DeviceLimits& device, const KernelLimits& limits, const Shape& shape,
                      Geometry* out) {
    const uint32_t* g = shape.grid;
    const uint32_t* b = shape.block;
    for (int i = 0; i < 3; ++i) {
        if (g[i] == 0)
            return fail(CUABI_ERROR_LAUNCH_GRID, "give every grid dimension at least 1 (1 for unused dimensions)",
                        "kernel '%s': grid (%u,%u,%u) has 0 in dimension %s", kernel, g[0], g[1], g[2], kAxis[i]);
        if (b[i] == 0)
            return fail(CUABI_ERROR_LAUNCH_BLOCK, "give every block dimension at least 1 (1 for unused dimensions)",
                        "kernel '%s': block (%u,%u,%u) has 0 in dimension %s", kernel, b[0], b[1], b[2], kAxis[i]);
    }
    for (int i = 0; i < 3; ++i) {
        if (g[i] > device.max_grid[i])
            return fail(CUABI_ERROR_LAUNCH_GRID,
                        format("use at most %u blocks in grid dimension %s: split the work over several launches "
                               "or loop inside the kernel (grid-stride loop)",
                               device.max_grid[i], kAxis[i])
                            .c_str(),
                        "kernel '%s': grid (%u,%u,%u) has %u blocks in dimension %s; %s allows at most %u", kernel,
                        g[0], g[1], g[2], g[i], kAxis[i], device.arch, device.max_grid[i]);
        if (b[i] > device.max_block[i])
            return fail(CUABI_ERROR_LAUNCH_BLOCK,
                        format("use at most %u threads in block dimension %s", device.max_block[i], kAxis[i]).c_str(),
                        "kernel '%s': block (%u,%u,%u) has %u threads in dimension %s; %s allows at most %u", kernel,
                        b[0], b[1], b[2], b[i], kAxis[i], device.arch, device.max_block[i]);
    }
    uint64_t threads = dim_product(b);
    if (threads > device.max_threads_per_block)
        return fail(CUABI_ERROR_LAUNCH_BLOCK,
                    format("reduce the block size to at most %u threads (x*y*z)", device.max_threads_per_block).c_str(),
                    "block (%u,%u,%u) has %llu threads; kernel '%s' allows at most %u on %s (the device's limit per "
                    "block)",
                    b[0], b[1], b[2], static_cast<ull>(threads), kernel, device.max_threads_per_block, device.arch);
    if (threads > limits.max_threads_per_block)
        return fail(CUABI_ERROR_LAUNCH_KERNEL_THREADS,
                    format("reduce the block size to at most %u threads, or lower the kernel's register use "
                           "(maxrregcount, __launch_bounds__) so that more threads fit",
                           limits.max_threads_per_block)
                        .c_str(),
                    "block (%u,%u,%u) has %llu threads; kernel '%s' allows at most %u on %s (its __launch_bounds__ or "
                    "its %u registers per thread limit it below the device's %u)",
                    b[0], b[1], b[2], static_cast<ull>(threads), kernel, limits.max_threads_per_block, device.arch,
                    limits.registers_per_thread, device.max_threads_per_block);
    out->blocks = dim_product(g);
    out->threads_per_block = static_cast<uint32_t>(threads);
    return CUABI_SUCCESS;
}

Status check_shared_memory(const char* kernel, const DeviceLimits& device, const KernelLimits& limits,
                           uint32_t dynamic_shared_bytes) {
    uint64_t total = uint64_t{limits.static_shared_bytes} + dynamic_shared_bytes;
    if (total <= device.shared_per_block_optin) return CUABI_SUCCESS;
    uint32_t room = device.shared_per_block_optin > limits.static_shared_bytes
                        ? device.shared_per_block_optin - limits.static_shared_bytes
                        : 0;
    return fail(CUABI_ERROR_LAUNCH_SHARED_MEMORY,
                format("request at most %u bytes of dynamic shared memory for this kernel", room).c_str(),
                "kernel '%s' needs %llu bytes of shared memory per block (%u static + %u dynamic); %s allows at most "
                "%u per block",
                kernel, static_cast<ull>(total), limits.static_shared_bytes, dynamic_shared_bytes, device.arch,
                device.shared_per_block_optin);
}

Status check_cooperative_support(const char* kernel, const DeviceLimits& device) {
    if (device.cooperative_launch) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_LAUNCH_COOPERATIVE,
                "launch without CUABI_LAUNCH_COOPERATIVE and replace grid-wide synchronization by separate launches",
                "kernel '%s': a cooperative launch was requested, but the device (%s) does not support cooperative "
                "launches",
                kernel, device.arch);
}

Status check_cooperative_threads(const char* kernel, const DeviceLimits& device, const Shape& shape,
                                 const Geometry& geometry) {
    uint64_t resident = mul_saturating(device.max_threads_per_multiprocessor, device.multiprocessor_count);
    uint64_t wanted = mul_saturating(geometry.blocks, geometry.threads_per_block);
    if (wanted <= resident) return CUABI_SUCCESS;
    uint64_t max_blocks = resident / geometry.threads_per_block;
    const uint32_t* g = shape.grid;
    return fail(CUABI_ERROR_LAUNCH_COOPERATIVE,
                format("launch at most %llu blocks of %u threads so that every block is resident at once",
                       static_cast<ull>(max_blocks), geometry.threads_per_block)
                    .c_str(),
                "kernel '%s': cooperative grid (%u,%u,%u) has %llu blocks of %u threads (%llu threads), but %s holds at "
                "most %llu resident threads (%u SMs x %u threads)",
                kernel, g[0], g[1], g[2], static_cast<ull>(geometry.blocks), geometry.threads_per_block,
                static_cast<ull>(wanted), device.arch, static_cast<ull>(resident), device.multiprocessor_count,
                device.max_threads_per_multiprocessor);
}

Status check_cooperative_occupancy(const char* kernel, const DeviceLimits& device, const Shape& shape,
                                   const Geometry& geometry, uint32_t blocks_per_multiprocessor) {
    uint64_t resident = mul_saturating(blocks_per_multiprocessor, device.multiprocessor_count);
    if (geometry.blocks <= resident && resident != 0) return CUABI_SUCCESS;
    const uint32_t* g = shape.grid;
    const uint32_t* b = shape.block;
    if (resident == 0)
        return fail(CUABI_ERROR_LAUNCH_COOPERATIVE,
                    "use fewer threads per block or less dynamic shared memory",
                    "kernel '%s': with block (%u,%u,%u) and %u bytes of dynamic shared memory not one block fits on "
                    "an SM of %s (registers, shared memory and launch bounds decide)",
                    kernel, b[0], b[1], b[2], shape.dynamic_shared_bytes, device.arch);
    return fail(CUABI_ERROR_LAUNCH_COOPERATIVE,
                format("launch at most %llu blocks (%u SMs x cuabi_kernel_get_max_active_blocks_per_sm()), or lower the "
                       "kernel's register or shared memory use",
                       static_cast<ull>(resident), device.multiprocessor_count)
                    .c_str(),
                "kernel '%s': cooperative grid (%u,%u,%u) has %llu blocks, but at most %llu can be resident at once: "
                "%u blocks of (%u,%u,%u) with %u bytes of dynamic shared memory per SM x %u SMs of %s",
                kernel, g[0], g[1], g[2], static_cast<ull>(geometry.blocks), static_cast<ull>(resident),
                blocks_per_multiprocessor, b[0], b[1], b[2], shape.dynamic_shared_bytes, device.multiprocessor_count,
                device.arch);
}

Status check_cluster_shape(const char* kernel, const DeviceLimits& device, const KernelLimits& limits,
                           const Shape& shape) {
    const uint32_t* c = shape.cluster;
    const uint32_t* r = limits.required_cluster;
    const bool required = r[0] != 0 || r[1] != 0 || r[2] != 0;
    if (!shape.has_cluster() && !required) return CUABI_SUCCESS;
    if (shape.has_cluster()) {
        if (device.cc_major < 9 || !device.cluster_launch)
            return fail(CUABI_ERROR_LAUNCH_CLUSTER, "launch without a cluster (cluster {0,0,0})",
                        "kernel '%s': cluster (%u,%u,%u) requested, but thread block clusters need compute "
                        "capability 9.0 or newer and the device is %s",
                        kernel, c[0], c[1], c[2], device.arch);
        for (int i = 0; i < 3; ++i)
            if (c[i] == 0)
                return fail(CUABI_ERROR_LAUNCH_CLUSTER,
                            "use {0,0,0} for no cluster, or at least 1 in every cluster dimension",
                            "kernel '%s': cluster (%u,%u,%u) has 0 in dimension %s", kernel, c[0], c[1], c[2],
                            kAxis[i]);
        if (required && (c[0] != r[0] || c[1] != r[1] || c[2] != r[2]))
            return fail(CUABI_ERROR_LAUNCH_CLUSTER,
                        format("pass cluster (%u,%u,%u), or {0,0,0} to use the compiled one", r[0], r[1], r[2]).c_str(),
                        "kernel '%s' was compiled with __cluster_dims__(%u,%u,%u), but the launch asks for cluster "
                        "(%u,%u,%u)",
                        kernel, r[0], r[1], r[2], c[0], c[1], c[2]);
    }
    const uint32_t* effective = shape.has_cluster() ? c : r;
    const uint32_t* g = shape.grid;
    for (int i = 0; i < 3; ++i)
        if (g[i] % effective[i] != 0)
            return fail(CUABI_ERROR_LAUNCH_CLUSTER, "make every grid dimension a multiple of the cluster dimension",
                        "kernel '%s': grid (%u,%u,%u) is not a multiple of cluster (%u,%u,%u) in dimension %s (%u %% %u "
                        "= %u)",
                        kernel, g[0], g[1], g[2], effective[0], effective[1], effective[2], kAxis[i], g[i],
                        effective[i], g[i] % effective[i]);
    return CUABI_SUCCESS;
}

Status check_programmatic(const char* kernel, const DeviceLimits& device) {
    if (device.cc_major >= 9) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_UNSUPPORTED, "launch without CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT on this device",
                "kernel '%s': programmatic dependent launch needs compute capability 9.0 or newer, and the device is %s",
                kernel, device.arch);
}

Status check_cluster_size(const char* kernel, const DeviceLimits& device, const Shape& shape,
                          uint32_t max_cluster_blocks) {
    uint64_t blocks = dim_product(shape.cluster);
    if (blocks <= max_cluster_blocks) return CUABI_SUCCESS;
    const uint32_t* c = shape.cluster;
    const uint32_t* b = shape.block;
    if (max_cluster_blocks == 0)
        return fail(CUABI_ERROR_LAUNCH_CLUSTER, "launch without a cluster, or with a smaller block or less shared memory",
                    "kernel '%s': with block (%u,%u,%u) and %u bytes of dynamic shared memory no cluster of it can be "
                    "scheduled on %s",
                    kernel, b[0], b[1], b[2], shape.dynamic_shared_bytes, device.arch);
    // Above 8 blocks (the portable limit) sm_90 goes up to 16 once the kernel allows it.
    const bool non_portable_helps = blocks <= 16 && max_cluster_blocks <= 8 && device.cc_major >= 9;
    return fail(CUABI_ERROR_LAUNCH_CLUSTER,
                format("use a cluster of at most %u blocks%s", max_cluster_blocks,
                       non_portable_helps ? ", or allow up to 16 with cuabi_kernel_set_attribute("
                                            "CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE, 1)"
                                          : "")
                    .c_str(),
                "kernel '%s': cluster (%u,%u,%u) has %llu blocks; with block (%u,%u,%u) and %u bytes of dynamic shared "
                "memory %s co-schedules at most %u blocks per cluster",
                kernel, c[0], c[1], c[2], static_cast<ull>(blocks), b[0], b[1], b[2], shape.dynamic_shared_bytes,
                device.arch, max_cluster_blocks);
}

}  // namespace launch
}  // namespace cuabi
