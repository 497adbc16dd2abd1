// Entry points of the "Buffer" group of cuabi.h, and cuabi_buffer_copy_peer of "Several GPUs", a
// transfer like the others here.
#include "api/arguments.hpp"
#include "api/buffer_arguments.hpp"
#include "api/enqueue.hpp"
#include "api/guard.hpp"
#include "cuabi/cuabi.h"
#include "device/buffer.hpp"
#include "device/peer_access.hpp"
#include "graph/capture.hpp"
#include "graph/retention.hpp"

using namespace cuabi;

namespace {

// The buffer of a transfer. When the transfer `enqueues` work on a stream that captures, the graph
// being captured keeps the buffer alive from now on (graph/retention.hpp).
Status transfer_buffer(const void* handle, const char* parameter_name, const Stream* stream, bool enqueues,
                       std::shared_ptr<Buffer>* out) {
    *out = acquire<Buffer>(handle, parameter_name);
    if (!*out) return refused_handle();
    return enqueues ? graph::retain_for_capture(stream, *out) : CUABI_SUCCESS;
}

// A transfer between `buffer` and host memory at `host` (the parameter `host_name`, which may be
// NULL only when nothing moves): `move` runs on the buffer once both are checked.
template <typename Move>
Status host_transfer(cuabi_buffer* buffer, const void* host, const char* host_name, size_t size, const Stream* stream,
                     Move&& move) {
    Status status = size == 0 ? CUABI_SUCCESS : require_pointer(host, host_name);
    std::shared_ptr<Buffer> device;
    if (status == CUABI_SUCCESS) status = transfer_buffer(buffer, "buffer", stream, size != 0, &device);
    return status == CUABI_SUCCESS ? move(*device) : status;
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_buffer_create(cuabi_context* context, size_t size, const cuabi_buffer_options* options,
                                           cuabi_buffer** out_buffer) try {
    uint32_t flags = 0;
    Status status = require_allocation("buffer", out_buffer, size);
    if (status == CUABI_SUCCESS) status = read_buffer_flags(options, &flags);
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<Buffer> buffer;
    status = Buffer::create(std::move(parent), size, flags, &buffer);
    return publish_created(status, std::move(buffer), out_buffer);
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
    if (!parent) return refused_handle();
    std::shared_ptr<Buffer> buffer;
    status = Buffer::wrap(std::move(parent), static_cast<CUdeviceptr>(device_address), size, &buffer);
    return publish_created(status, std::move(buffer), out_buffer);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_get_size(cuabi_buffer* buffer, size_t* out_size) try {
    return get_value<Buffer>(buffer, "buffer", out_size, "out_size", [](Buffer& read) { return read.size(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_get_device_address(cuabi_buffer* buffer, uint64_t* out_address) try {
    return get_value<Buffer>(buffer, "buffer", out_address, "out_address",
                             [](Buffer& read) { return static_cast<uint64_t>(read.address()); });
} catch (...) {
    return guard::failed(__func__);
}

// The transfers below pin the stream first: whatever then fails, a capture cuabi began on the
// stream is ended (api/enqueue.hpp), so it never stays capturing. Success pays one comparison,
// plus one driver query on a stream (whether it captures, for graph/retention.hpp).

CUABI_API cuabi_status cuabi_buffer_write(cuabi_buffer* buffer, size_t offset, const void* data, size_t size,
                                          cuabi_stream* stream) try {
    return enqueue_on_stream(stream, __func__, [&](const Stream* on) {
        return host_transfer(buffer, data, "data", size, on, [&](Buffer& target) {
            return target.write(offset, data, size, on);
        });
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_read(cuabi_buffer* buffer, size_t offset, void* out_data, size_t size,
                                         cuabi_stream* stream) try {
    return enqueue_on_stream(stream, __func__, [&](const Stream* on) {
        return host_transfer(buffer, out_data, "out_data", size, on, [&](Buffer& source) {
            return source.read(offset, out_data, size, on);
        });
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_copy(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src, size_t src_offset,
                                         size_t size, cuabi_stream* stream) try {
    return enqueue_on_stream(stream, __func__, [&](const Stream* on) {
        std::shared_ptr<Buffer> to, from;
        Status status = transfer_buffer(dst, "dst", on, size != 0, &to);
        if (status == CUABI_SUCCESS) status = transfer_buffer(src, "src", on, size != 0, &from);
        return status == CUABI_SUCCESS ? Buffer::copy(*to, dst_offset, *from, src_offset, size, on) : status;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_copy_peer(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src,
                                              size_t src_offset, size_t size, uint32_t flags,
                                              cuabi_stream* stream) try {
    return enqueue_on_stream(stream, __func__, [&](const Stream* on) {
        Status status = require_known_flags(flags, CUABI_PEER_COPY_STAGED, "flags", "CUABI_PEER_COPY_*");
        std::shared_ptr<Buffer> to, from;
        if (status == CUABI_SUCCESS) status = transfer_buffer(dst, "dst", on, size != 0, &to);
        if (status == CUABI_SUCCESS) status = transfer_buffer(src, "src", on, size != 0, &from);
        return status == CUABI_SUCCESS
                   ? copy_between_devices(*to, dst_offset, *from, src_offset, size, flags, on)
                   : status;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_fill(cuabi_buffer* buffer, size_t offset, uint32_t value, uint32_t element_size,
                                         size_t count, cuabi_stream* stream) try {
    return enqueue_on_stream(stream, __func__, [&](const Stream* on) {
        std::shared_ptr<Buffer> target;
        Status status = transfer_buffer(buffer, "buffer", on, count != 0, &target);
        return status == CUABI_SUCCESS ? target->fill(offset, value, element_size, count, on) : status;
    });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
