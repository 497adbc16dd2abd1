// Graphs keep alive the buffers their captured cuabi transfers touch.
//
// Capture a fill of buffer B, destroy B, allocate C of the same size (the allocator hands out B's
// address again) and replay: without retention the replay writes C. So before a write, read, copy
// or fill is enqueued on a stream that captures -- whoever began the capture -- cuabi hands a
// reference to the buffer to the graph being captured, as a CUDA user object. The driver then keeps
// it for as long as that graph lives, and every graph cloned or instantiated from it (an executable
// until its replays in flight have finished), and calls the user object's destructor when the last
// of them dies; the reference then goes back to cuabi for release (core/deferred_release.hpp),
// because the destructor may not call CUDA. Buffers reached only through kernel arguments are
// raw addresses to cuabi, except those passed as pointer-sized kernel arguments during a capture
// cuabi began (launch/capture_retention.hpp) or by a kernel-argument update: each live cuabi buffer
// such a value points into is retained the same way. Addresses hidden in structs or in device
// memory need cuabi_graph_retain_buffer() (graph.hpp).
#pragma once

#include <memory>

#include "core/error.hpp"
#include "device/buffer.hpp"
#include "device/stream.hpp"

namespace cuabi {
namespace graph {

// When `stream` (may be NULL: nothing to do) captures, makes the graph being captured keep
// `buffer` alive. One cuStreamGetCaptureInfo when it does not capture; repeated transfers of one
// buffer into one capture on a thread retain it once.
Status retain_for_capture(const Stream* stream, const std::shared_ptr<const Buffer>& buffer);

// The launch layer's ArgumentRetainer: retain_for_capture() for each live cuabi buffer of the
// stream's context that one of `values` points into. Installed when cuabi begins a capture.
Status retain_argument_buffers(const Stream& stream, const uint64_t* values, size_t count);

}  // namespace graph
}  // namespace cuabi
