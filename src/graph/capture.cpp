#include "graph/capture.hpp"

#include <algorithm>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "core/deferred_release.hpp"
#include "graph/conditional_nodes.hpp"
#include "graph/owned_captures.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace graph {
namespace {

const char* mode_name(int32_t mode) {
    switch (mode) {
        case CUABI_CAPTURE_MODE_GLOBAL:
            return "global";
        case CUABI_CAPTURE_MODE_THREAD_LOCAL:
            return "thread-local";
        case CUABI_CAPTURE_MODE_RELAXED:
            return "relaxed";
    }
    return "unknown";
}

struct Capture {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    bool active() const { return status != CU_STREAM_CAPTURE_STATUS_NONE; }
    bool cuabis() const { return active() && owned().contains(id); }
};

CUresult capture_of(const Stream& stream, Capture* out) {
    return stream.context().api().cuStreamGetCaptureInfo(stream.cu_stream(), &out->status, &out->id, nullptr, nullptr,
                                                         nullptr, nullptr);
}

// Ends whatever capture the stream has and destroys what it produced -- with the root graph cuabi
// holds while a conditional body is captured (the body itself belongs to its node). Releases the
// buffers the discarded capture held (its user objects die with it).
CUresult discard_capture(const Stream& stream, uint64_t id) {
    const DriverApi& api = stream.context().api();
    CaptureRecord record;
    const bool recorded = owned().take(id, &record);
    CUgraph graph = nullptr;
    CUresult result = api.cuStreamEndCapture(stream.cu_stream(), &graph);
    if (result == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD) {
        if (recorded) owned().put(id, std::move(record));
        return result;
    }
    if (record.root != nullptr)
        discard_root(record, api);
    else if (graph != nullptr)
        destroy_graph(api, graph);
    DeferredRelease::release_queued();
    return result;
}

size_t open_conditionals(uint64_t id) {
    CaptureRecord record;
    if (!owned().take(id, &record)) return 0;
    const size_t open = record.open.size();
    owned().put(id, std::move(record));
    return open;
}

const char* const kFixForeignCapture =
    "end or abort the capture with the driver (cuStreamEndCapture) in the code that began it, or begin captures "
    "with cuabi_graph_capture_begin";

}  // namespace

Status begin_capture(const Stream& stream, int32_t mode) {
    range::Scope scope(range::Phase::GraphCapture);
    CUstreamCaptureMode cu_mode;
    switch (mode) {
        case CUABI_CAPTURE_MODE_GLOBAL:
            cu_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
            break;
        case CUABI_CAPTURE_MODE_THREAD_LOCAL:
            cu_mode = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
            break;
        case CUABI_CAPTURE_MODE_RELAXED:
            cu_mode = CU_STREAM_CAPTURE_MODE_RELAXED;
            break;
        default:
            return fail(CUABI_ERROR_INVALID_ARGUMENT,
                        "pass CUABI_CAPTURE_MODE_GLOBAL, CUABI_CAPTURE_MODE_THREAD_LOCAL or CUABI_CAPTURE_MODE_RELAXED",
                        "capture mode %d is not a cuabi capture mode", mode);
    }
    Status status = stream.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = stream.context().api().cuStreamBeginCapture(stream.cu_stream(), cu_mode);
    if (result == CUDA_ERROR_ILLEGAL_STATE)
        return fail_with_cu_result(CUABI_ERROR_CAPTURE, result,
                                   "end the running capture (cuabi_graph_capture_end or cuabi_graph_capture_abort) "
                                   "before beginning another",
                                   "cannot begin a %s capture: the stream on device %d is already capturing",
                                   mode_name(mode), stream.context().ordinal());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamBeginCapture", "check that the stream is usable (cuabi_stream_query)",
                       "(%s mode) on device %d", mode_name(mode), stream.context().ordinal());
    Capture capture;
    if ((result = capture_of(stream, &capture)) != CUDA_SUCCESS) {
        discard_capture(stream, 0);
        return fail_cu(result, "cuStreamGetCaptureInfo", "check that the stream is usable (cuabi_stream_query)",
                       "right after beginning a capture on device %d; the capture was ended",
                       stream.context().ordinal());
    }
    try {
        CaptureRecord record;
        record.mode = cu_mode;
        owned().add(capture.id, std::move(record));
    } catch (...) {
        discard_capture(stream, capture.id);  // a capture cuabi could not remember would never be ended
        throw;
    }
    return CUABI_SUCCESS;
}

