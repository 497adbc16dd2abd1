// A cuabi stream: an owned non-blocking CUstream, or a wrapped foreign one that cuabi never
// destroys. The stream keeps its context alive.
//
// Also the one place that decides where a call's GPU work goes: a cuabi stream, or for a NULL
// stream the calling thread's per-thread stream followed by a wait. cuabi never uses CUDA's
// legacy default stream, which would serialize with every other blocking stream in the process.
#pragma once

#include <cuda.h>

#include <memory>

#include "core/handle_table.hpp"
#include "device/context.hpp"

namespace cuabi {

class Stream final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::Stream;

    // Creates a non-blocking stream; `priority` is clamped to the device's range.
    static Status create(std::shared_ptr<Context> context, int32_t priority, std::shared_ptr<Stream>* out);
    // Wraps `cu_stream` without owning it. Rejects 0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD and
    // streams of another CUDA context.
    static Status wrap(std::shared_ptr<Context> context, CUstream cu_stream, std::shared_ptr<Stream>* out);
    ~Stream() override;

    Status synchronize() const;
    // CUABI_SUCCESS, or CUABI_ERROR_NOT_READY without setting a message.
    Status query() const;

    const Context& context() const { return *context_; }
    // Shared ownership of the context, for objects made from the stream that must outlive it.
    const std::shared_ptr<Context>& context_ref() const { return context_; }
    CUstream cu_stream() const { return stream_; }
    // The context's CUcontext, kept here too so that hot paths compare it without visiting the context.
    CUcontext cu_context() const { return cu_context_; }
    bool owned() const { return owned_; }

private:
    Stream(std::shared_ptr<Context> context, CUstream stream, bool owned)
        : context_(std::move(context)), stream_(stream), cu_context_(context_->cu_context()), owned_(owned) {}
    std::shared_ptr<Context> context_;
    CUstream stream_;
    CUcontext cu_context_;
    bool owned_;
};

// --- where work goes -------------------------------------------------------------------------

// CONTEXT_MISMATCH when `stream` (may be NULL) belongs to another CUDA context than `context`.
// `what` names the object whose context is compared, e.g. "buffer" or "kernel 'axpy'".
Status check_stream_context(const Context& context, const Stream* stream, const char* what);

// The CUstream to enqueue on: the caller's, or the per-thread stream for NULL.
inline CUstream submission_stream(const Stream* stream) {
    return stream != nullptr ? stream->cu_stream() : CU_STREAM_PER_THREAD;
}

// After enqueueing work for a NULL stream, waits for the per-thread stream (and counts the
// synchronization); does nothing for a real stream. `operation` names the work for messages.
Status complete_if_synchronous(const Context& context, const Stream* stream, const char* operation);

}  // namespace cuabi
