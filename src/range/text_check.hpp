// Checks of the names users give ranges and domains: NVTX passes them to the profiler as
// NUL-terminated UTF-8, and a profiler that meets invalid UTF-8 may drop or garble the range.
#pragma once

#include <cstddef>

#include "core/error.hpp"

namespace cuabi {
namespace range {

// The length of the longest prefix of `text` (up to its NUL) that is well-formed UTF-8: no stray
// continuation bytes, no truncated or overlong sequences, no surrogates, nothing above U+10FFFF.
// Equals strlen(text) exactly when the whole text is valid.
size_t valid_utf8_prefix(const char* text);

// CUABI_SUCCESS, or CUABI_ERROR_INVALID_ARGUMENT with a message naming `what` ("name",
// "domain") when `text` is NULL (and not `null_allowed`), empty or not valid UTF-8.
Status check_range_text(const char* text, const char* what, bool null_allowed);

}  // namespace range
}  // namespace cuabi
