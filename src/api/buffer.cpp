// Entry points of the "Buffer" group of cuabi.h.
#include "api/arguments.hpp"
#include "api/enqueue.hpp"
#include "api/guard.hpp"
#include "core/options.hpp"
#include "cuabi/cuabi.h"
#include "device/buffer.hpp"
#include "graph/capture.hpp"
#include "graph/retention.hpp"

using namespace cuabi;

namespace {

// The buffer of a transfer. When the transfer `enqueues` work on a stream that captures, the graph
// being captured keeps the buffer alive from now on (graph/retention.hpp).
Status transfer_buffer(const void* handle, const char* parameter_name, const Stream* stream, bool enqueues,
                       std::shared_ptr<Buffer>* out) {
    *out = acquire<Buffer>(handle, parameter_name);
    if (!*out) return CUABI_ERROR_INVALID_HANDLE;
    return enqueues ? graph::retain_for_capture(stream, *out) : CUABI_SUCCESS;
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_buffer_options_init(uint32_t struct_size, cuabi_buffer_options* out_options) try {
    return init_struct(cuabi_buffer_options CUABI_BUFFER_OPTIONS_INIT, struct_size, out_options, "cuabi_buffer_options", "cuabi_buffer_options_init");
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_create(cuabi_context* context, size_t size, const cuabi_buffer_options* options,
                                           cuabi_buffer** out_buffer) try {
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
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_wrap(cuabi_context* context, uint64_t device_address, size_t size,
                                         cuabi_buffer** out_buffer) try {
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
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API void cuabi_buffer_destroy(cuabi_buffer* buffer) try {
    destroy_handle<Buffer>(buffer);
} catch (...) {
    guard::swallowed();
}

CUABI_API cuabi_status cuabi_buffer_get_size(cuabi_buffer* buffer, size_t* out_size) try {
    Status status = require_pointer(out_size, "out_size");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Buffer> pinned(buffer, "buffer");
    if (!pinned.ok()) return CUABI_ERROR_INVALID_HANDLE;
    *out_size = pinned->size();
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_get_device_address(cuabi_buffer* buffer, uint64_t* out_address) try {
    Status status = require_pointer(out_address, "out_address");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Buffer> pinned(buffer, "buffer");
    if (!pinned.ok()) return CUABI_ERROR_INVALID_HANDLE;
    *out_address = pinned->address();
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

// The transfers below pin the stream first: whatever then fails, a capture cuabi began on the
// stream is ended (api/enqueue.hpp), so it never stays capturing. Success pays one comparison,
// plus one driver query on a stream (whether it captures, for graph/retention.hpp).

CUABI_API cuabi_status cuabi_buffer_write(cuabi_buffer* buffer, size_t offset, const void* src, size_t size,
                                          cuabi_stream* stream) try {
    OptionalPinned<Stream> pinned_stream(stream, "stream");
    if (!pinned_stream.ok()) return CUABI_ERROR_INVALID_HANDLE;
    return enqueue_on(pinned_stream.get(), __func__, [&] {
        Status status = size == 0 ? CUABI_SUCCESS : require_pointer(src, "src");
        std::shared_ptr<Buffer> target;
        if (status == CUABI_SUCCESS) status = transfer_buffer(buffer, "buffer", pinned_stream.get(), size != 0, &target);
        return status == CUABI_SUCCESS ? target->write(offset, src, size, pinned_stream.get()) : status;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_read(cuabi_buffer* buffer, size_t offset, void* dst, size_t size,
                                         cuabi_stream* stream) try {
    OptionalPinned<Stream> pinned_stream(stream, "stream");
    if (!pinned_stream.ok()) return CUABI_ERROR_INVALID_HANDLE;
    return enqueue_on(pinned_stream.get(), __func__, [&] {
        Status status = size == 0 ? CUABI_SUCCESS : require_pointer(dst, "dst");
        std::shared_ptr<Buffer> source;
        if (status == CUABI_SUCCESS) status = transfer_buffer(buffer, "buffer", pinned_stream.get(), size != 0, &source);
        return status == CUABI_SUCCESS ? source->read(offset, dst, size, pinned_stream.get()) : status;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_copy(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src, size_t src_offset,
                                         size_t size, cuabi_stream* stream) try {
    OptionalPinned<Stream> pinned_stream(stream, "stream");
    if (!pinned_stream.ok()) return CUABI_ERROR_INVALID_HANDLE;
    return enqueue_on(pinned_stream.get(), __func__, [&] {
        std::shared_ptr<Buffer> to, from;
        Status status = transfer_buffer(dst, "dst", pinned_stream.get(), size != 0, &to);
        if (status == CUABI_SUCCESS) status = transfer_buffer(src, "src", pinned_stream.get(), size != 0, &from);
        if (status != CUABI_SUCCESS) return status;
        return Buffer::copy(*to, dst_offset, *from, src_offset, size, pinned_stream.get());
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_fill(cuabi_buffer* buffer, size_t offset, uint32_t value, uint32_t element_size,
                                         size_t count, cuabi_stream* stream) try {
    OptionalPinned<Stream> pinned_stream(stream, "stream");
    if (!pinned_stream.ok()) return CUABI_ERROR_INVALID_HANDLE;
    return enqueue_on(pinned_stream.get(), __func__, [&] {
        std::shared_ptr<Buffer> target;
        Status status = transfer_buffer(buffer, "buffer", pinned_stream.get(), count != 0, &target);
        return status == CUABI_SUCCESS ? target->fill(offset, value, element_size, count, pinned_stream.get()) : status;
    });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
