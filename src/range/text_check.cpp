#include "range/text_check.hpp"

#include <cstdint>

namespace cuabi {
namespace range {
namespace {

// Bytes in the sequence that `lead` starts, and the smallest code point it may encode (anything
// below is an overlong form). 0 for a byte that cannot start a sequence.
int sequence_length(uint8_t lead, uint32_t* minimum) {
    if (lead < 0x80) return *minimum = 0, 1;
    if ((lead & 0xE0) == 0xC0) return *minimum = 0x80, 2;
    if ((lead & 0xF0) == 0xE0) return *minimum = 0x800, 3;
    if ((lead & 0xF8) == 0xF0) return *minimum = 0x10000, 4;
    return 0;
}

}  // namespace

size_t valid_utf8_prefix(const char* text) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(text);
    size_t at = 0;
    while (bytes[at] != 0) {
        uint32_t minimum = 0;
        int length = sequence_length(bytes[at], &minimum);
        if (length == 0) return at;
        uint32_t code_point = length == 1 ? bytes[at] : bytes[at] & (0x7Fu >> length);
        for (int i = 1; i < length; ++i) {
            uint8_t next = bytes[at + i];  // a NUL here stops the loop: it is no continuation byte
            if ((next & 0xC0) != 0x80) return at;
            code_point = (code_point << 6) | (next & 0x3Fu);
        }
        if (code_point < minimum || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF))
            return at;
        at += static_cast<size_t>(length);
    }
    return at;
}

Status check_range_text(const char* text, const char* what, bool null_allowed) {
    if (text == nullptr) {
        if (null_allowed) return CUABI_SUCCESS;
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a NUL-terminated UTF-8 name",
                    "the range %s is NULL", what);
    }
    if (text[0] == '\0')
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "give the range a name a profiler can show",
                    "the range %s is empty", what);
    size_t valid = valid_utf8_prefix(text);
    if (text[valid] != '\0') {
        // Quote at most 64 bytes of the valid part, cut at a character boundary.
        size_t quoted = valid < 64 ? valid : 64;
        while (quoted < valid && quoted > 0 && (static_cast<uint8_t>(text[quoted]) & 0xC0) == 0x80) --quoted;
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the name as UTF-8 (convert it from its local encoding first)",
                    "the range %s is not valid UTF-8: byte 0x%02X at offset %zu (after \"%.*s\") starts no valid "
                    "UTF-8 sequence",
                    what, static_cast<unsigned>(static_cast<uint8_t>(text[valid])), valid,
                    static_cast<int>(quoted), text);
    }
    return CUABI_SUCCESS;
}

}  // namespace range
}  // namespace cuabi
