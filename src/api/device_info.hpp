// The device layer's DeviceInfo and Counters as the public output structs: src/api/ is the only
// place that writes cuabi_device_info and cuabi_counters.
#pragma once

#include <cstring>

#include "cuabi/cuabi.h"
#include "device/context.hpp"

namespace cuabi {

inline cuabi_device_info public_device_info(const DeviceInfo& in) {
    cuabi_device_info out CUABI_DEVICE_INFO_INIT;
    out.ordinal = in.ordinal;
    std::memcpy(out.name, in.name, sizeof out.name);
    std::memcpy(out.uuid, in.uuid, sizeof out.uuid);
    out.compute_capability_major = in.compute_capability_major;
    out.compute_capability_minor = in.compute_capability_minor;
    out.multiprocessor_count = in.multiprocessor_count;
    out.warp_size = in.warp_size;
    out.total_memory_bytes = in.total_memory_bytes;
    out.max_threads_per_block = in.max_threads_per_block;
    for (int i = 0; i < 3; ++i) {
        out.max_block_dim[i] = in.max_block_dim[i];
        out.max_grid_dim[i] = in.max_grid_dim[i];
    }
    out.max_shared_memory_per_block = in.max_shared_memory_per_block;
    out.max_shared_memory_per_block_optin = in.max_shared_memory_per_block_optin;
    out.max_shared_memory_per_multiprocessor = in.max_shared_memory_per_multiprocessor;
    out.max_registers_per_block = in.max_registers_per_block;
    out.max_registers_per_multiprocessor = in.max_registers_per_multiprocessor;
    out.max_threads_per_multiprocessor = in.max_threads_per_multiprocessor;
    out.max_blocks_per_multiprocessor = in.max_blocks_per_multiprocessor;
    out.cooperative_launch = in.cooperative_launch;
    out.cluster_launch = in.cluster_launch;
    out.pci_domain_id = in.pci_domain_id;
    out.pci_bus_id = in.pci_bus_id;
    out.pci_device_id = in.pci_device_id;
    out.clock_rate_khz = in.clock_rate_khz;
    out.memory_bus_width_bits = in.memory_bus_width_bits;
    out.l2_cache_bytes = in.l2_cache_bytes;
    return out;
}

inline cuabi_counters public_counters(const Counters& counters) {
    cuabi_counters snapshot CUABI_COUNTERS_INIT;
    cuabi_counters* out = &snapshot;
    auto read = [](const std::atomic<uint64_t>& counter) { return counter.load(std::memory_order_relaxed); };
    out->launches = read(counters.launches);
    out->launches_packed = read(counters.launches_packed);
    out->launches_cooperative = read(counters.launches_cooperative);
    out->launches_cluster = read(counters.launches_cluster);
    out->synchronizations = read(counters.synchronizations);
    out->graph_launches = read(counters.graph_launches);
    out->graph_instantiations = read(counters.graph_instantiations);
    out->graph_updates = read(counters.graph_updates);
    out->graph_reinstantiations = read(counters.graph_reinstantiations);
    out->compiles = read(counters.compiles);
    out->compile_time_ns = read(counters.compile_time_ns);
    out->memory_cache_hits = read(counters.memory_cache_hits);
    out->memory_cache_misses = read(counters.memory_cache_misses);
    out->disk_cache_hits = read(counters.disk_cache_hits);
    out->disk_cache_misses = read(counters.disk_cache_misses);
    out->disk_cache_corrupt_recovered = read(counters.disk_cache_corrupt_recovered);
    out->disk_cache_evictions = read(counters.disk_cache_evictions);
    return snapshot;
}

}  // namespace cuabi
