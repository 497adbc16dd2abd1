// Cache keys: XXH3-128 over a canonical serialization of everything that changes a
// compiled image.
//
// Canonical means unambiguous: every field is written as (tag length, tag bytes, value length,
// value bytes), lengths as 64-bit little-endian, so no two different field sequences serialize to
// the same bytes ("ab"+"c" and "a"+"bc" differ, an empty field differs from a missing one). A
// value longer than kInlineValueBytes is written as its length and its own XXH3-128 digest (16
// bytes, high half first, each half little-endian) instead of its bytes: the length says which
// form follows, so this stays unambiguous, and the whole key is then one hash over a short buffer
// plus one over each long value -- a 4 KiB source costs one vectorized pass (AVX2 where the CPU
// has it). The cache format version is mixed in first by the constructor, so a format change
// invalidates every key. Callers (src/compile/) decide WHICH fields go in and normalize them
// (sorted name expressions, canonical option spellings); this file decides HOW they are hashed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace cuabi {
namespace cache {

// Bumped whenever the key's inputs or the on-disk entry format change meaning. Old entries then
// no longer match any key and age out through LRU eviction.
constexpr uint64_t kFormatVersion = 3;  // 3: values past kInlineValueBytes keyed by their digest

// Values longer than this are keyed by their digest (see the file comment).
constexpr size_t kInlineValueBytes = 256;

// The NVRTC part of a key when no NVRTC can be loaded: entries of any NVRTC match.
constexpr uint64_t kAnyNvrtc = 0;

// A key has two parts: the request (high, low: everything the caller asked for -- source,
// options, headers, target, toolkit headers) and the identity of the NVRTC that compiles it.
// Entries are found by both; a process without NVRTC looks for the request alone (kAnyNvrtc).
struct Key {
    uint64_t high = 0, low = 0;
    uint64_t nvrtc = kAnyNvrtc;

    // 32 lowercase hex digits of the request part, high half first.
    std::string hex() const;
    // 16 lowercase hex digits of the NVRTC part.
    std::string nvrtc_hex() const;
    bool operator==(const Key& other) const { return high == other.high && low == other.low && nvrtc == other.nvrtc; }
    bool operator!=(const Key& other) const { return !(*this == other); }
};

// XXH3-128 of `size` bytes, with the widest vector unit the CPU has (AVX2 or SSE2 on x86-64).
struct Digest {
    uint64_t high = 0, low = 0;
};
Digest hash128(const void* data, size_t size);

// Collects the serialization in a buffer on the stack (on the heap past 1 KiB of small fields),
// so that keying a request allocates nothing and hashes in a few calls.
class KeyBuilder {
public:
    KeyBuilder();
    ~KeyBuilder();
    KeyBuilder(const KeyBuilder& other);
    KeyBuilder& operator=(const KeyBuilder& other);

    // A tag given as a string literal costs no strlen (every compile keys its request).
    template <size_t N>
    void add(const char (&tag)[N], const void* data, size_t size) {
        add_field(tag, N - 1, data, size);
    }
    template <size_t N>
    void add(const char (&tag)[N], const std::string& text) {
        add_field(tag, N - 1, text.data(), text.size());
    }
    template <size_t N>
    void add_u64(const char (&tag)[N], uint64_t value) {  // serialized as 8 little-endian bytes
        add_u64_field(tag, N - 1, value);
    }
    // The value is the concatenation of `parts` (a flag and its argument), hashed as if joined.
    template <size_t N>
    void add_joined(const char (&tag)[N], std::initializer_list<std::string_view> parts) {
        add_joined_field(tag, N - 1, parts);
    }
    void add_field(const char* tag, size_t tag_size, const void* data, size_t size);
    void add_joined_field(const char* tag, size_t tag_size, std::initializer_list<std::string_view> parts);
    void add_u64_field(const char* tag, size_t tag_size, uint64_t value);
    Key finish() const;  // the request part (nvrtc = kAnyNvrtc); may be called more than once

private:
    unsigned char* reserve(size_t size) {  // room for `size` more bytes, at the end
        if (size > capacity_ - size_) grow(size);
        unsigned char* at = data_ + size_;
        size_ += size;
        return at;
    }
    void grow(size_t size);

    static constexpr size_t kInline = 1024;
    unsigned char inline_[kInline];
    unsigned char* data_ = inline_;
    size_t size_ = 0;
    size_t capacity_ = kInline;
};

}  // namespace cache
}  // namespace cuabi
