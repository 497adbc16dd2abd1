// Page-locked host memory: allocated by cuabi (cuMemHostAlloc, freed on destroy) or the caller's
// memory registered with the driver (cuMemHostRegister, unregistered on destroy, never freed). The
// copy engines reach it directly, so transfers on a stream from or to it are asynchronous and
// overlap with other streams' work. The object keeps its context alive, and releases the memory
// with that context current.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/handle_table.hpp"
#include "device/context.hpp"

namespace cuabi {

class HostMemory final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::HostMemory;

    // `flags` are CUABI_HOST_MEMORY_* (already validated; size > 0). OUT_OF_HOST_MEMORY when the
    // system cannot pin that much.
    static Status allocate(std::shared_ptr<Context> context, size_t size, uint32_t flags,
                           std::shared_ptr<HostMemory>* out);
    // `flags` are PORTABLE and DEVICE_MAPPED only (already validated; pointer non-NULL, size > 0).
    // INVALID_ARGUMENT for memory already registered or that the driver cannot pin.
    static Status register_range(std::shared_ptr<Context> context, void* pointer, size_t size, uint32_t flags,
                                 std::shared_ptr<HostMemory>* out);
    ~HostMemory() override;

    void* pointer() const { return pointer_; }
    size_t size() const { return size_; }
    // The device address of the bytes (cuMemHostGetDevicePointer); UNSUPPORTED unless mapped.
    Status device_address(uint64_t* out_address) const;

private:
    HostMemory(std::shared_ptr<Context> context, void* pointer, size_t size, uint32_t flags, bool registered)
        : context_(std::move(context)), pointer_(pointer), size_(size), flags_(flags), registered_(registered) {}

    std::shared_ptr<Context> context_;
    void* pointer_;
    size_t size_;
    uint32_t flags_;   // CUABI_HOST_MEMORY_*
    bool registered_;  // the caller's memory: unregister, never free
};

}  // namespace cuabi
