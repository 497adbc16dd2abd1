#include "graph/retention.hpp"

#include <cstdint>

#include "core/deferred_release.hpp"
#include "device/buffer_directory.hpp"
#include "graph/owned_captures.hpp"

namespace cuabi {
namespace graph {
namespace {

// The last few (capture, buffer) pairs this thread retained, so that a capture filling one buffer
// a thousand times makes one user object, not a thousand. Capture ids are never reused in a
// process, and a retained buffer cannot be freed (nor its address reused) while its capture's
// graph lives, so an entry is never wrong, at worst useless.
struct Retained {
    uint64_t capture = 0;
    const Buffer* buffer = nullptr;
};
constexpr unsigned kRemembered = 4;
thread_local Retained remembered[kRemembered];
thread_local unsigned next_remembered = 0;

bool already_retained(uint64_t capture, const Buffer* buffer) {
    for (const Retained& entry : remembered)
        if (entry.capture == capture && entry.buffer == buffer) return true;
    return false;
}

void remember(uint64_t capture, const Buffer* buffer) {
    remembered[next_remembered] = Retained{capture, buffer};
    next_remembered = (next_remembered + 1) % kRemembered;
}

}  // namespace

Status retain_for_capture(const Stream* stream, const std::shared_ptr<const Buffer>& buffer) {
    if (stream == nullptr) return CUABI_SUCCESS;
    const Context& context = stream->context();
    const DriverApi& api = context.api();
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    CUgraph graph = nullptr;
    CUresult result =
        api.cuStreamGetCaptureInfo(stream->cu_stream(), &capturing, &id, &graph, nullptr, nullptr, nullptr);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamGetCaptureInfo", "check that the stream is usable (cuabi_stream_query)",
                       "on device %d", context.ordinal());
    // An invalidated capture records nothing more; its end reports it.
    if (capturing != CU_STREAM_CAPTURE_STATUS_ACTIVE || graph == nullptr || already_retained(id, buffer.get()))
        return CUABI_SUCCESS;
    Status status = context.make_current();
    if (status != CUABI_SUCCESS) return status;
    DeferredRelease* held = DeferredRelease::hold(buffer);
    if (held == nullptr)
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory",
                    "could not allocate the reference by which the captured graph keeps the buffer alive");
    CUuserObject object = nullptr;
    result = api.cuUserObjectCreate(&object, held, &DeferredRelease::queue, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
    if (result != CUDA_SUCCESS) {
        DeferredRelease::discard(held);
        return fail_cu(result, "cuUserObjectCreate", "free host memory, or capture fewer transfers",
                       "for a buffer of %zu bytes captured on device %d", buffer->size(), context.ordinal());
    }
    // The reference moves to the graph: from here on the driver decides when it is released.
    // In a conditional body, the root graph: a body lives exactly as long as its root.
    result = api.cuGraphRetainUserObject(owned().keeper(id, graph), object, 1, CU_GRAPH_USER_OBJECT_MOVE);
    if (result != CUDA_SUCCESS) {
        api.cuUserObjectRelease(object, 1);
        DeferredRelease::release_queued();
        return fail_cu(result, "cuGraphRetainUserObject", "free host memory, or capture fewer transfers",
                       "for a buffer of %zu bytes captured on device %d", buffer->size(), context.ordinal());
    }
    remember(id, buffer.get());
    return CUABI_SUCCESS;
}

Status retain_argument_buffers(const Stream& stream, const uint64_t* values, size_t count) {
    const CUcontext context = stream.cu_context();
    for (size_t i = 0; i < count; ++i) {
        std::shared_ptr<const Buffer> buffer = buffer_directory::find(context, values[i]);
        if (buffer == nullptr) continue;
        Status status = retain_for_capture(&stream, buffer);
        if (status != CUABI_SUCCESS) return status;
    }
    return CUABI_SUCCESS;
}

}  // namespace graph
}  // namespace cuabi
