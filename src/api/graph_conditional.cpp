// Entry points of the "Graph" group added in 1.2 for conditional nodes (graph/conditional.hpp).
// Every failure ends and discards a capture cuabi began, as the capture calls do; the checks that
// need no GPU come first, so that their message is the one reported whatever the stream.
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "cuabi/cuabi.h"
#include "device/stream.hpp"
#include "graph/capture.hpp"
#include "graph/conditional.hpp"

using namespace cuabi;

namespace {

constexpr uint32_t kKnownConditionFlags = CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT;

// Runs `work` on the stream after `checked` (the argument checks) passed; on any failure ends the
// stream's capture if cuabi began it. A refused argument is reported even with a bad stream handle.
template <typename Work>
Status on_capturing_stream(cuabi_stream* stream, Status checked, Work&& work) {
    if (checked != CUABI_SUCCESS) {
        Pinned<Stream> quiet(stream, nullptr);
        return quiet.ok() ? graph::end_capture_after_failure(quiet.get(), checked) : checked;
    }
    Pinned<Stream> pinned(stream, "stream");
    if (!pinned.ok()) return refused_handle();
    Status status = work(*pinned);
    return status == CUABI_SUCCESS ? status : graph::end_capture_after_failure(pinned.get(), status);
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_graph_condition_create(cuabi_stream* stream, uint32_t default_value, uint32_t flags,
                                                    uint64_t* out_condition) try {
    Status checked = require_pointer(out_condition, "out_condition");
    if (checked == CUABI_SUCCESS)
        checked = require_known_flags(flags, kKnownConditionFlags, "flags", "CUABI_GRAPH_CONDITION_*");
    return on_capturing_stream(stream, checked, [&](Stream& on) {
        return graph::create_condition(on, default_value, flags, out_condition);
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_capture_conditional_begin(cuabi_stream* stream, uint64_t condition, int32_t type,
                                                             uint32_t body_count) try {
    return on_capturing_stream(stream, graph::check_conditional_shape(type, body_count), [&](Stream& on) {
        return graph::begin_conditional(on, condition, type, body_count);
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_capture_conditional_next(cuabi_stream* stream) try {
    return on_capturing_stream(stream, CUABI_SUCCESS, [](Stream& on) { return graph::next_conditional_body(on); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_capture_conditional_end(cuabi_stream* stream) try {
    return on_capturing_stream(stream, CUABI_SUCCESS, [](Stream& on) { return graph::end_conditional(on); });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
