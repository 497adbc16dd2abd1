#include "launch/occupancy.hpp"

#include "launch/geometry.hpp"

namespace cuabi {
namespace launch {

Status blocks_per_multiprocessor(const Kernel& kernel, KernelFacts& facts, uint32_t threads, uint32_t shared_bytes,
                                 uint32_t* out_blocks) {
    if (facts.blocks_per_multiprocessor.lookup(threads, shared_bytes, out_blocks)) return CUABI_SUCCESS;
    int blocks = 0;
    CUresult result = kernel.context().api().cuOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, kernel.function(), static_cast<int>(threads), shared_bytes);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                       "check that the kernel's module is still loaded and the device usable",
                       "for kernel '%s' with %u threads per block and %u bytes of dynamic shared memory",
                       kernel.name().c_str(), threads, shared_bytes);
    *out_blocks = blocks < 0 ? 0u : static_cast<uint32_t>(blocks);
    facts.blocks_per_multiprocessor.store(threads, shared_bytes, *out_blocks);
    return CUABI_SUCCESS;
}

Status max_cluster_blocks(const Kernel& kernel, KernelFacts& facts, const Shape& shape, uint32_t* out_blocks) {
    const uint32_t threads = static_cast<uint32_t>(dim_product(shape.block));
    if (facts.max_cluster_blocks.lookup(threads, shape.dynamic_shared_bytes, out_blocks)) return CUABI_SUCCESS;
    // The calculator ignores the cluster dimensions of the config; it answers for block and memory.
    CUlaunchConfig config = driver_config(shape, nullptr);
    int blocks = 0;
    CUresult result = kernel.context().api().cuOccupancyMaxPotentialClusterSize(&blocks, kernel.function(), &config);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuOccupancyMaxPotentialClusterSize",
                       "check that the kernel's module is still loaded and the device usable",
                       "for kernel '%s' with block (%u,%u,%u) and %u bytes of dynamic shared memory",
                       kernel.name().c_str(), shape.block[0], shape.block[1], shape.block[2],
                       shape.dynamic_shared_bytes);
    *out_blocks = blocks < 0 ? 0u : static_cast<uint32_t>(blocks);
    facts.max_cluster_blocks.store(threads, shape.dynamic_shared_bytes, *out_blocks);
    return CUABI_SUCCESS;
}

Status max_active_blocks(Kernel& kernel, uint32_t block_threads, uint32_t shared_bytes, uint32_t* out_blocks) {
    Status status = kernel.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    KernelFacts* facts = nullptr;
    if ((status = kernel_facts(kernel, &facts)) != CUABI_SUCCESS) return status;
    Shape shape;
    shape.block[0] = block_threads;
    shape.dynamic_shared_bytes = shared_bytes;
    const char* name = kernel.name().c_str();
    Geometry geometry;
    if ((status = check_geometry(name, facts->device, facts->limits, shape, &geometry)) != CUABI_SUCCESS) return status;
    if ((status = check_shared_memory(name, facts->device, facts->limits, shared_bytes)) != CUABI_SUCCESS) return status;
    if ((status = ensure_dynamic_shared(kernel, *facts, shared_bytes)) != CUABI_SUCCESS) return status;
    return blocks_per_multiprocessor(kernel, *facts, block_threads, shared_bytes, out_blocks);
}

Status max_active_clusters(Kernel& kernel, const Shape& asked, uint32_t* out_clusters) {
    const char* name = kernel.name().c_str();
    if (!asked.has_cluster())
        return fail(CUABI_ERROR_LAUNCH_CLUSTER, "set config->cluster to the cluster shape to ask about",
                    "kernel '%s': the config has no cluster (cluster {0,0,0})", name);
    Status status = kernel.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    KernelFacts* facts = nullptr;
    if ((status = kernel_facts(kernel, &facts)) != CUABI_SUCCESS) return status;
    Shape shape = asked;  // one cluster's worth of grid, so that the grid checks hold by construction
    for (int i = 0; i < 3; ++i) shape.grid[i] = shape.cluster[i] == 0 ? 1 : shape.cluster[i];
    Geometry geometry;
    if ((status = check_geometry(name, facts->device, facts->limits, shape, &geometry)) != CUABI_SUCCESS) return status;
    if ((status = check_shared_memory(name, facts->device, facts->limits, shape.dynamic_shared_bytes)) != CUABI_SUCCESS)
        return status;
    if ((status = check_cluster_shape(name, facts->device, facts->limits, shape)) != CUABI_SUCCESS) return status;
    if ((status = ensure_dynamic_shared(kernel, *facts, shape.dynamic_shared_bytes)) != CUABI_SUCCESS) return status;
    uint32_t largest = 0;
    if ((status = max_cluster_blocks(kernel, *facts, shape, &largest)) != CUABI_SUCCESS) return status;
    if ((status = check_cluster_size(name, facts->device, shape, largest)) != CUABI_SUCCESS) return status;

    CUlaunchAttribute cluster{};
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = shape.cluster[0];
    cluster.value.clusterDim.y = shape.cluster[1];
    cluster.value.clusterDim.z = shape.cluster[2];
    CUlaunchConfig config = driver_config(shape, nullptr);
    config.attrs = &cluster;
    config.numAttrs = 1;
    int clusters = 0;
    CUresult result = kernel.context().api().cuOccupancyMaxActiveClusters(&clusters, kernel.function(), &config);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuOccupancyMaxActiveClusters",
                       "check that the kernel's module is still loaded and the device usable",
                       "for kernel '%s' with cluster (%u,%u,%u), block (%u,%u,%u) and %u bytes of dynamic shared memory",
                       name, shape.cluster[0], shape.cluster[1], shape.cluster[2], shape.block[0], shape.block[1],
                       shape.block[2], shape.dynamic_shared_bytes);
    *out_clusters = clusters < 0 ? 0u : static_cast<uint32_t>(clusters);
    return CUABI_SUCCESS;
}

Status suggest_block_size(Kernel& kernel, uint32_t shared_bytes, uint32_t* out_block_threads,
                          uint32_t* out_min_grid_blocks) {
    Status status = kernel.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    KernelFacts* facts = nullptr;
    if ((status = kernel_facts(kernel, &facts)) != CUABI_SUCCESS) return status;
    const char* name = kernel.name().c_str();
    if ((status = check_shared_memory(name, facts->device, facts->limits, shared_bytes)) != CUABI_SUCCESS) return status;
    if ((status = ensure_dynamic_shared(kernel, *facts, shared_bytes)) != CUABI_SUCCESS) return status;
    int min_grid = 0, block = 0;
    CUresult result = kernel.context().api().cuOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel.function(),
                                                                             nullptr, shared_bytes, 0);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuOccupancyMaxPotentialBlockSize",
                       "check that the kernel's module is still loaded and the device usable",
                       "for kernel '%s' with %u bytes of dynamic shared memory", name, shared_bytes);
    *out_block_threads = block < 0 ? 0u : static_cast<uint32_t>(block);
    *out_min_grid_blocks = min_grid < 0 ? 0u : static_cast<uint32_t>(min_grid);
    return CUABI_SUCCESS;
}

}  // namespace launch
}  // namespace cuabi
