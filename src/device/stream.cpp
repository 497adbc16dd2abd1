#include "device/stream.hpp"

namespace cuabi {

Status Stream::create(std::shared_ptr<Context> context, int32_t priority, std::shared_ptr<Stream>* out) {
    const DriverApi& api = context->api();
    Status status = context->make_current();
    if (status != CUABI_SUCCESS) return status;
    int least = 0, greatest = 0;
    CUresult result = api.cuCtxGetStreamPriorityRange(&least, &greatest);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuCtxGetStreamPriorityRange", "check that the device is still available (nvidia-smi)",
                       "on device %d", context->ordinal());
    // Lower numbers are higher priorities: greatest <= priority <= least.
    if (priority < greatest) priority = greatest;
    if (priority > least) priority = least;
    CUstream stream = nullptr;
    result = api.cuStreamCreateWithPriority(&stream, CU_STREAM_NON_BLOCKING, priority);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamCreateWithPriority", "destroy streams that are no longer needed",
                       "(priority %d) on device %d", priority, context->ordinal());
    std::shared_ptr<Stream> created(new (std::nothrow) Stream(std::move(context), stream, true));
    if (!created) {
        api.cuStreamDestroy(stream);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a stream object");
    }
    *out = std::move(created);
    return CUABI_SUCCESS;
}

Status Stream::wrap(std::shared_ptr<Context> context, CUstream cu_stream, std::shared_ptr<Stream>* out) {
    const char* const fix = "pass a stream created with cuStreamCreate (or another library's stream) in this "
                            "context, or pass NULL to cuabi functions for synchronous work";
    if (cu_stream == nullptr)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, fix,
                    "cu_stream is 0, CUDA's legacy default stream, which cuabi never uses because it serializes "
                    "with every blocking stream in the process");
    if (cu_stream == CU_STREAM_LEGACY)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, fix,
                    "cu_stream is CU_STREAM_LEGACY (0x1), CUDA's legacy default stream, which cuabi never uses");
    if (cu_stream == CU_STREAM_PER_THREAD)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, fix,
                    "cu_stream is CU_STREAM_PER_THREAD (0x2), which names a different stream on every thread "
                    "and so cannot be wrapped as one object");
    Status status = context->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUcontext owner = nullptr;
    CUgreenCtx green = nullptr;  // a stream of a green context reports its device's primary context
    CUresult result = context->api().cuStreamGetCtx(cu_stream, &owner, &green);
    if (result != CUDA_SUCCESS)
        return fail_with_cu_result(CUABI_ERROR_INVALID_ARGUMENT, result, fix,
                                   "cuStreamGetCtx rejected cu_stream %p with %s; it is not a live CUDA stream",
                                   static_cast<void*>(cu_stream), cu_result_text(result).c_str());
    if (owner != context->cu_context())
        return fail(CUABI_ERROR_CONTEXT_MISMATCH,
                    "wrap the stream with a cuabi context of the device it was created on",
                    "cu_stream %p belongs to CUDA context %p, not to the primary context %p of device %d",
                    static_cast<void*>(cu_stream), static_cast<void*>(owner),
                    static_cast<void*>(context->cu_context()), context->ordinal());
    std::shared_ptr<Stream> wrapped(new (std::nothrow) Stream(std::move(context), cu_stream, false));
    if (!wrapped) return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a stream object");
    *out = std::move(wrapped);
    return CUABI_SUCCESS;
}

Stream::~Stream() {
    if (!owned_) return;
    // A destructor cannot report; cuStreamDestroy does not need the context current, but the
    // primary context must still be retained, which context_ guarantees.
    context_->api().cuStreamDestroy(stream_);
}

Status Stream::synchronize() const {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuStreamSynchronize(stream_);
    Counters::bump(context_->counters().synchronizations);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamSynchronize",
                       "an earlier kernel or copy on this stream failed; check the work enqueued before it",
                       "on device %d", context_->ordinal());
    return CUABI_SUCCESS;
}

Status Stream::query() const {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuStreamQuery(stream_);
    if (result == CUDA_SUCCESS) return CUABI_SUCCESS;
    if (result == CUDA_ERROR_NOT_READY) return CUABI_ERROR_NOT_READY;  // not a failure: no message
    return fail_cu(result, "cuStreamQuery",
                   "an earlier kernel or copy on this stream failed; check the work enqueued before it",
                   "on device %d", context_->ordinal());
}

Status check_stream_context(const Context& context, const Stream* stream, const char* what) {
    if (stream == nullptr || stream->context().cu_context() == context.cu_context()) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_CONTEXT_MISMATCH, "use a stream created from the same device's context",
                "the stream belongs to device %d but the %s belongs to device %d", stream->context().ordinal(), what,
                context.ordinal());
}

Status complete_if_synchronous(const Context& context, const Stream* stream, const char* operation) {
    if (stream != nullptr) return CUABI_SUCCESS;
    CUresult result = context.api().cuStreamSynchronize(CU_STREAM_PER_THREAD);
    Counters::bump(context.counters().synchronizations);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamSynchronize",
                       "check the arguments of the operation and of earlier work on this thread",
                       "(per-thread stream) after %s on device %d", operation, context.ordinal());
    return CUABI_SUCCESS;
}

}  // namespace cuabi
