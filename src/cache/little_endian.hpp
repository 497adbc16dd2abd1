// Little-endian integers in the cache's file formats (entries and bundles), byte by byte so
// that the layout does not depend on the host or on alignment.
#pragma once

#include <cstdint>

namespace cuabi {
namespace cache {

inline void put_u32(uint8_t* at, uint32_t value) {
    for (int i = 0; i < 4; ++i) at[i] = static_cast<uint8_t>(value >> (8 * i));
}
inline void put_u64(uint8_t* at, uint64_t value) {
    for (int i = 0; i < 8; ++i) at[i] = static_cast<uint8_t>(value >> (8 * i));
}
inline uint32_t get_u32(const uint8_t* at) {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value |= uint32_t(at[i]) << (8 * i);
    return value;
}
inline uint64_t get_u64(const uint8_t* at) {
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= uint64_t(at[i]) << (8 * i);
    return value;
}

}  // namespace cache
}  // namespace cuabi
