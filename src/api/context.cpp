// Entry points of the "Context" group of cuabi.h.
#include "api/arguments.hpp"
#include "api/device_info.hpp"
#include "api/guard.hpp"
#include "compile/discovery.hpp"
#include "core/fork.hpp"
#include "core/options.hpp"
#include "cuabi/cuabi.h"
#include "device/context.hpp"
#include "driver/driver_api.hpp"
#include "graph/graph_cache.hpp"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_context_options_init(uint32_t struct_size, cuabi_context_options* out_options) try {
    return init_struct(cuabi_context_options CUABI_CONTEXT_OPTIONS_INIT, struct_size, out_options, "cuabi_context_options", "cuabi_context_options_init");
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_counters_init(uint32_t struct_size, cuabi_counters* out_counters) try {
    return init_struct(cuabi_counters CUABI_COUNTERS_INIT, struct_size, out_counters, "cuabi_counters", "cuabi_counters_init");
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_create(const cuabi_context_options* options, cuabi_context** out_context) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_context, "out_context");
    if (status != CUABI_SUCCESS) return status;
    cuabi_context_options read{};
    status = read_options(options, cuabi_context_options CUABI_CONTEXT_OPTIONS_INIT, "cuabi_context_options",
                          "cuabi_context_options_init", &read);
    if (status != CUABI_SUCCESS) return status;
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
    if (status != CUABI_SUCCESS) return status;
    context->set_image_verification(read.image_verification);
    return publish(std::move(context), out_context);
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

CUABI_API cuabi_status cuabi_context_get_device_info(cuabi_context* context, cuabi_device_info* info) try {
    Status status = require_pointer(info, "info");
    if (status != CUABI_SUCCESS) return status;
    status = require_output_struct(info->struct_size, "cuabi_device_info", "cuabi_device_info_init");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Context> pinned(context, "context");
    if (!pinned.ok()) return refused_handle();
    return write_output(public_device_info(pinned->info()), info, "cuabi_device_info", "cuabi_device_info_init");
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_synchronize(cuabi_context* context) try {
    Pinned<Context> pinned(context, "context");
    if (!pinned.ok()) return refused_handle();
    return pinned->synchronize();
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_get_native(cuabi_context* context, void** out_cu_context) try {
    Status status = require_pointer(out_cu_context, "out_cu_context");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Context> pinned(context, "context");
    if (!pinned.ok()) return refused_handle();
    *out_cu_context = pinned->cu_context();
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_get_counters(cuabi_context* context, cuabi_counters* counters) try {
    Status status = require_pointer(counters, "counters");
    if (status != CUABI_SUCCESS) return status;
    status = require_output_struct(counters->struct_size, "cuabi_counters", "cuabi_counters_init");
    if (status != CUABI_SUCCESS) return status;
    Pinned<Context> pinned(context, "context");
    if (!pinned.ok()) return refused_handle();
    return write_output(public_counters(pinned->counters()), counters, "cuabi_counters", "cuabi_counters_init");
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
