#include "device/buffer.hpp"

#include "core/deferred_release.hpp"
#include "device/buffer_directory.hpp"

namespace cuabi {
namespace {

unsigned long long u64(CUdeviceptr address) { return static_cast<unsigned long long>(address); }

}  // namespace

Status check_range(size_t offset, size_t size, size_t buffer_size, const char* operation, const char* which) {
    // offset <= buffer_size first, so buffer_size - offset cannot wrap.
    if (offset <= buffer_size && size <= buffer_size - offset) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_OUT_OF_BOUNDS, "keep offset + size within the buffer's size (cuabi_buffer_get_size())",
                "%s of %zu bytes at offset %zu exceeds the %s buffer of %zu bytes", operation, size, offset, which,
                buffer_size);
}

Status check_fill(size_t offset, uint32_t element_size, size_t count, size_t buffer_size) {
    if (element_size != 1 && element_size != 2 && element_size != 4)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass element_size 1, 2 or 4",
                    "fill element_size is %u; cuabi fills 1-, 2- or 4-byte elements", element_size);
    if (offset % element_size != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass an offset that is a multiple of element_size",
                    "fill offset %zu is not a multiple of element_size %u", offset, element_size);
    if (offset <= buffer_size && count <= (buffer_size - offset) / element_size) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_OUT_OF_BOUNDS, "keep offset + count * element_size within the buffer's size",
                "fill of %zu elements of %u bytes at offset %zu exceeds the buffer of %zu bytes", count, element_size,
                offset, buffer_size);
}

Status check_fits_device(const Context& context, size_t size) {
    // A size the device can never hold is the caller's mistake, not a transient shortage: say so
    // without asking the driver (which may answer with a less telling error for absurd sizes).
    if (size <= context.info().total_memory_bytes) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_DEVICE_OUT_OF_MEMORY,
                "allocate at most the device's memory, split the data, or check the size computation",
                "a buffer of %zu bytes is larger than all of device %d's memory (%s, %llu bytes)", size,
                context.ordinal(), context.info().name,
                static_cast<unsigned long long>(context.info().total_memory_bytes));
}

Status Buffer::create(std::shared_ptr<Context> context, size_t size, uint32_t flags, std::shared_ptr<Buffer>* out) {
    // Memory that graphs no longer retain is freed first, so that it can be reused right away.
    DeferredRelease::release_queued();
    const DriverApi& api = context->api();
    Status status = check_fits_device(*context, size);
    if (status != CUABI_SUCCESS) return status;
    if ((status = context->make_current()) != CUABI_SUCCESS) return status;
    CUdeviceptr address = 0;
    CUresult result = api.cuMemAlloc(&address, size);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemAlloc", "allocate less, or free buffers that are no longer needed",
                       "for %zu bytes on device %d (%s, %llu bytes in total)", size, context->ordinal(),
                       context->info().name, static_cast<unsigned long long>(context->info().total_memory_bytes));
    std::shared_ptr<Buffer> created(new (std::nothrow) Buffer(context, address, size, Memory::Allocated));
    if (!created) {
        api.cuMemFree(address);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a buffer object");
    }
    return finish_owned(std::move(created), flags, nullptr, out);
}

Status Buffer::finish_owned(std::shared_ptr<Buffer> created, uint32_t flags, const Stream* stream,
                            std::shared_ptr<Buffer>* out) {
    // So that captured kernels' arguments can be traced to it. Not a graph's allocation: a graph
    // cannot keep its own memory alive, and its address is reserved, not allocated.
    if (created->memory_ != Memory::GraphAllocated) buffer_directory::add(created);
    if (flags & CUABI_BUFFER_ZERO) {
        // `created` owns the memory now: an error below frees it on return.
        Status status = created->fill(0, 0, 1, created->size_, stream);
        if (status != CUABI_SUCCESS) return status;
    }
    *out = std::move(created);
    return CUABI_SUCCESS;
}

