// A cuabi context: one device's primary CUDA context, retained while this object lives, plus
// everything cuabi caches per device (its limits) and counts per context.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "driver/driver_api.hpp"

namespace cuabi {

// Per-context telemetry. Relaxed atomics: counters order nothing.
struct Counters {
    std::atomic<uint64_t> launches{0}, launches_packed{0}, launches_cooperative{0}, launches_cluster{0};
    std::atomic<uint64_t> synchronizations{0};
    std::atomic<uint64_t> graph_launches{0}, graph_instantiations{0}, graph_updates{0}, graph_reinstantiations{0};
    std::atomic<uint64_t> compiles{0}, compile_time_ns{0};
    std::atomic<uint64_t> memory_cache_hits{0}, memory_cache_misses{0};
    std::atomic<uint64_t> disk_cache_hits{0}, disk_cache_misses{0};
    std::atomic<uint64_t> disk_cache_corrupt_recovered{0}, disk_cache_evictions{0};

    static void bump(std::atomic<uint64_t>& counter, uint64_t by = 1) {
        counter.fetch_add(by, std::memory_order_relaxed);
    }
};

// What cuabi knows about a device, read once per context (the fields of cuabi_device_info, whose
// header comments say what each means; src/api/ copies them out).
struct DeviceInfo {
    int32_t ordinal = 0;
    char name[256] = {};
    uint8_t uuid[16] = {};
    int32_t compute_capability_major = 0;
    int32_t compute_capability_minor = 0;
    int32_t multiprocessor_count = 0;
    int32_t warp_size = 0;
    uint64_t total_memory_bytes = 0;
    int32_t max_threads_per_block = 0;
    int32_t max_block_dim[3] = {};
    int32_t max_grid_dim[3] = {};
    int32_t max_shared_memory_per_block = 0;
    int32_t max_shared_memory_per_block_optin = 0;
    int32_t max_shared_memory_per_multiprocessor = 0;
    int32_t max_registers_per_block = 0;
    int32_t max_registers_per_multiprocessor = 0;
    int32_t max_threads_per_multiprocessor = 0;
    int32_t max_blocks_per_multiprocessor = 0;
    uint32_t cooperative_launch = 0;
    uint32_t cluster_launch = 0;
    int32_t pci_domain_id = 0;
    int32_t pci_bus_id = 0;
    int32_t pci_device_id = 0;
    int32_t clock_rate_khz = 0;
    int32_t memory_bus_width_bits = 0;
    int32_t l2_cache_bytes = 0;
};

// Reads every fact of device `ordinal` (the driver must be loaded). Fails with
// CUABI_ERROR_INVALID_DEVICE for an ordinal outside [0, count).
Status query_device_info(const DriverApi& api, int32_t ordinal, DeviceInfo* out);

// One CUdevice_attribute of device `ordinal` (no context needed): INVALID_DEVICE for an ordinal
// outside [0, count), INVALID_ARGUMENT (with the CUresult) for an attribute the driver does not know.
Status query_device_attribute(const DriverApi& api, int32_t ordinal, int32_t attribute, int32_t* out_value);

class Context final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::Context;

    // Retains the primary context of device `ordinal`.
    static Status create(int32_t ordinal, std::shared_ptr<Context>* out);
    ~Context() override;

    // Makes this context current on the calling thread. Costs one cuCtxGetCurrent (a thread-local
    // read inside the driver) when it already is; calls cuCtxSetCurrent only when it is not. We
    // ask the driver rather than trusting a cache of our own because other CUDA code on the thread
    // (the runtime's cudaSetDevice, another library) may have switched contexts behind our back.
    Status make_current() const;

    // Runs `call` (returning a CUresult) with this context pushed on the calling thread, then pops
    // it: for work done on the caller's behalf -- loading or unloading a module, possibly from a
    // destructor -- that must leave whatever context the caller had current in place.
    template <typename Call>
    CUresult call_pushed(Call call) const {
        CUresult result = api_->cuCtxPushCurrent(context_);
        if (result != CUDA_SUCCESS) return result;
        result = call();
        CUcontext popped = nullptr;
        api_->cuCtxPopCurrent(&popped);
        return result;
    }

    // Waits for all work of this process on the context (cuCtxSynchronize); counted.
    Status synchronize() const;

    const DriverApi& api() const { return *api_; }
    CUcontext cu_context() const { return context_; }
    CUdevice cu_device() const { return device_; }
    int32_t ordinal() const { return info_.ordinal; }
    const DeviceInfo& info() const { return info_; }
    Counters& counters() const { return counters_; }
    // CUABI_IMAGE_VERIFY_* as the context was created with (compile/image_verifier.hpp decides
    // what it means); set once, before the context is published.
    int32_t image_verification() const { return image_verification_; }
    void set_image_verification(int32_t policy) { image_verification_ = policy; }

private:
    Context() = default;
    const DriverApi* api_ = nullptr;
    CUdevice device_ = 0;
    CUcontext context_ = nullptr;
    DeviceInfo info_;
    mutable Counters counters_;
    int32_t image_verification_ = 0;
};

}  // namespace cuabi
