#include "device/event.hpp"

namespace cuabi {

Status Event::create(std::shared_ptr<Context> context, uint32_t flags, std::shared_ptr<Event>* out) {
    Status status = context->make_current();
    if (status != CUABI_SUCCESS) return status;
    unsigned int cu_flags = CU_EVENT_DEFAULT;
    if (flags & CUABI_EVENT_DISABLE_TIMING) cu_flags |= CU_EVENT_DISABLE_TIMING;
    if (flags & CUABI_EVENT_BLOCKING_SYNC) cu_flags |= CU_EVENT_BLOCKING_SYNC;
    CUevent event = nullptr;
    CUresult result = context->api().cuEventCreate(&event, cu_flags);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuEventCreate", "destroy events that are no longer needed", "(flags 0x%x) on device %d",
                       flags, context->ordinal());
    std::shared_ptr<Event> created(new (std::nothrow) Event(std::move(context), event, flags));
    if (!created) {
        // The new-initializer (and so the move from `context`) runs only after allocation succeeds.
        context->api().cuEventDestroy(event);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate an event object");
    }
    *out = std::move(created);
    return CUABI_SUCCESS;
}

Event::~Event() { context_->api().cuEventDestroy(event_); }

Status Event::record(const Stream* stream) {
    Status status = check_stream_context(*context_, stream, "event");
    if (status != CUABI_SUCCESS) return status;
    status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuEventRecord(event_, submission_stream(stream));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuEventRecord", "check that the stream is still alive and not capturing a graph",
                       "on device %d", context_->ordinal());
    recorded_.store(true, std::memory_order_release);
    return CUABI_SUCCESS;
}

Status Event::synchronize() const {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuEventSynchronize(event_);
    Counters::bump(context_->counters().synchronizations);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuEventSynchronize",
                       "an earlier kernel or copy failed; check the work enqueued before the event",
                       "on device %d", context_->ordinal());
    return CUABI_SUCCESS;
}

Status Event::query() const {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuEventQuery(event_);
    if (result == CUDA_SUCCESS) return CUABI_SUCCESS;
    if (result == CUDA_ERROR_NOT_READY) return CUABI_ERROR_NOT_READY;  // not a failure: no message
    return fail_cu(result, "cuEventQuery", "an earlier kernel or copy failed; check the work enqueued before the event",
                   "on device %d", context_->ordinal());
}

Status Event::elapsed_ms(const Event& start, const Event& end, float* out_ms) {
    const Event* events[2] = {&start, &end};
    const char* names[2] = {"start", "end"};
    for (int i = 0; i < 2; ++i) {
        if (!events[i]->timing())
            return fail(CUABI_ERROR_INVALID_ARGUMENT,
                        "create both events without CUABI_EVENT_DISABLE_TIMING to measure time between them",
                        "the %s event was created with CUABI_EVENT_DISABLE_TIMING and carries no timestamp", names[i]);
        if (!events[i]->recorded())
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "record both events with cuabi_event_record() first",
                        "the %s event was never recorded", names[i]);
    }
    if (start.context_->cu_context() != end.context_->cu_context())
        return fail(CUABI_ERROR_CONTEXT_MISMATCH, "time events recorded on the same device",
                    "the start event belongs to device %d but the end event to device %d", start.context_->ordinal(),
                    end.context_->ordinal());
    Status status = start.context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    float ms = 0.0f;
    CUresult result = start.context_->api().cuEventElapsedTime(&ms, start.event_, end.event_);
    if (result == CUDA_ERROR_NOT_READY)
        return fail_with_cu_result(CUABI_ERROR_NOT_READY, result,
                                   "call cuabi_event_synchronize() on the end event before asking for the time",
                                   "an event has not completed yet, so no time can be measured");
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuEventElapsedTime", "record both events on streams of this device",
                       "on device %d", start.context_->ordinal());
    *out_ms = ms;
    return CUABI_SUCCESS;
}

Status stream_wait_event(const Stream& stream, const Event& event) {
    if (stream.context().cu_context() != event.context().cu_context())
        return fail(CUABI_ERROR_CONTEXT_MISMATCH,
                    "make streams wait only on events of the same device, or synchronize the event on the host",
                    "the stream belongs to device %d but the event to device %d", stream.context().ordinal(),
                    event.context().ordinal());
    Status status = stream.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = stream.context().api().cuStreamWaitEvent(stream.cu_stream(), event.cu_event(), 0);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamWaitEvent", "check that the stream and event are still alive",
                       "on device %d", stream.context().ordinal());
    return CUABI_SUCCESS;
}

}  // namespace cuabi
