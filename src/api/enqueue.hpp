// Entry points that enqueue work on a stream.
#pragma once

#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "device/stream.hpp"
#include "graph/capture.hpp"

namespace cuabi {

// Runs `work` (returning a Status) for `function`, which enqueues on `stream` (may be NULL).
// Whatever fails -- a status or a C++ exception -- a capture cuabi began on the stream is ended
// and discarded (graph/capture.hpp), so the stream never stays capturing. Success costs nothing.
template <typename Work>
Status enqueue_on(const Stream* stream, const char* function, Work&& work) {
    Status status;
    try {
        status = work();
    } catch (...) {
        status = guard::failed(function);
    }
    return status == CUABI_SUCCESS ? status : graph::end_capture_after_failure(stream, status);
}

// enqueue_on for an entry point's `stream` parameter, pinned first (NULL: synchronous work), so
// that whatever then fails has the stream's capture ended; `work` takes the pinned Stream (or NULL).
template <typename Work>
Status enqueue_on_stream(const void* stream, const char* function, Work&& work) {
    OptionalPinned<Stream> pinned(stream, "stream");
    if (!pinned.ok()) return refused_handle();
    return enqueue_on(pinned.get(), function, [&] { return work(pinned.get()); });
}

}  // namespace cuabi
