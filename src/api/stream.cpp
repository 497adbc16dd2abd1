// Entry points of the "Stream" group of cuabi.h.
#include "api/arguments.hpp"
#include "api/enqueue.hpp"
#include "api/guard.hpp"
#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"
#include "device/event.hpp"
#include "device/stream.hpp"
#include "graph/capture.hpp"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_stream_create(cuabi_context* context, const cuabi_stream_options* options,
                                           cuabi_stream** out_stream) try {
    Status status = require_pointer(out_stream, "out_stream");
    if (status != CUABI_SUCCESS) return status;
    cuabi_stream_options read;
    if ((status = read_struct(options, &read)) != CUABI_SUCCESS) return status;
    if ((status = require_known_flags(read.flags, CUABI_STREAM_DEFAULT, "cuabi_stream_options.flags",
                                      "CUABI_STREAM_*")) != CUABI_SUCCESS)
        return status;
    if (read.reserved != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "set reserved to 0 (cuabi_stream_options_init() does)",
                    "cuabi_stream_options.reserved is %u", read.reserved);
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<Stream> stream;
    status = Stream::create(std::move(parent), read.priority, &stream);
    return publish_created(status, std::move(stream), out_stream);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_stream_wrap(cuabi_context* context, void* cu_stream, cuabi_stream** out_stream) try {
    Status status = require_pointer(out_stream, "out_stream");
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<Stream> stream;
    status = Stream::wrap(std::move(parent), static_cast<CUstream>(cu_stream), &stream);
    return publish_created(status, std::move(stream), out_stream);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API void cuabi_stream_destroy(cuabi_stream* stream) try {
    {
        Pinned<Stream> pinned(stream, nullptr);  // quiet: a destroy reports nothing
        if (pinned.ok()) graph::discard_own_capture(*pinned);
    }
    destroy_handle<Stream>(stream);
} catch (...) {
    guard::swallowed();
}

CUABI_API cuabi_status cuabi_stream_synchronize(cuabi_stream* stream) try {
    return with_pinned<Stream>(stream, "stream", [](Stream& pinned) { return pinned.synchronize(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_stream_query(cuabi_stream* stream) try {
    return with_pinned<Stream>(stream, "stream", [](Stream& pinned) { return pinned.query(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_stream_wait_event(cuabi_stream* stream, cuabi_event* event) try {
    Pinned<Stream> pinned_stream(stream, "stream");
    if (!pinned_stream.ok()) return refused_handle();
    return enqueue_on(pinned_stream.get(), __func__, [&] {
        Pinned<Event> pinned_event(event, "event");
        return pinned_event.ok() ? stream_wait_event(*pinned_stream, *pinned_event) : refused_handle();
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_stream_get_native(cuabi_stream* stream, void** out_cu_stream) try {
    return get_value<Stream>(stream, "stream", out_cu_stream, "out_cu_stream",
                             [](Stream& read) { return static_cast<void*>(read.cu_stream()); });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
