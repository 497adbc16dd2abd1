// A cuabi buffer: device memory of a fixed size, owned (cuMemAlloc'd, stream-ordered from a pool,
// allocated by a graph's memory node, or managed) or wrapped (a device pointer from elsewhere,
// never freed by cuabi). Every copy is checked against the bounds in overflow-safe arithmetic
// before the driver sees it. The buffer keeps its context alive, and a pool's buffer its pool.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/handle_table.hpp"
#include "device/context.hpp"
#include "device/stream.hpp"

namespace cuabi {

// OUT_OF_BOUNDS unless [offset, offset + size) lies within a buffer of `buffer_size` bytes;
// never overflows. `operation` and `which` name the access for the message ("write", "source").
Status check_range(size_t offset, size_t size, size_t buffer_size, const char* operation, const char* which);

// DEVICE_OUT_OF_MEMORY when `size` exceeds all of the device's memory.
Status check_fits_device(const Context& context, size_t size);

// Validates a fill: element_size 1, 2 or 4, offset a multiple of it, count elements in bounds.
Status check_fill(size_t offset, uint32_t element_size, size_t count, size_t buffer_size);

class MemoryPool;

class Buffer final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::Buffer;

    // Where the memory came from, which decides how it is released.
    enum class Memory : uint8_t {
        Allocated,       // cuMemAlloc: cuMemFree on destruction
        StreamOrdered,   // from a pool in stream order: cuMemFree on destruction unless freed on a stream
        GraphAllocated,  // a graph's allocation node: freed only on a stream or by the graph
        Managed,         // cuMemAllocManaged: cuMemFree on destruction
        Borrowed,        // wrapped memory or a view: never freed by cuabi
        Released,        // freed on a stream already (free_async): nothing left to do
    };

    // Allocates `size` bytes (> 0); `flags` are CUABI_BUFFER_* (already validated).
    static Status create(std::shared_ptr<Context> context, size_t size, uint32_t flags, std::shared_ptr<Buffer>* out);
    // Wraps [address, address + size) without owning it, after checking with the driver where it can.
    static Status wrap(std::shared_ptr<Context> context, CUdeviceptr address, size_t size, std::shared_ptr<Buffer>* out);
    // A view of [address, address + size) that `owner` keeps valid (a module's variable): never
    // freed by the buffer, which keeps `owner` alive instead.
    static Status view(std::shared_ptr<Context> context, CUdeviceptr address, size_t size,
                       std::shared_ptr<const void> owner, std::shared_ptr<Buffer>* out);
    // Allocates `size` bytes (> 0) from `pool` in stream order on `stream` (NULL: the per-thread
    // stream, waited for); a graph allocation when the stream captures. `flags` as for create().
    // (device/stream_ordered.cpp)
    static Status create_async(std::shared_ptr<MemoryPool> pool, size_t size, uint32_t flags, const Stream* stream,
                               std::shared_ptr<Buffer>* out);
    // Managed memory of `size` bytes (> 0); `flags` are CUABI_MANAGED_* (already validated).
    // (device/managed.cpp)
    static Status create_managed(std::shared_ptr<Context> context, size_t size, uint32_t flags,
                                 std::shared_ptr<Buffer>* out);
    ~Buffer() override;

    // INVALID_ARGUMENT unless the buffer is stream-ordered or a graph allocation and may be freed
    // on `stream` (capturing or not); checked before the handle is given up.
    // `other_holders`: references to the buffer beyond the handle's and the caller's (graphs).
    Status check_free_async(const Stream* stream, long other_holders) const;
    // Enqueues the free on `stream` (NULL: per-thread, waited for) after check_free_async; the
    // buffer then releases nothing more.
    Status free_async(const Stream* stream);

    // The host address of managed memory (UNSUPPORTED for other memory).
    Status host_pointer(void** out_pointer) const;
    // Managed memory only (UNSUPPORTED otherwise), range in bounds, `location` a device ordinal or
    // CUABI_LOCATION_HOST; `advice` a CUABI_ADVICE_* value (already validated). (device/managed.cpp)
    Status prefetch(size_t offset, size_t size, int32_t location, const Stream* stream) const;
    Status advise(size_t offset, size_t size, int32_t advice, int32_t location) const;

    // NULL stream: synchronous on the per-thread stream. Zero-byte transfers succeed without
    // reaching the driver (after the offset check).
    Status write(size_t offset, const void* src, size_t size, const Stream* stream) const;
    Status read(size_t offset, void* dst, size_t size, const Stream* stream) const;
    static Status copy(const Buffer& dst, size_t dst_offset, const Buffer& src, size_t src_offset, size_t size,
                       const Stream* stream);
    Status fill(size_t offset, uint32_t value, uint32_t element_size, size_t count, const Stream* stream) const;

    const Context& context() const { return *context_; }
    CUdeviceptr address() const { return address_; }
    size_t size() const { return size_; }
    Memory memory() const { return memory_; }

private:
    Buffer(std::shared_ptr<Context> context, CUdeviceptr address, size_t size, Memory memory)
        : context_(std::move(context)), address_(address), size_(size), memory_(memory) {}
    // Checks the stream's context and makes the buffer's context current.
    Status prepare(const Stream* stream) const;
    // Lists a new buffer that owns its memory in the buffer directory, and fills it with zero
    // bytes on `stream` for CUABI_BUFFER_ZERO.
    static Status finish_owned(std::shared_ptr<Buffer> created, uint32_t flags, const Stream* stream,
                               std::shared_ptr<Buffer>* out);
    // The managed-memory checks shared by prefetch and advise.
    Status check_managed_range(size_t offset, size_t size, int32_t location, const char* operation) const;

    std::shared_ptr<Context> context_;
    CUdeviceptr address_;
    size_t size_;
    Memory memory_;
    std::shared_ptr<const void> owner_;  // what keeps a view's memory or a pool's buffer valid; null otherwise
};

}  // namespace cuabi
