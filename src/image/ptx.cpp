// PTX: text up to an optional NUL terminator (only NULs may follow it), with .version and .target.
#include <cctype>
#include <cstring>

#include "image/bytes.hpp"

namespace cuabi {
namespace image {
namespace {

// Finds `word` in [text, text + length) without relying on a terminator.
const char* find(const char* text, size_t length, const char* word) {
    const size_t word_length = std::strlen(word);
    for (size_t at = 0; at + word_length <= length; ++at)
        if (std::memcmp(text + at, word, word_length) == 0) return text + at;
    return nullptr;
}

// The XY of the first ".target sm_XY" directive, 0 if it names none.
int target_arch(const char* text, size_t length) {
    const char* at = find(text, length, ".target");
    if (at == nullptr) return 0;
    const char* end = text + length;
    at += 7;
    while (at < end && (*at == ' ' || *at == '\t')) ++at;
    if (end - at < 3 || std::memcmp(at, "sm_", 3) != 0) return 0;
    int arch = 0;
    for (at += 3; at < end && std::isdigit(static_cast<unsigned char>(*at)) && arch < 100000; ++at)
        arch = arch * 10 + (*at - '0');
    return arch;
}

}  // namespace

void check_ptx(const uint8_t* data, size_t size, Verdict* out) {
    const char* text = reinterpret_cast<const char*>(data);
    size_t length = 0;
    while (length < size && text[length] != '\0') {
        const unsigned char c = static_cast<unsigned char>(text[length]);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return;  // binary: not PTX (kind stays Unknown)
        ++length;
    }
    if (!Bytes(data, size).zero_from(length)) return;  // text, a NUL, then more: not PTX
    if (length == 0 || find(text, length, ".version") == nullptr || find(text, length, ".target") == nullptr) return;
    out->kind = Kind::Ptx;
    out->arch = target_arch(text, length);
    out->extent = length;
}

}  // namespace image
}  // namespace cuabi
