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
// raw addresses to cuabi: cuabi_graph_retain_buffer() covers them (graph.hpp).
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

}  // namespace graph
}  // namespace cuabi
