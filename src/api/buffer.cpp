// Entry points of the "Buffer" group of cuabi.h.
#include "api/arguments.hpp"
#include "core/options.hpp"
#include "cuabi/cuabi.h"
#include "device/buffer.hpp"
#include "graph/capture.hpp"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_buffer_options_init(uint32_t struct_size, cuabi_buffer_options* out_options) {
    return init_struct(cuabi_buffer_options CUABI_BUFFER_OPTIONS_INIT, struct_size, out_options, "cuabi_buffer_options", "cuabi_buffer_options_init");
}

CUABI_API cuabi_status cuabi_buffer_create(cuabi_context* context, size_t size, const cuabi_buffer_options* options,
                                           cuabi_buffer** out_buffer) {
    Status status = require_pointer(out_buffer, "out_buffer");
    if (status != CUABI_SUCCESS) return status;
    if (size == 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a size of at least 1 byte",
                    "buffer size is 0; CUDA cannot allocate an empty buffer");
    cuabi_buffer_options read{};
    status = read_options(options, cuabi_buffer_options CUABI_BUFFER_OPTIONS_INIT, "cuabi_buffer_options",
                          "cuabi_buffer_options_init", &read);
    if (status != CUABI_SUCCESS) return status;
    if ((status = require_known_flags(read.flags, CUABI_BUFFER_ZERO, "cuabi_buffer_options.flags",
                                      "CUABI_BUFFER_*")) != CUABI_SUCCESS)
        return status;
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return CUABI_ERROR_INVALID_HANDLE;
    std::shared_ptr<Buffer> buffer;
    status = Buffer::create(std::move(parent), size, read.flags, &buffer);
    if (status != CUABI_SUCCESS) return status;
    return publish(std::move(buffer), out_buffer);
}

CUABI_API cuabi_status cuabi_buffer_wrap(cuabi_context* context, uint64_t device_address, size_t size,
                                         cuabi_buffer** out_buffer) {
    Status status = require_pointer(out_buffer, "out_buffer");
    if (status != CUABI_SUCCESS) return status;
    if (device_address == 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the CUdeviceptr of an existing allocation",
                    "device_address is 0");
    if (size == 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the number of bytes to wrap (at least 1)", "size is 0");
    if (size > UINT64_MAX - device_address)
        return fail(CUABI_ERROR_OUT_OF_BOUNDS, "pass the size of the allocation at device_address",
                    "%zu bytes at device address 0x%llx run past the end of the address space", size,
                    static_cast<unsigned long long>(device_address));
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return CUABI_ERROR_INVALID_HANDLE;
    std::shared_ptr<Buffer> buffer;
    status = Buffer::wrap(std::move(parent), static_cast<CUdeviceptr>(device_address), size, &buffer);
    if (status != CUABI_SUCCESS) return status;
    return publish(std::move(buffer), out_buffer);
}

CUABI_API void cuabi_buffer_destroy(cuabi_buffer* buffer) { destroy_handle<Buffer>(buffer); }

CUABI_API cuabi_status cuabi_buffer_get_size(cuabi_buffer* buffer, size_t* out_size) {
    Status status = require_pointer(out_size, "out_size");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Buffer> pinned(buffer, "buffer");
    if (!pinned.ok()) return CUABI_ERROR_INVALID_HANDLE;
    *out_size = pinned->size();
    return CUABI_SUCCESS;
}

CUABI_API cuabi_status cuabi_buffer_get_device_address(cuabi_buffer* buffer, uint64_t* out_address) {
    Status status = require_pointer(out_address, "out_address");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Buffer> pinned(buffer, "buffer");
    if (!pinned.ok()) return CUABI_ERROR_INVALID_HANDLE;
    *out_address = pinned->address();
    return CUABI_SUCCESS;
}

// The transfers below pin the stream first: whatever then fails, a stream that was capturing has
// its capture ended (graph/capture.hpp), so it never stays capturing. Success pays one comparison.

CUABI_API cuabi_status cuabi_buffer_write(cuabi_buffer* buffer, size_t offset, const void* src, size_t size,
                                          cuabi_stream* stream) {
    OptionalPinned<Stream> pinned_stream(stream, "stream");
    if (!pinned_stream.ok()) return CUABI_ERROR_INVALID_HANDLE;
    Status status = size == 0 ? CUABI_SUCCESS : require_pointer(src, "src");
    if (status == CUABI_SUCCESS) {
        Pinned<Buffer> pinned(buffer, "buffer");
        status = pinned.ok() ? pinned->write(offset, src, size, pinned_stream.get()) : CUABI_ERROR_INVALID_HANDLE;
    }
    if (status != CUABI_SUCCESS) return graph::end_capture_after_failure(pinned_stream.get(), status);
    return CUABI_SUCCESS;
}

CUABI_API cuabi_status cuabi_buffer_read(cuabi_buffer* buffer, size_t offset, void* dst, size_t size,
                                         cuabi_stream* stream) {
    OptionalPinned<Stream> pinned_stream(stream, "stream");
    if (!pinned_stream.ok()) return CUABI_ERROR_INVALID_HANDLE;
    Status status = size == 0 ? CUABI_SUCCESS : require_pointer(dst, "dst");
    if (status == CUABI_SUCCESS) {
        Pinned<Buffer> pinned(buffer, "buffer");
        status = pinned.ok() ? pinned->read(offset, dst, size, pinned_stream.get()) : CUABI_ERROR_INVALID_HANDLE;
    }
    if (status != CUABI_SUCCESS) return graph::end_capture_after_failure(pinned_stream.get(), status);
    return CUABI_SUCCESS;
}

CUABI_API cuabi_status cuabi_buffer_copy(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src, size_t src_offset,
                                         size_t size, cuabi_stream* stream) {
    OptionalPinned<Stream> pinned_stream(stream, "stream");
    if (!pinned_stream.ok()) return CUABI_ERROR_INVALID_HANDLE;
    Status status = CUABI_ERROR_INVALID_HANDLE;
    {
        Pinned<Buffer> pinned_dst(dst, "dst");
        if (pinned_dst.ok()) {
            Pinned<Buffer> pinned_src(src, "src");
            if (pinned_src.ok())
                status = Buffer::copy(*pinned_dst, dst_offset, *pinned_src, src_offset, size, pinned_stream.get());
        }
    }
    if (status != CUABI_SUCCESS) return graph::end_capture_after_failure(pinned_stream.get(), status);
    return CUABI_SUCCESS;
}

CUABI_API cuabi_status cuabi_buffer_fill(cuabi_buffer* buffer, size_t offset, uint32_t value, uint32_t element_size,
                                         size_t count, cuabi_stream* stream) {
    OptionalPinned<Stream> pinned_stream(stream, "stream");
    if (!pinned_stream.ok()) return CUABI_ERROR_INVALID_HANDLE;
    Status status = CUABI_ERROR_INVALID_HANDLE;
    {
        Pinned<Buffer> pinned(buffer, "buffer");
        if (pinned.ok()) status = pinned->fill(offset, value, element_size, count, pinned_stream.get());
    }
    if (status != CUABI_SUCCESS) return graph::end_capture_after_failure(pinned_stream.get(), status);
    return CUABI_SUCCESS;
}

}  // extern "C"
