// A pool of device memory for stream-ordered allocations: the device's default pool (the driver's,
// never destroyed by cuabi) or one cuabi created (cuMemPoolCreate, destroyed with the object).
// Buffers allocated from a pool keep the object alive, so a created pool outlives its last buffer.
// The object keeps its context alive.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>

#include "cuabi/cuabi.h"

#include "core/handle_table.hpp"
#include "device/context.hpp"

namespace cuabi {

class MemoryPool final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::MemoryPool;

    // UNSUPPORTED when the device has no stream-ordered allocator (cuabi_buffer_create_async and
    // the pools need CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED).
    static Status require_support(const Context& context);
    // A new pool on the context's device; a release threshold of 0 leaves the driver's default.
    static Status create(std::shared_ptr<Context> context, uint64_t max_size, uint64_t release_threshold,
                         std::shared_ptr<MemoryPool>* out);
    // The device's default pool (cuDeviceGetDefaultMemPool), not owned.
    static Status default_of(std::shared_ptr<Context> context, std::shared_ptr<MemoryPool>* out);
    ~MemoryPool() override;

    Status set_release_threshold(uint64_t bytes) const;
    Status trim(uint64_t min_bytes_to_keep) const;
    // `attribute` is a CUABI_MEMORY_POOL_* value (already validated).
    Status attribute(int32_t attribute, uint64_t* out_value) const;

    const Context& context() const { return *context_; }
    const std::shared_ptr<Context>& context_ref() const { return context_; }
    CUmemoryPool cu_pool() const { return pool_; }

private:
    MemoryPool(std::shared_ptr<Context> context, CUmemoryPool pool, bool owned)
        : context_(std::move(context)), pool_(pool), owned_(owned) {}

    std::shared_ptr<Context> context_;
    CUmemoryPool pool_;
    bool owned_;  // created by cuabi: destroyed with the object
};

}  // namespace cuabi