Status end_capture(const Stream& stream, CUgraph* out_graph) {
    range::Scope scope(range::Phase::GraphCapture);
    const DriverApi& api = stream.context().api();
    Status status = stream.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    const int device = stream.context().ordinal();
    Capture capture;
    CUresult result = capture_of(stream, &capture);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamGetCaptureInfo", "check that the stream is usable (cuabi_stream_query)",
                       "on device %d", device);
    if (!capture.active())
        return fail(CUABI_ERROR_CAPTURE, "call cuabi_graph_capture_begin on the stream first",
                    "the stream on device %d is not capturing, so there is no capture to end", device);
    if (!capture.cuabis())
        return fail(CUABI_ERROR_CAPTURE, kFixForeignCapture,
                    "the stream on device %d is capturing a graph that other code began (not "
                    "cuabi_graph_capture_begin); cuabi leaves that capture to its owner, and it still captures",
                    device);
    if (size_t open = open_conditionals(capture.id)) {
        discard_capture(stream, capture.id);
        return fail(CUABI_ERROR_CAPTURE,
                    "end every conditional body (cuabi_graph_capture_conditional_end) before ending the capture",
                    "the stream on device %d is capturing the body of a conditional node (%zu open); the capture "
                    "was ended and discarded",
                    device, open);
    }
    const CUgraph held_root = owned().keeper(capture.id, nullptr);  // discarded below through its record
    CUgraph graph = nullptr;
    result = api.cuStreamEndCapture(stream.cu_stream(), &graph);
    if (result == CUDA_SUCCESS && graph != nullptr) {
        owned().remove(capture.id);
        *out_graph = graph;
        return CUABI_SUCCESS;
    }
    if (graph != nullptr && graph != held_root) destroy_graph(api, graph);
    if (result == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
        return fail_with_cu_result(CUABI_ERROR_CAPTURE, result,
                                   "end a global or thread-local capture on the thread that began it, or begin it "
                                   "with CUABI_CAPTURE_MODE_RELAXED",
                                   "the stream on device %d is capturing, but the capture was begun on another "
                                   "thread; it is still capturing",
                                   device);
    // Invalidated, unjoined or otherwise failed: make sure the capture is really over.
    Capture after;
    CaptureRecord record;
    if (capture_of(stream, &after) == CUDA_SUCCESS && after.active())
        discard_capture(stream, capture.id);
    else if (owned().take(capture.id, &record))
        discard_root(record, api);
    DeferredRelease::release_queued();
    if (result == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED || result == CUDA_SUCCESS)
        return fail_with_cu_result(CUABI_ERROR_CAPTURE, result,
                                   "avoid calls that are unsafe during capture (synchronizing, synchronous "
                                   "allocation or copies, NULL-stream cuabi calls in global mode) between begin "
                                   "and end, or capture in CUABI_CAPTURE_MODE_RELAXED",
                                   "the capture on device %d was invalidated by an operation that is not allowed "
                                   "while capturing; nothing was captured and the stream no longer captures",
                                   device);
    if (result == CUDA_ERROR_STREAM_CAPTURE_UNJOINED)
        return fail_with_cu_result(CUABI_ERROR_CAPTURE, result,
                                   "make the capturing stream wait (cuabi_stream_wait_event) for an event recorded "
                                   "at the end of every stream the capture forked into",
                                   "the capture on device %d forked into other streams that never joined back; "
                                   "it was discarded and the stream no longer captures",
                                   device);
    fail_cu(result, "cuStreamEndCapture", "begin the capture again", "on device %d; the capture was discarded", device);
    return CUABI_ERROR_CAPTURE;
}