Status Buffer::wrap(std::shared_ptr<Context> context, CUdeviceptr address, size_t size, std::shared_ptr<Buffer>* out) {
    const DriverApi& api = context->api();
    Status status = context->make_current();
    if (status != CUABI_SUCCESS) return status;
    // The driver knows every pointer it handed out (cuMemAlloc, pools, managed, VMM, IPC).
    CUcontext owner = nullptr;
    CUresult result = api.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, address);
    if (result != CUDA_SUCCESS)
        return fail_with_cu_result(CUABI_ERROR_INVALID_ARGUMENT, result,
                                   "pass a device address returned by a CUDA allocation (cuMemAlloc, cudaMalloc, ...)",
                                   "device address 0x%llx is not memory the CUDA driver knows (%s)", u64(address),
                                   cu_result_text(result).c_str());
    // Stream-ordered pool allocations report no context; any other owner must be ours.
    if (owner != nullptr && owner != context->cu_context())
        return fail(CUABI_ERROR_CONTEXT_MISMATCH, "wrap the memory with a cuabi context of the device that owns it",
                    "device address 0x%llx belongs to CUDA context %p, not to the primary context %p of device %d",
                    u64(address), static_cast<void*>(owner), static_cast<void*>(context->cu_context()),
                    context->ordinal());
    CUdeviceptr base = 0;
    size_t allocation_size = 0;
    result = api.cuMemGetAddressRange(&base, &allocation_size, address);
    if (result == CUDA_SUCCESS) {
        size_t offset = static_cast<size_t>(address - base);
        if (size > allocation_size - offset)
            return fail(CUABI_ERROR_OUT_OF_BOUNDS, "wrap no more than the allocation holds after the address",
                        "wrapping %zu bytes at device address 0x%llx exceeds its allocation of %zu bytes at 0x%llx "
                        "(%zu bytes remain after the address)",
                        size, u64(address), allocation_size, u64(base), allocation_size - offset);
    }
    // Otherwise (e.g. some virtual-memory mappings) the driver cannot tell the range; trust the caller.
    std::shared_ptr<Buffer> wrapped(new (std::nothrow) Buffer(std::move(context), address, size, Memory::Borrowed));
    if (!wrapped) return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a buffer object");
    *out = std::move(wrapped);
    return CUABI_SUCCESS;
}

Status Buffer::view(std::shared_ptr<Context> context, CUdeviceptr address, size_t size,
                    std::shared_ptr<const void> owner, std::shared_ptr<Buffer>* out) {
    std::shared_ptr<Buffer> viewed(new (std::nothrow) Buffer(std::move(context), address, size, Memory::Borrowed));
    if (!viewed) return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a buffer object");
    viewed->owner_ = std::move(owner);
    *out = std::move(viewed);
    return CUABI_SUCCESS;
}

Buffer::~Buffer() {
    // Borrowed memory is its owner's; a graph's allocation exists only between a replay and its
    // free, which cuabi cannot see, so freeing the address could free a later replay's memory.
    if (memory_ == Memory::Borrowed || memory_ == Memory::Released || memory_ == Memory::GraphAllocated) return;
    buffer_directory::remove(this);
    // cuMemFree needs a current context on this thread; a destructor cannot report failures.
    if (context_->make_current() == CUABI_SUCCESS) context_->api().cuMemFree(address_);
}

Status Buffer::prepare(const Stream* stream) const {
    Status status = check_stream_context(*context_, stream, "buffer");
    if (status != CUABI_SUCCESS) return status;
    return context_->make_current();
}

Status Buffer::write(size_t offset, const void* src, size_t size, const Stream* stream) const {
    Status status = check_range(offset, size, size_, "write", "destination");
    if (status != CUABI_SUCCESS || size == 0) return status;
    if ((status = prepare(stream)) != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuMemcpyHtoDAsync(address_ + offset, src, size, submission_stream(stream));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemcpyHtoDAsync", "check that src points to at least size readable bytes",
                       "writing %zu bytes at offset %zu of a %zu-byte buffer", size, offset, size_);
    return complete_if_synchronous(*context_, stream, "a buffer write");
}

