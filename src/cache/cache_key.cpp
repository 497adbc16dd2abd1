#include "cache/cache_key.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#define XXH_INLINE_ALL
#include "xxhash.h"

namespace cuabi {
namespace cache {

// GCC and Clang on x86-64 build cache_key_avx2.cpp for AVX2 (the same condition is there).
#if defined(__x86_64__) && defined(__GNUC__)
#define CUABI_HASH_AVX2 1
void hash128_avx2(const void* data, size_t size, uint64_t* high, uint64_t* low);  // cache_key_avx2.cpp
#endif

namespace {

Digest hash128_baseline(const void* data, size_t size) {
    XXH128_hash_t digest = XXH3_128bits(data, size);
    return Digest{digest.high64, digest.low64};
}

using HashFunction = Digest (*)(const void*, size_t);

#ifdef CUABI_HASH_AVX2
Digest hash128_wide(const void* data, size_t size) {
    Digest digest;
    hash128_avx2(data, size, &digest.high, &digest.low);
    return digest;
}
#endif

HashFunction choose_hash() {
#ifdef CUABI_HASH_AVX2
    if (__builtin_cpu_supports("avx2")) return hash128_wide;
#endif
    return hash128_baseline;
}

// Little-endian, as one store: the key is the same on every host.
void put_u64(unsigned char* at, uint64_t value) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = __builtin_bswap64(value);
#endif
    std::memcpy(at, &value, sizeof value);
}

}  // namespace

Digest hash128(const void* data, size_t size) {
    static const HashFunction hash = choose_hash();
    return hash(data, size);
}

std::string Key::hex() const {
    static const char digits[] = "0123456789abcdef";
    std::string out(32, '0');
    for (int i = 0; i < 16; ++i) {
        out[15 - i] = digits[(high >> (4 * i)) & 0xf];
        out[31 - i] = digits[(low >> (4 * i)) & 0xf];
    }
    return out;
}

std::string Key::nvrtc_hex() const {
    static const char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 0; i < 16; ++i) out[15 - i] = digits[(nvrtc >> (4 * i)) & 0xf];
    return out;
}

KeyBuilder::KeyBuilder() { add_u64("cuabi.cache.format", kFormatVersion); }

KeyBuilder::~KeyBuilder() {
    if (data_ != inline_) std::free(data_);
}

KeyBuilder::KeyBuilder(const KeyBuilder& other) { *this = other; }

KeyBuilder& KeyBuilder::operator=(const KeyBuilder& other) {
    if (this == &other) return *this;
    size_ = 0;
    std::memcpy(reserve(other.size_), other.data_, other.size_);
    return *this;
}

void KeyBuilder::grow(size_t size) {
    size_t capacity = capacity_;
    while (size > capacity - size_) capacity *= 2;
    void* grown = data_ == inline_ ? std::malloc(capacity) : std::realloc(data_, capacity);
    if (grown == nullptr) throw std::bad_alloc();
    if (data_ == inline_) std::memcpy(grown, inline_, size_);
    data_ = static_cast<unsigned char*>(grown);
    capacity_ = capacity;
}

void KeyBuilder::add_field(const char* tag, size_t tag_size, const void* data, size_t size) {
    bool inline_value = size <= kInlineValueBytes;
    unsigned char* at = reserve(16 + tag_size + (inline_value ? size : 16));
    put_u64(at, tag_size);
    std::memcpy(at + 8, tag, tag_size);
    put_u64(at + 8 + tag_size, size);
    at += 16 + tag_size;
    if (inline_value) {
        if (size != 0) std::memcpy(at, data, size);
        return;
    }
    Digest digest = hash128(data, size);
    put_u64(at, digest.high);
    put_u64(at + 8, digest.low);
}

void KeyBuilder::add_joined_field(const char* tag, size_t tag_size, std::initializer_list<std::string_view> parts) {
    size_t total = 0;
    for (std::string_view part : parts) total += part.size();
    if (total > kInlineValueBytes) {
        std::string joined;
        for (std::string_view part : parts) joined.append(part.data(), part.size());
        add_field(tag, tag_size, joined.data(), joined.size());
        return;
    }
    unsigned char* at = reserve(16 + tag_size + total);
    put_u64(at, tag_size);
    std::memcpy(at + 8, tag, tag_size);
    put_u64(at + 8 + tag_size, total);
    at += 16 + tag_size;
    for (std::string_view part : parts) {
        if (!part.empty()) std::memcpy(at, part.data(), part.size());
        at += part.size();
    }
}

void KeyBuilder::add_u64_field(const char* tag, size_t tag_size, uint64_t value) {
    unsigned char* at = reserve(24 + tag_size);
    put_u64(at, tag_size);
    std::memcpy(at + 8, tag, tag_size);
    put_u64(at + 8 + tag_size, 8);
    put_u64(at + 16 + tag_size, value);
}

Key KeyBuilder::finish() const {
    Digest digest = hash128(data_, size_);
    Key key;
    key.high = digest.high;
    key.low = digest.low;
    return key;
}

}  // namespace cache
}  // namespace cuabi
