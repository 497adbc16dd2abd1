// The two-call pattern for variable-length results: *out_size always receives the
// size needed; the data is copied only into a buffer that holds it; a NULL buffer just asks.
#pragma once

#include <cstring>
#include <string>

#include "api/arguments.hpp"

namespace cuabi {

// Bytes: *out_size = size.
inline Status copy_bytes_out(const void* data, size_t size, void* buffer, size_t capacity, size_t* out_size) {
    Status status = require_pointer(out_size, "out_size");
    if (status != CUABI_SUCCESS) return status;
    *out_size = size;
    if (buffer == nullptr) return CUABI_SUCCESS;
    if (capacity < size)
        return fail(CUABI_ERROR_BUFFER_TOO_SMALL,
                    "pass a buffer of at least *out_size bytes (call once with a NULL buffer to learn it)",
                    "the buffer holds %zu bytes; the result needs %zu", capacity, size);
    if (size != 0) std::memcpy(buffer, data, size);
    return CUABI_SUCCESS;
}

// Text: *out_size = length + 1, the terminating NUL included.
inline Status copy_text_out(const std::string& text, char* buffer, size_t capacity, size_t* out_size) {
    return copy_bytes_out(text.c_str(), text.size() + 1, buffer, capacity, out_size);
}

}  // namespace cuabi
