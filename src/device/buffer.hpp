// A cuabi buffer: device memory of a fixed size, owned (cuMemAlloc'd by cuabi) or wrapped (a
// device pointer from elsewhere, never freed by cuabi). Every copy is checked against the bounds
// in overflow-safe arithmetic before the driver sees it. The buffer keeps its context alive.
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

// Validates a fill: element_size 1, 2 or 4, offset a multiple of it, count elements in bounds.
Status check_fill(size_t offset, uint32_t element_size, size_t count, size_t buffer_size);

class Buffer final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::Buffer;

    // Allocates `size` bytes (> 0); `flags` are CUABI_BUFFER_* (already validated).
    static Status create(std::shared_ptr<Context> context, size_t size, uint32_t flags, std::shared_ptr<Buffer>* out);
    // Wraps [address, address + size) without owning it, after checking with the driver where it can.
    static Status wrap(std::shared_ptr<Context> context, CUdeviceptr address, size_t size, std::shared_ptr<Buffer>* out);
    // A view of [address, address + size) that `owner` keeps valid (a module's variable): never
    // freed by the buffer, which keeps `owner` alive instead.
    static Status view(std::shared_ptr<Context> context, CUdeviceptr address, size_t size,
                       std::shared_ptr<const void> owner, std::shared_ptr<Buffer>* out);
    ~Buffer() override;

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
    bool owned() const { return owned_; }

private:
    Buffer(std::shared_ptr<Context> context, CUdeviceptr address, size_t size, bool owned)
        : context_(std::move(context)), address_(address), size_(size), owned_(owned) {}
    // Checks the stream's context and makes the buffer's context current.
    Status prepare(const Stream* stream) const;

    std::shared_ptr<Context> context_;
    CUdeviceptr address_;
    size_t size_;
    bool owned_;
    std::shared_ptr<const void> owner_;  // what keeps a view's memory valid; null otherwise
};

}  // namespace cuabi
