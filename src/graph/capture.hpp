// Stream capture: begin, end, abort, and the rule that no stream is ever left
// capturing after a failure.
//
// cuabi keeps no capture state of its own: the driver's (cuStreamIsCapturing) is the truth, so a
// capture begun or ended through the raw driver on a wrapped stream is seen correctly, and the
// launch path pays nothing for captures. Only when a call on a stream FAILS does cuabi ask the
// driver whether the stream was capturing (end_capture_after_failure) and, if so, end and discard
// the capture, so that the caller's stream is usable again and the message says what happened.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "device/stream.hpp"

namespace cuabi {
namespace graph {

// Begins capturing `stream` in `mode` (CUABI_CAPTURE_MODE_*). INVALID_ARGUMENT for an unknown
// mode, CAPTURE when the stream is already capturing.
Status begin_capture(const Stream& stream, int32_t mode);

// Ends the capture and returns the captured graph (owned by the caller). CAPTURE when the stream
// was not capturing, when the capture was invalidated by an unsafe call (the capture is ended and
// nothing is returned), or when called from another thread than the one that began a global or
// thread-local capture (the stream then keeps capturing: end it from that thread).
Status end_capture(const Stream& stream, CUgraph* out_graph);

// Ends and discards the capture, if any; succeeds when the stream was not capturing.
Status abort_capture(const Stream& stream);

// The stream's capture status as CUABI_CAPTURE_STATUS_* (whoever began the capture).
Status capture_status(const Stream& stream, int32_t* out_status);

// The failure path of every call that enqueues work on a stream: when `stream` (may be NULL) is
// capturing, ends the capture, discards what was captured and rewrites the thread's last error
// to say so, keeping its original explanation, fix and CUresult. Returns `status` unchanged.
// Costs one cuStreamIsCapturing; never call it on success paths.
Status end_capture_after_failure(const Stream* stream, Status status);

// The message end_capture_after_failure leaves: `original` ("<what> Fix: <fix>") with what became
// of the capture (`ended`, or still running because it belongs to another thread) added, and the
// fix extended to capture again.
std::string discarded_capture_message(const std::string& original, bool ended);

}  // namespace graph
}  // namespace cuabi