Status Buffer::read(size_t offset, void* dst, size_t size, const Stream* stream) const {
    Status status = check_range(offset, size, size_, "read", "source");
    if (status != CUABI_SUCCESS || size == 0) return status;
    if ((status = prepare(stream)) != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuMemcpyDtoHAsync(dst, address_ + offset, size, submission_stream(stream));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemcpyDtoHAsync", "check that dst points to at least size writable bytes",
                       "reading %zu bytes at offset %zu of a %zu-byte buffer", size, offset, size_);
    return complete_if_synchronous(*context_, stream, "a buffer read");
}

Status Buffer::copy(const Buffer& dst, size_t dst_offset, const Buffer& src, size_t src_offset, size_t size,
                    const Stream* stream) {
    if (dst.context_->cu_context() != src.context_->cu_context())
        return fail(CUABI_ERROR_CONTEXT_MISMATCH,
                    "copy between buffers of one device, or go through host memory with read and write",
                    "the destination buffer belongs to device %d but the source buffer to device %d",
                    dst.context_->ordinal(), src.context_->ordinal());
    Status status = check_range(dst_offset, size, dst.size_, "copy", "destination");
    if (status != CUABI_SUCCESS) return status;
    if ((status = check_range(src_offset, size, src.size_, "copy", "source")) != CUABI_SUCCESS) return status;
    if (size == 0) return CUABI_SUCCESS;
    CUdeviceptr to = dst.address_ + dst_offset, from = src.address_ + src_offset;
    // Compares addresses, so aliasing wrapped buffers are caught too.
    if (to < from + size && from < to + size)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "copy between ranges that do not overlap (stage through a temporary buffer)",
                    "copy of %zu bytes from device address 0x%llx to 0x%llx: the ranges overlap", size, u64(from),
                    u64(to));
    if ((status = dst.prepare(stream)) != CUABI_SUCCESS) return status;
    CUresult result = dst.context_->api().cuMemcpyDtoDAsync(to, from, size, submission_stream(stream));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemcpyDtoDAsync", "check that both buffers are still valid device memory",
                       "copying %zu bytes from offset %zu to offset %zu", size, src_offset, dst_offset);
    return complete_if_synchronous(*dst.context_, stream, "a buffer copy");
}

Status Buffer::fill(size_t offset, uint32_t value, uint32_t element_size, size_t count, const Stream* stream) const {
    Status status = check_fill(offset, element_size, count, size_);
    if (status != CUABI_SUCCESS || count == 0) return status;
    CUdeviceptr to = address_ + offset;
    if (to % element_size != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "fill a wrapped buffer only at addresses aligned to element_size",
                    "fill destination 0x%llx (buffer address + offset %zu) is not aligned to %u bytes", u64(to), offset,
                    element_size);
    if ((status = prepare(stream)) != CUABI_SUCCESS) return status;
    const DriverApi& api = context_->api();
    CUstream target = submission_stream(stream);
    CUresult result;
    const char* call;
    if (element_size == 1) {
        call = "cuMemsetD8Async";
        result = api.cuMemsetD8Async(to, static_cast<unsigned char>(value), count, target);
    } else if (element_size == 2) {
        call = "cuMemsetD16Async";
        result = api.cuMemsetD16Async(to, static_cast<unsigned short>(value), count, target);
    } else {
        call = "cuMemsetD32Async";
        result = api.cuMemsetD32Async(to, value, count, target);
    }
    if (result != CUDA_SUCCESS)
        return fail_cu(result, call, "check that the buffer is still valid device memory",
                       "filling %zu elements at offset %zu of a %zu-byte buffer", count, offset, size_);
    return complete_if_synchronous(*context_, stream, "a buffer fill");
}

}  // namespace cuabi
