// The on-disk entry format (docs/cache.md has the byte layout). Pure functions over bytes, so
// that every corruption case is testable without a file system.
//
//   header (88 bytes, little-endian):
//     0  u8[8]  magic "CUABIKC\n"
//     8  u32    format version (kFormatVersion)
//    12  u32    flags (0; an entry with unknown flags is rejected)
//    16  u32    image kind (CUABI_IMAGE_*)
//    20  u32    lowered-name count
//    24  u64    image size
//    32  u64    name-map size
//    40  u64    log size
//    48  u64    target size
//    56  u64    key high      (the entry must be the one its file name claims)
//    64  u64    key low
//    72  u64    total entry size (header + payload), catches truncation before hashing
//    80  u64    checksum: XXH3-64 over header bytes [0, 80) and the whole payload
//   payload: image | name map | log | target
//   name map: per pair, u32 expression length, expression, u32 lowered length, lowered name
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"

namespace cuabi {
namespace cache {

constexpr size_t kEntryHeaderSize = 88;
constexpr char kEntryMagic[8] = {'C', 'U', 'A', 'B', 'I', 'K', 'C', '\n'};

std::vector<uint8_t> encode_entry(const Key& key, const CachedImage& image);

// True when `data` is a complete, intact entry for `key`; fills *out. Otherwise false and *why
// says what is wrong ("truncated: 100 of 4176 bytes", "checksum mismatch", ...).
bool decode_entry(const Key& key, const uint8_t* data, size_t size, CachedImage* out, std::string* why);

// The total size the header claims, or 0 when `data` does not start with a plausible header.
// Lets a reader size its buffer from the first kEntryHeaderSize bytes.
uint64_t entry_size_from_header(const uint8_t* data, size_t size);

}  // namespace cache
}  // namespace cuabi
