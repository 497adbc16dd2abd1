// Argument checks shared by the entry points that allocate buffers (cuabi_buffer_create, _async,
// _managed): each records a message ending in "Fix: ..." and returns the status.
#pragma once

#include "api/arguments.hpp"
#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {

// INVALID_ARGUMENT for a NULL out_buffer or a size of 0; `what` names the buffer ("managed buffer").
inline Status require_allocation(const char* what, cuabi_buffer** out_buffer, size_t size) {
    Status status = require_pointer(out_buffer, "out_buffer");
    if (status != CUABI_SUCCESS || size != 0) return status;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a size of at least 1 byte",
                "%s size is 0; CUDA cannot allocate an empty buffer", what);
}

// The CUABI_BUFFER_* flags of `options` (NULL: the defaults), refused when unknown.
inline Status read_buffer_flags(const cuabi_buffer_options* options, uint32_t* out_flags) {
    cuabi_buffer_options read;
    Status status = read_struct(options, &read);
    if (status == CUABI_SUCCESS)
        status = require_known_flags(read.flags, CUABI_BUFFER_ZERO, "cuabi_buffer_options.flags", "CUABI_BUFFER_*");
    if (status == CUABI_SUCCESS) *out_flags = read.flags;
    return status;
}

}  // namespace cuabi
