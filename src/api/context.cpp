// Entry points of the "Context" group of cuabi.h.
#include "api/arguments.hpp"
#include "api/device_info.hpp"
#include "api/guard.hpp"
#include "api/versioned_struct.hpp"
#include "compile/discovery.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"
#include "device/context.hpp"
#include "driver/driver_api.hpp"
#include "graph/graph_cache.hpp"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_context_create(const cuabi_context_options* options, cuabi_context** out_context) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_context, "out_context");
    if (status != CUABI_SUCCESS) return status;
    cuabi_context_options read;
    if ((status = read_struct(options, &read)) != CUABI_SUCCESS) return status;
    if ((status = require_known_flags(read.flags, 0, "cuabi_context_options.flags", "(none yet: pass 0)")) !=
        CUABI_SUCCESS)
        return status;
    if (read.reserved != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "set reserved to 0 (cuabi_context_options_init() does)",
                    "cuabi_context_options.reserved is %u", read.reserved);
    if (read.image_verification < CUABI_IMAGE_VERIFY_DEFAULT || read.image_verification > CUABI_IMAGE_VERIFY_NONE)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "pass a CUABI_IMAGE_VERIFY_* constant (0 to 3), or 0 for the default",
                    "cuabi_context_options.image_verification is %d", read.image_verification);
    if (read.device_ordinal < 0)
        return fail(CUABI_ERROR_INVALID_DEVICE, "pass a device ordinal from 0 to cuabi_device_get_count() - 1",
                    "device ordinal %d is negative", read.device_ordinal);
    // With the driver loaded, what compiles key by is found while the driver creates the context
    // (the search pairs NVRTC with the loaded driver); the first compile then only looks it up.
    if (driver(&status) == nullptr) return status;
    discovery::start();
    std::shared_ptr<Context> context;
    status = Context::create(read.device_ordinal, &context);
    if (status == CUABI_SUCCESS) context->set_image_verification(read.image_verification);
    return publish_created(status, std::move(context), out_context);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API void cuabi_context_destroy(cuabi_context* context) try {
    if (context == nullptr) return;
    {
        // Graph-cache entries keyed by this context go with its handle. The pin keeps the object,
        // whose address is the entries' key, from being reused while they are dropped. Quiet, and
        // the last error kept: a destroy reports nothing.
        PreserveLastError keep;
        Pinned<Context> pinned(context, nullptr);
        if (pinned.ok()) graph::GraphCache::instance().clear(pinned.get());
    }
    destroy_handle<Context>(context);
} catch (...) {
    guard::swallowed();
}

CUABI_API cuabi_status cuabi_context_get_device_info(cuabi_context* context, cuabi_device_info* out_info) try {
    if (Status status = require_output(out_info, "out_info")) return status;
    return with_pinned<Context>(context, "context", [&](Context& read) {
        return write_output(public_device_info(read.info()), out_info);
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_synchronize(cuabi_context* context) try {
    return with_pinned<Context>(context, "context", [](Context& pinned) { return pinned.synchronize(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_get_native(cuabi_context* context, void** out_cu_context) try {
    return get_value<Context>(context, "context", out_cu_context, "out_cu_context",
                              [](Context& read) { return static_cast<void*>(read.cu_context()); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_get_counters(cuabi_context* context, cuabi_counters* out_counters) try {
    if (Status status = require_output(out_counters, "out_counters")) return status;
    return with_pinned<Context>(context, "context", [&](Context& read) {
        return write_output(public_counters(read.counters()), out_counters);
    });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
