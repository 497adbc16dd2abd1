#include "cache/cache_key.hpp"

#include <cstring>

#define XXH_INLINE_ALL
#include "xxhash.h"

namespace cuabi {
namespace cache {
namespace {

XXH3_state_t* state_of(unsigned char* storage) { return reinterpret_cast<XXH3_state_t*>(storage); }
const XXH3_state_t* state_of(const unsigned char* storage) {
    return reinterpret_cast<const XXH3_state_t*>(storage);
}

}  // namespace

static_assert(sizeof(XXH3_state_t) <= 640, "KeyBuilder::state_ is too small for XXH3_state_t");
static_assert(alignof(XXH3_state_t) <= 64, "KeyBuilder::state_ is under-aligned for XXH3_state_t");

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

KeyBuilder::KeyBuilder() {
    XXH3_128bits_reset(state_of(state_));
    add_u64("cuabi.cache.format", kFormatVersion);
}

KeyBuilder::KeyBuilder(const KeyBuilder& other) { XXH3_copyState(state_of(state_), state_of(other.state_)); }

KeyBuilder& KeyBuilder::operator=(const KeyBuilder& other) {
    if (this != &other) XXH3_copyState(state_of(state_), state_of(other.state_));
    return *this;
}

void KeyBuilder::update(const void* data, size_t size) {
    if (size != 0) XXH3_128bits_update(state_of(state_), data, size);
}

void KeyBuilder::update_u64(uint64_t value) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
    update(bytes, sizeof bytes);
}

void KeyBuilder::add(const char* tag, const void* data, size_t size) {
    size_t tag_size = std::strlen(tag);
    update_u64(tag_size);
    update(tag, tag_size);
    update_u64(size);
    update(data, size);
}

void KeyBuilder::add_u64(const char* tag, uint64_t value) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
    add(tag, bytes, sizeof bytes);
}

Key KeyBuilder::finish() const {
    XXH128_hash_t digest = XXH3_128bits_digest(state_of(state_));
    Key key;
    key.high = digest.high64;
    key.low = digest.low64;
    return key;
}

}  // namespace cache
}  // namespace cuabi
