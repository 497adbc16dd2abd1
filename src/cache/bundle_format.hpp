// The bundle format: many cache entries in one file, usable as a read-only layer without
// unpacking (docs/cache.md, "Bundles", has the byte layout). Pure functions over bytes, so that
// every damage case is testable without a file system.
//
//   header (64 bytes, little-endian):
//     0  u8[8]  magic "CUABIBN\n"
//     8  u32    bundle version (kBundleVersion)
//    12  u32    flags (0)
//    16  u64    entry count (<= kMaxBundleEntries)
//    24  u64    data offset: 64 + 40 * count (the index sits between header and data)
//    32  u64    total file size
//    40  u64    reserved (0)
//    48  u64    index checksum: XXH3-64 over header bytes [0, 48) and the whole index
//    56  u64    reserved (0)
//   index: per entry, sorted by key (high, low, nvrtc) and without duplicates,
//     u64 key high, u64 key low, u64 key nvrtc, u64 offset, u64 size
//   data: the entries, each in the entry format of entry_format.hpp (with its own checksum),
//     back to back in index order: the first at the data offset, the last ending the file.
//
// The header and index are checked once, when a bundle is opened: a bundle whose index is
// damaged is refused whole. An entry is checked when it is read: a damaged one is refused alone
// and the rest of the bundle still serves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cache/cache_key.hpp"

namespace cuabi {
namespace cache {

constexpr size_t kBundleHeaderSize = 64;
constexpr size_t kBundleIndexRecordSize = 40;
constexpr uint32_t kBundleVersion = 1;
constexpr char kBundleMagic[8] = {'C', 'U', 'A', 'B', 'I', 'B', 'N', '\n'};
// Bounds checked before anything is allocated: an index of a million entries is 40 MB.
constexpr uint64_t kMaxBundleEntries = uint64_t(1) << 20;
constexpr uint64_t kMaxBundleBytes = uint64_t(64) << 30;

struct BundleRecord {
    Key key;
    uint64_t offset = 0;
    uint64_t size = 0;
};

// The header and index of a bundle: `data` holds at least the header; on success *out holds the
// index records. False (and *why) for anything that is not a whole, consistent bundle of
// `file_size` bytes. Needs only the first index_bytes_needed() bytes.
bool decode_bundle_index(const uint8_t* data, size_t size, uint64_t file_size, std::vector<BundleRecord>* out,
                         std::string* why);
// How many leading bytes decode_bundle_index() reads: the header's claim, or the header alone
// when `header` (kBundleHeaderSize bytes) is not a bundle header (decode then says why).
uint64_t bundle_index_bytes(const uint8_t* header);

// A bundle of `entries` (encoded entries with their keys, any order; duplicates keep the first).
struct BundleEntry {
    Key key;
    std::vector<uint8_t> bytes;  // encode_entry()'s output
};
std::vector<uint8_t> encode_bundle_head(std::vector<BundleEntry>* entries);  // sorts *entries

// The record for `key` (key.nvrtc == kAnyNvrtc: the first of the request's records, which the
// caller walks on from), or nullptr.
const BundleRecord* find_bundle_record(const std::vector<BundleRecord>& index, const Key& key);

}  // namespace cache
}  // namespace cuabi
