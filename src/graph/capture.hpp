// Stream capture: begin, end, abort, and the rule that no stream is ever left capturing after a
// failure -- of a capture cuabi began.
//
// The driver's capture state (cuStreamGetCaptureInfo) is the truth, so a capture begun or ended
// through the raw driver on a wrapped stream is seen correctly, and the launch path pays nothing
// for captures. cuabi only remembers which captures it began, by the driver's capture id (unique
// in the process): those it may end when a call fails, when capture_end is refused or when the
// stream is destroyed. A capture that other code began (another library's cuStreamBeginCapture on
// a stream cuabi wraps) is never ended by cuabi: ending it would discard that library's work and
// make its own cuStreamEndCapture fail. Only when a call on a stream FAILS does cuabi ask the
// driver whether the stream captures (end_capture_after_failure), so success costs nothing.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "device/stream.hpp"

namespace cuabi {
namespace graph {

// Begins capturing `stream` in `mode` (CUABI_CAPTURE_MODE_*) and remembers the capture as cuabi's.
// INVALID_ARGUMENT for an unknown mode, CAPTURE when the stream is already capturing.
Status begin_capture(const Stream& stream, int32_t mode);

// Ends cuabi's capture and returns the captured graph (owned by the caller). CAPTURE when the
// stream was not capturing, when the capture is not cuabi's (it is left running), when the capture
// was invalidated by an unsafe call (the capture is ended and nothing is returned), or when called
// from another thread than the one that began a global or thread-local capture (the stream then
// keeps capturing: end it from that thread).
Status end_capture(const Stream& stream, CUgraph* out_graph);

// Ends and discards cuabi's capture, if any; succeeds when the stream was not capturing. CAPTURE,
// ending nothing, for a capture other code began.
Status abort_capture(const Stream& stream);

// For destroying a stream: ends and discards cuabi's capture on it, if any. Records nothing.
void discard_own_capture(const Stream& stream) noexcept;

// The stream's capture status as CUABI_CAPTURE_STATUS_* (whoever began the capture).
Status capture_status(const Stream& stream, int32_t* out_status);

// The failure path of every call that enqueues work on a stream: when `stream` (may be NULL)
// captures, ends cuabi's capture and discards what was captured -- or leaves a capture that other
// code began -- and rewrites the thread's last error to say which, keeping its original
// explanation, fix and CUresult. Returns `status` unchanged. Costs one cuStreamGetCaptureInfo;
// never call it on success paths.
Status end_capture_after_failure(const Stream* stream, Status status);

// What became of a capture after a failed call on its stream.
enum class CaptureFate {
    Ended,        // cuabi began it and ended it
    OtherThread,  // cuabi began it on another thread (global / thread-local mode): still capturing
    NotCuabis,    // other code began it: left to that code, still capturing
};

// The message end_capture_after_failure leaves: `original` ("<what> Fix: <fix>") with the capture's
// fate added, and the fix extended to capture again.
std::string discarded_capture_message(const std::string& original, CaptureFate fate);

}  // namespace graph
}  // namespace cuabi
