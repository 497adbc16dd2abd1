// Entry points of the "Stream-ordered and managed memory" group of cuabi.h.
#include <cstdint>

#include "api/arguments.hpp"
#include "api/buffer_arguments.hpp"
#include "api/enqueue.hpp"
#include "api/guard.hpp"
#include "api/versioned_struct.hpp"
#include "core/deferred_release.hpp"
#include "cuabi/cuabi.h"
#include "device/buffer.hpp"
#include "device/memory_pool.hpp"

using namespace cuabi;

namespace {

// INVALID_ARGUMENT for a location that is neither CUABI_LOCATION_HOST nor a possible ordinal;
// ordinals past the device count are found by the device layer (INVALID_DEVICE).
Status require_location(int32_t location) {
    if (location >= CUABI_LOCATION_HOST) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a device ordinal (0, 1, ...) or CUABI_LOCATION_HOST (-1)",
                "location %d is neither a device ordinal nor CUABI_LOCATION_HOST", location);
}

// The pool to allocate from: the caller's (of `context`'s device) or the device's default.
Status allocation_pool(const std::shared_ptr<Context>& context, const void* pool, std::shared_ptr<MemoryPool>* out) {
    if (pool == nullptr) return MemoryPool::default_of(context, out);
    *out = acquire<MemoryPool>(pool, "pool");
    if (!*out) return refused_handle();
    if ((*out)->context().cu_context() == context->cu_context()) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_CONTEXT_MISMATCH, "allocate from a pool of the context's device",
                "the memory pool belongs to device %d, but the buffer is allocated for device %d",
                (*out)->context().ordinal(), context->ordinal());
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_memory_pool_create(cuabi_context* context, const cuabi_memory_pool_options* options,
                                                cuabi_memory_pool** out_pool) try {
    Status status = require_pointer(out_pool, "out_pool");
    if (status != CUABI_SUCCESS) return status;
    cuabi_memory_pool_options read;
    if ((status = read_struct(options, &read)) != CUABI_SUCCESS) return status;
    if (read.reserved != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "leave reserved 0 (cuabi_memory_pool_options_init)",
                    "cuabi_memory_pool_options.reserved is 0x%x", read.reserved);
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<MemoryPool> pool;
    status = MemoryPool::create(std::move(parent), read.max_size, read.release_threshold, &pool);
    return publish_created(status, std::move(pool), out_pool);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_memory_pool_get_default(cuabi_context* context, cuabi_memory_pool** out_pool) try {
    Status status = require_pointer(out_pool, "out_pool");
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<MemoryPool> pool;
    status = MemoryPool::default_of(std::move(parent), &pool);
    return publish_created(status, std::move(pool), out_pool);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_memory_pool_set_release_threshold(cuabi_memory_pool* pool, uint64_t bytes) try {
    return with_pinned<MemoryPool>(pool, "pool", [&](MemoryPool& target) { return target.set_release_threshold(bytes); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_memory_pool_trim(cuabi_memory_pool* pool, uint64_t min_bytes_to_keep) try {
    return with_pinned<MemoryPool>(pool, "pool", [&](MemoryPool& target) { return target.trim(min_bytes_to_keep); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_memory_pool_get_attribute(cuabi_memory_pool* pool, cuabi_memory_pool_attribute attribute,
                                                       uint64_t* out_value) try {
    Status status = require_pointer(out_value, "out_value");
    if (status != CUABI_SUCCESS) return status;
    if (attribute < CUABI_MEMORY_POOL_RELEASE_THRESHOLD || attribute > CUABI_MEMORY_POOL_USED_HIGH)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass one of the CUABI_MEMORY_POOL_* attributes",
                    "memory pool attribute %d is not one cuabi knows", attribute);
    return with_pinned<MemoryPool>(pool, "pool",
                                   [&](MemoryPool& read) { return read.attribute(attribute, out_value); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_create_async(cuabi_context* context, size_t size, cuabi_memory_pool* pool,
                                                 const cuabi_buffer_options* options, cuabi_stream* stream,
                                                 cuabi_buffer** out_buffer) try {
    uint32_t flags = 0;
    Status status = require_allocation("stream-ordered buffer", out_buffer, size);
    if (status == CUABI_SUCCESS) status = read_buffer_flags(options, &flags);
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<Buffer> buffer;
    status = enqueue_on_stream(stream, __func__, [&](const Stream* on) {
        std::shared_ptr<MemoryPool> source;
        Status found = allocation_pool(parent, pool, &source);
        return found == CUABI_SUCCESS ? Buffer::create_async(std::move(source), size, flags, on, &buffer) : found;
    });
    return publish_created(status, std::move(buffer), out_buffer);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_free_async(cuabi_buffer* buffer, cuabi_stream* stream) try {
    return enqueue_on_stream(stream, __func__, [&](const Stream* on) {
        // References graphs gave up wait in the deferred queue: drop them before counting.
        DeferredRelease::release_queued();
        std::shared_ptr<Buffer> freed = acquire<Buffer>(buffer, "buffer");
        if (!freed) return refused_handle();
        // One reference is the handle table's, one is ours; the others keep the buffer for graphs.
        Status status = freed->check_free_async(on, freed.use_count() - 2);
        if (status == CUABI_SUCCESS) status = freed->free_async(on);
        if (status == CUABI_SUCCESS) destroy_handle<Buffer>(buffer);
        return status;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_create_managed(cuabi_context* context, size_t size, uint32_t flags,
                                                   cuabi_buffer** out_buffer) try {
    Status status = require_allocation("managed buffer", out_buffer, size);
    if (status == CUABI_SUCCESS)
        status = require_known_flags(flags, CUABI_MANAGED_ATTACH_HOST, "flags", "CUABI_MANAGED_*");
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<Buffer> buffer;
    status = Buffer::create_managed(std::move(parent), size, flags, &buffer);
    return publish_created(status, std::move(buffer), out_buffer);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_get_host_pointer(cuabi_buffer* buffer, void** out_pointer) try {
    if (Status status = require_pointer(out_pointer, "out_pointer")) return status;
    return with_pinned<Buffer>(buffer, "buffer", [&](Buffer& read) { return read.host_pointer(out_pointer); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_prefetch(cuabi_buffer* buffer, size_t offset, size_t size, cuabi_location location,
                                             cuabi_stream* stream) try {
    if (Status status = require_location(location)) return status;
    return enqueue_on_stream(stream, __func__, [&](const Stream* on) {
        return with_pinned<Buffer>(buffer, "buffer",
                                   [&](Buffer& target) { return target.prefetch(offset, size, location, on); });
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_advise(cuabi_buffer* buffer, size_t offset, size_t size, cuabi_advice advice,
                                           cuabi_location location) try {
    if (advice < CUABI_ADVICE_SET_READ_MOSTLY || advice > CUABI_ADVICE_UNSET_ACCESSED_BY)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass one of the CUABI_ADVICE_* values",
                    "advice %d is not one cuabi knows", advice);
    if (Status status = require_location(location)) return status;
    return with_pinned<Buffer>(buffer, "buffer",
                               [&](Buffer& target) { return target.advise(offset, size, advice, location); });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