Status abort_capture(const Stream& stream) {
    Status status = stream.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    Capture capture;
    CUresult result = capture_of(stream, &capture);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamGetCaptureInfo", "check that the stream is usable (cuabi_stream_query)",
                       "on device %d", stream.context().ordinal());
    if (!capture.active()) return CUABI_SUCCESS;
    if (!capture.cuabis())
        return fail(CUABI_ERROR_CAPTURE, kFixForeignCapture,
                    "the stream on device %d is capturing a graph that other code began (not "
                    "cuabi_graph_capture_begin); cuabi aborts only its own captures, so that one still captures",
                    stream.context().ordinal());
    result = discard_capture(stream, capture.id);
    if (result == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
        return fail_with_cu_result(CUABI_ERROR_CAPTURE, result,
                                   "abort a global or thread-local capture on the thread that began it",
                                   "the stream on device %d is capturing, but the capture was begun on another "
                                   "thread; it is still capturing",
                                   stream.context().ordinal());
    return CUABI_SUCCESS;
}

void discard_own_capture(const Stream& stream) noexcept {
    PreserveLastError keep;
    Capture capture;
    if (stream.context().make_current() != CUABI_SUCCESS || capture_of(stream, &capture) != CUDA_SUCCESS) return;
    if (capture.cuabis()) discard_capture(stream, capture.id);
}

Status capture_status(const Stream& stream, int32_t* out_status) {
    Status status = stream.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    Capture capture;
    CUresult result = capture_of(stream, &capture);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamGetCaptureInfo", "check that the stream is usable (cuabi_stream_query)",
                       "on device %d", stream.context().ordinal());
    switch (capture.status) {
        case CU_STREAM_CAPTURE_STATUS_NONE:
            *out_status = CUABI_CAPTURE_STATUS_NONE;
            break;
        case CU_STREAM_CAPTURE_STATUS_ACTIVE:
            *out_status = CUABI_CAPTURE_STATUS_ACTIVE;
            break;
        default:
            *out_status = CUABI_CAPTURE_STATUS_INVALIDATED;
            break;
    }
    return CUABI_SUCCESS;
}

std::string discarded_capture_message(const std::string& original, CaptureFate fate) {
    std::string what = original, fix = "retry";
    const std::string::size_type at = original.rfind(" Fix: ");
    if (at != std::string::npos) {
        what = original.substr(0, at);
        fix = original.substr(at + 6);
    }
    if (!fix.empty() && fix.back() == '.') fix.pop_back();
    // What became of the capture, and what the caller adds to the original fix.
    const char* fate_text = "";
    const char* fix_more = ", then capture again";
    switch (fate) {
        case CaptureFate::Ended:
            fate_text = " The stream was capturing a graph: cuabi ended the capture and discarded it, so the stream no "
                        "longer captures.";
            break;
        case CaptureFate::OtherThread:
            fate_text = " The stream was capturing a graph begun on another thread; cuabi could not end that capture, "
                        "so the stream still captures.";
            fix_more = ", and abort the capture (cuabi_graph_capture_abort) on the thread that began it, then capture "
                       "again";
            break;
        case CaptureFate::NotCuabis:
            fate_text = " The stream is capturing a graph that other code began (not cuabi_graph_capture_begin); "
                        "cuabi left that capture to its owner, so the stream still captures.";
            fix_more = "; the code that began the capture decides whether to end or keep it";
            break;
    }
    return what + fate_text + " Fix: " + fix + fix_more + ".";
}

Status end_capture_after_failure(const Stream* stream, Status status) {
    if (stream == nullptr) return status;
    Capture capture;
    if (capture_of(*stream, &capture) != CUDA_SUCCESS || !capture.active()) return status;
    CaptureFate fate = CaptureFate::NotCuabis;
    if (capture.cuabis()) {
        const bool ended = discard_capture(*stream, capture.id) != CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
        fate = ended ? CaptureFate::Ended : CaptureFate::OtherThread;
    }
    // Keep the original explanation, fix and CUresult; say in between what happened to the capture.
    // Without memory for that, the original message stands alone.
    try {
        const std::string original = last_error_message();
        return fail_again(status, discarded_capture_message(original, fate), last_cu_result());
    } catch (const std::bad_alloc&) {
        return status;
    }
}

}  // namespace graph
}  // namespace cuabi
