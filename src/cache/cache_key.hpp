// Cache keys: XXH3-128 over a canonical serialization of everything that changes a
// compiled image.
//
// Canonical means unambiguous: every field is written as (tag length, tag bytes, value length,
// value bytes), lengths as 64-bit little-endian, so no two different field sequences serialize to
// the same bytes ("ab"+"c" and "a"+"bc" differ, an empty field differs from a missing one). The
// cache format version is mixed in first by the constructor, so a format change invalidates every
// key. Callers (src/compile/) decide WHICH fields go in and normalize them (sorted name
// expressions, canonical option spellings); this file decides HOW they are hashed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cuabi {
namespace cache {

// Bumped whenever the key's inputs or the on-disk entry format change meaning. Old entries then
// no longer match any key and age out through LRU eviction.
constexpr uint64_t kFormatVersion = 2;

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

// Streams fields into an XXH3-128 state: no copy of the inputs is made, so keying a 4 KiB source
// costs the hash and nothing else.
class KeyBuilder {
public:
    KeyBuilder();
    KeyBuilder(const KeyBuilder& other);
    KeyBuilder& operator=(const KeyBuilder& other);

    void add(const char* tag, const void* data, size_t size);
    void add(const char* tag, const std::string& text) { add(tag, text.data(), text.size()); }
    void add_u64(const char* tag, uint64_t value);  // serialized as 8 little-endian bytes
    Key finish() const;  // the request part (nvrtc = kAnyNvrtc); may be called more than once

private:
    void update(const void* data, size_t size);
    void update_u64(uint64_t value);

    // An XXH3_state_t, kept opaque so that only cache_key.cpp includes xxhash.h (checked there
    // by static_assert on size and alignment).
    alignas(64) unsigned char state_[640];
};

}  // namespace cache
}  // namespace cuabi
