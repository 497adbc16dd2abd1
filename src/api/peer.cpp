// Entry points of the "Several GPUs" group of cuabi.h that concern contexts (the copy between
// devices is in api/buffer.cpp, with the other transfers).
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "cuabi/cuabi.h"
#include "device/peer_access.hpp"

using namespace cuabi;

namespace {

// Runs `work` on the two contexts, both pinned while it runs.
template <typename Work>
Status with_pair(cuabi_context* context, cuabi_context* peer, Work&& work) {
    return with_pinned<Context>(context, "context", [&](Context& from) {
        return with_pinned<Context>(peer, "peer", [&](Context& to) { return work(from, to); });
    });
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_context_can_access_peer(cuabi_context* context, cuabi_context* peer,
                                                     uint32_t* out_can_access) try {
    if (Status status = require_pointer(out_can_access, "out_can_access")) return status;
    return with_pair(context, peer, [&](Context& from, Context& to) {
        bool can = false;
        Status status = can_access_peer(from, to, &can);
        if (status == CUABI_SUCCESS) *out_can_access = can ? 1u : 0u;
        return status;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_enable_peer_access(cuabi_context* context, cuabi_context* peer) try {
    return with_pair(context, peer, [](Context& from, Context& to) { return enable_peer_access(from, to); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_disable_peer_access(cuabi_context* context, cuabi_context* peer) try {
    return with_pair(context, peer, [](Context& from, Context& to) { return disable_peer_access(from, to); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_get_peer_access(cuabi_context* context, cuabi_context* peer,
                                                     uint32_t* out_enabled) try {
    if (Status status = require_pointer(out_enabled, "out_enabled")) return status;
    return with_pair(context, peer, [&](Context& from, Context& to) {
        *out_enabled = peer_access_enabled(from, to) ? 1u : 0u;
        return Status{CUABI_SUCCESS};
    });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
