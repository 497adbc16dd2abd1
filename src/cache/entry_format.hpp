// The on-disk entry format (docs/cache.md has the byte layout). Pure functions over bytes, so
// that every corruption case is testable without a file system.
//
//   header (104 bytes, little-endian):
//     0  u8[8]  magic "CUABIKC\n"
//     8  u32    format version (kFormatVersion)
//    12  u32    flags (kEntryFlagUntrusted or 0; an entry with unknown flags is rejected)
//    16  u32    image kind (CUABI_IMAGE_*: 1, 2 or 3)
//    20  u32    lowered-name count
//    24  u64    image size (> 0)
//    32  u64    name-map size
//    40  u64    log size
//    48  u64    target size (1..31)
//    56  u64    key high      (the entry must be the one its file name claims)
//    64  u64    key low
//    72  u64    key nvrtc     (the identity of the NVRTC that compiled it)
//    80  u32    NVRTC version that compiled it (1000 * major + 10 * minor), for choosing among
//               entries of several NVRTCs when none can be loaded
//    84  u32    reserved (0)
//    88  u64    total entry size (header + payload), catches truncation before hashing
//    96  u64    checksum: XXH3-64 over header bytes [0, 96) and the whole payload
//   payload: image | name map | log | target
//   name map: per pair, u32 expression length, expression, u32 lowered length, lowered name
//
// A checksum proves only that the bytes are what some writer wrote, so a decoded entry is also
// checked for what a writer could never have produced: an empty image, an unknown kind, an image
// whose first bytes are not of its kind, a name count its map cannot hold, a malformed target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"

namespace cuabi {
namespace cache {

constexpr size_t kEntryHeaderSize = 104;
constexpr char kEntryMagic[8] = {'C', 'U', 'A', 'B', 'I', 'K', 'C', '\n'};
// The entry came from a read-only layer, a bundle or a remote (CachedImage::untrusted).
constexpr uint32_t kEntryFlagUntrusted = 0x1;

std::vector<uint8_t> encode_entry(const Key& key, const CachedImage& image);

// XXH3-64 of data[0, field) and data[resume, end): a checksum over a header that holds it, the
// checksum field [field, resume) left out (entries here, bundle indexes in bundle_format.hpp).
uint64_t checksum_around(const uint8_t* data, size_t field, size_t resume, uint64_t end);

// True when `data` is a complete, intact entry for `key` (key.nvrtc == kAnyNvrtc accepts an
// entry of any NVRTC); fills *out. Otherwise false and *why says what is wrong ("truncated: 100
// of 4176 bytes", "checksum mismatch", ...).
bool decode_entry(const Key& key, const uint8_t* data, size_t size, CachedImage* out, std::string* why);

// What the first kEntryHeaderSize bytes say, before anything else is read: the total size, the
// NVRTC identity and version. False when `data` does not start with a plausible header.
struct EntryHeader {
    uint64_t total = 0;
    uint64_t nvrtc = 0;
    uint32_t nvrtc_version = 0;
};
bool read_entry_header(const uint8_t* data, size_t size, EntryHeader* out);

}  // namespace cache
}  // namespace cuabi
