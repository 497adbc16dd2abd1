// A cuabi event: a marker recorded in a stream, for fork/join across streams and timing.
// The event keeps its context alive.
#pragma once

#include <cuda.h>

#include <atomic>
#include <memory>

#include "core/handle_table.hpp"
#include "device/context.hpp"
#include "device/stream.hpp"

namespace cuabi {

class Event final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::Event;

    // `flags` are CUABI_EVENT_* (already validated by the caller).
    static Status create(std::shared_ptr<Context> context, uint32_t flags, std::shared_ptr<Event>* out);
    ~Event() override;

    // Records on `stream`, or on the calling thread's per-thread stream for NULL.
    Status record(const Stream* stream);
    Status synchronize() const;
    // CUABI_SUCCESS, or CUABI_ERROR_NOT_READY without setting a message.
    Status query() const;
    // Milliseconds from `start` to `end`; refuses events without timing or never recorded.
    static Status elapsed_ms(const Event& start, const Event& end, float* out_ms);

    const Context& context() const { return *context_; }
    CUevent cu_event() const { return event_; }
    bool timing() const { return (flags_ & CUABI_EVENT_DISABLE_TIMING) == 0; }
    bool recorded() const { return recorded_.load(std::memory_order_acquire); }

private:
    Event(std::shared_ptr<Context> context, CUevent event, uint32_t flags)
        : context_(std::move(context)), event_(event), flags_(flags) {}
    std::shared_ptr<Context> context_;
    CUevent event_;
    uint32_t flags_;
    std::atomic<bool> recorded_{false};
};

// Makes future work on `stream` wait for `event` (CONTEXT_MISMATCH across contexts).
Status stream_wait_event(const Stream& stream, const Event& event);

}  // namespace cuabi
