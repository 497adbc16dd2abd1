// Entry points that enqueue work on a stream.
#pragma once

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

}  // namespace cuabi
