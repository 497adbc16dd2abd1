#include "graph/capture.hpp"

#include <string>

#include "range/ranges.hpp"

namespace cuabi {
namespace graph {
namespace {

const char* mode_name(int32_t mode) {
    switch (mode) {
        case CUABI_CAPTURE_MODE_GLOBAL: return "global";
        case CUABI_CAPTURE_MODE_THREAD_LOCAL: return "thread-local";
        case CUABI_CAPTURE_MODE_RELAXED: return "relaxed";
    }
    return "unknown";
}

CUresult is_capturing(const Stream& stream, bool* out_active) {
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult result = stream.context().api().cuStreamIsCapturing(stream.cu_stream(), &capture);
    *out_active = result == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE;
    return result;
}

// Ends whatever capture the stream has and destroys what it produced.
CUresult discard_capture(const Stream& stream) {
    const DriverApi& api = stream.context().api();
    CUgraph graph = nullptr;
    CUresult result = api.cuStreamEndCapture(stream.cu_stream(), &graph);
    if (graph != nullptr) api.cuGraphDestroy(graph);
    return result;
}

}  // namespace

Status begin_capture(const Stream& stream, int32_t mode) {
    range::Scope scope(range::Phase::GraphCapture);
    CUstreamCaptureMode cu_mode;
    switch (mode) {
        case CUABI_CAPTURE_MODE_GLOBAL: cu_mode = CU_STREAM_CAPTURE_MODE_GLOBAL; break;
        case CUABI_CAPTURE_MODE_THREAD_LOCAL: cu_mode = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL; break;
        case CUABI_CAPTURE_MODE_RELAXED: cu_mode = CU_STREAM_CAPTURE_MODE_RELAXED; break;
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
    return CUABI_SUCCESS;
}

Status end_capture(const Stream& stream, CUgraph* out_graph) {
    range::Scope scope(range::Phase::GraphCapture);
    const DriverApi& api = stream.context().api();
    Status status = stream.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    CUgraph graph = nullptr;
    CUresult result = api.cuStreamEndCapture(stream.cu_stream(), &graph);
    if (result == CUDA_SUCCESS && graph != nullptr) {
        *out_graph = graph;
        return CUABI_SUCCESS;
    }
    if (graph != nullptr) api.cuGraphDestroy(graph);
    const int device = stream.context().ordinal();
    if (result == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
        return fail_with_cu_result(CUABI_ERROR_CAPTURE, result,
                                   "end a global or thread-local capture on the thread that began it, or begin it "
                                   "with CUABI_CAPTURE_MODE_RELAXED",
                                   "the stream on device %d is capturing, but the capture was begun on another "
                                   "thread; it is still capturing",
                                   device);
    if (result == CUDA_ERROR_ILLEGAL_STATE)
        return fail_with_cu_result(CUABI_ERROR_CAPTURE, result, "call cuabi_graph_capture_begin on the stream first",
                                   "the stream on device %d is not capturing, so there is no capture to end", device);
    // Invalidated, unjoined or otherwise failed: make sure the capture is really over.
    bool active = false;
    if (is_capturing(stream, &active) == CUDA_SUCCESS && active) discard_capture(stream);
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
    bool active = false;
    CUresult result = is_capturing(stream, &active);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamIsCapturing", "check that the stream is usable (cuabi_stream_query)",
                       "on device %d", stream.context().ordinal());
    if (!active) return CUABI_SUCCESS;
    result = discard_capture(stream);
    if (result == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
        return fail_with_cu_result(CUABI_ERROR_CAPTURE, result,
                                   "abort a global or thread-local capture on the thread that began it",
                                   "the stream on device %d is capturing, but the capture was begun on another "
                                   "thread; it is still capturing",
                                   stream.context().ordinal());
    return CUABI_SUCCESS;
}

Status capture_status(const Stream& stream, int32_t* out_status) {
    Status status = stream.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult result = stream.context().api().cuStreamIsCapturing(stream.cu_stream(), &capture);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamIsCapturing", "check that the stream is usable (cuabi_stream_query)",
                       "on device %d", stream.context().ordinal());
    switch (capture) {
        case CU_STREAM_CAPTURE_STATUS_NONE: *out_status = CUABI_CAPTURE_STATUS_NONE; break;
        case CU_STREAM_CAPTURE_STATUS_ACTIVE: *out_status = CUABI_CAPTURE_STATUS_ACTIVE; break;
        default: *out_status = CUABI_CAPTURE_STATUS_INVALIDATED; break;
    }
    return CUABI_SUCCESS;
}

std::string discarded_capture_message(const std::string& original, bool ended) {
    std::string what = original, fix = "retry";
    const std::string::size_type at = original.rfind(" Fix: ");
    if (at != std::string::npos) {
        what = original.substr(0, at);
        fix = original.substr(at + 6);
    }
    if (!fix.empty() && fix.back() == '.') fix.pop_back();
    if (ended) {
        what += " The stream was capturing a graph: cuabi ended the capture and discarded it, so the stream no "
                "longer captures.";
    } else {
        what += " The stream was capturing a graph begun on another thread; cuabi could not end that capture, "
                "so the stream still captures.";
        fix += ", and abort the capture (cuabi_graph_capture_abort) on the thread that began it";
    }
    return what + " Fix: " + fix + ", then capture again.";
}

Status end_capture_after_failure(const Stream* stream, Status status) {
    if (stream == nullptr) return status;
    bool active = false;
    if (is_capturing(*stream, &active) != CUDA_SUCCESS || !active) return status;
    // Keep the original explanation, fix and CUresult; say in between what happened to the capture.
    const std::string original = last_error_message();
    const int32_t cu_result = last_cu_result();
    const bool ended = discard_capture(*stream) != CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    return fail_again(status, discarded_capture_message(original, ended), cu_result);
}

}  // namespace graph
}  // namespace cuabi
