// Entry points of the "Event" group of cuabi.h.
#include "api/arguments.hpp"
#include "api/enqueue.hpp"
#include "api/guard.hpp"
#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"
#include "device/event.hpp"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_event_create(cuabi_context* context, const cuabi_event_options* options,
                                          cuabi_event** out_event) try {
    Status status = require_pointer(out_event, "out_event");
    if (status != CUABI_SUCCESS) return status;
    cuabi_event_options read;
    if ((status = read_struct(options, &read)) != CUABI_SUCCESS) return status;
    if ((status = require_known_flags(read.flags, CUABI_EVENT_DISABLE_TIMING | CUABI_EVENT_BLOCKING_SYNC,
                                      "cuabi_event_options.flags", "CUABI_EVENT_*")) != CUABI_SUCCESS)
        return status;
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<Event> event;
    status = Event::create(std::move(parent), read.flags, &event);
    return publish_created(status, std::move(event), out_event);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_event_record(cuabi_event* event, cuabi_stream* stream) try {
    // The stream first: whatever then fails, a capturing stream has its capture ended.
    return enqueue_on_stream(stream, __func__, [&](const Stream* on) {
        return with_pinned<Event>(event, "event", [&](Event& recorded) { return recorded.record(on); });
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_event_synchronize(cuabi_event* event) try {
    return with_pinned<Event>(event, "event", [](Event& pinned) { return pinned.synchronize(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_event_query(cuabi_event* event) try {
    return with_pinned<Event>(event, "event", [](Event& pinned) { return pinned.query(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_event_get_elapsed_ms(cuabi_event* start, cuabi_event* end, float* out_ms) try {
    Status status = require_pointer(out_ms, "out_ms");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Event> pinned_start(start, "start");
    if (!pinned_start.ok()) return refused_handle();
    Pinned<Event> pinned_end(end, "end");
    if (!pinned_end.ok()) return refused_handle();
    return Event::elapsed_ms(*pinned_start, *pinned_end, out_ms);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
