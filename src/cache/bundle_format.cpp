#include "cache/bundle_format.hpp"

#include <algorithm>
#include <cstring>

#include "cache/disk_store.hpp"
#include "cache/entry_format.hpp"
#include "cache/little_endian.hpp"
#include "core/error.hpp"

namespace cuabi {
namespace cache {
namespace {

constexpr size_t kIndexChecksumOffset = 48;

// Skips the checksum and the reserved field after it (bytes 48..63): [0, 48) and the index.
uint64_t index_checksum(const uint8_t* head, uint64_t index_end) {
    return checksum_around(head, kIndexChecksumOffset, kBundleHeaderSize, index_end);
}

bool key_less(const Key& a, const Key& b) {
    if (a.high != b.high) return a.high < b.high;
    if (a.low != b.low) return a.low < b.low;
    return a.nvrtc < b.nvrtc;
}

bool same_key(const Key& a, const Key& b) { return a.high == b.high && a.low == b.low && a.nvrtc == b.nvrtc; }

bool plausible_header(const uint8_t* head) {
    return std::memcmp(head, kBundleMagic, sizeof kBundleMagic) == 0 && get_u32(head + 8) == kBundleVersion &&
           get_u64(head + 16) <= kMaxBundleEntries;
}

// The records, checked one by one against their neighbours and the file.
bool decode_records(const uint8_t* at, uint64_t count, uint64_t data_offset, uint64_t file_size,
                    std::vector<BundleRecord>* out, std::string* why) {
    out->clear();
    out->reserve(count);
    uint64_t expected_offset = data_offset;
    for (uint64_t i = 0; i < count; ++i, at += kBundleIndexRecordSize) {
        BundleRecord record;
        record.key.high = get_u64(at);
        record.key.low = get_u64(at + 8);
        record.key.nvrtc = get_u64(at + 16);
        record.offset = get_u64(at + 24);
        record.size = get_u64(at + 32);
        if (record.offset != expected_offset || record.size < kEntryHeaderSize || record.size > kMaxEntryBytes ||
            record.size > file_size - record.offset) {
            *why = format("index record %llu of %llu claims %llu bytes at offset %llu (expected offset %llu, "
                          "%zu to %llu bytes, within the %llu-byte file)",
                          static_cast<unsigned long long>(i), static_cast<unsigned long long>(count),
                          static_cast<unsigned long long>(record.size), static_cast<unsigned long long>(record.offset),
                          static_cast<unsigned long long>(expected_offset), kEntryHeaderSize,
                          static_cast<unsigned long long>(kMaxEntryBytes), static_cast<unsigned long long>(file_size));
            return false;
        }
        if (!out->empty() && !key_less(out->back().key, record.key)) {
            *why = format("index record %llu is out of key order or repeats a key",
                          static_cast<unsigned long long>(i));
            return false;
        }
        expected_offset = record.offset + record.size;
        out->push_back(record);
    }
    if (expected_offset != file_size) {
        *why = format("the entries end at byte %llu of a %llu-byte file",
                      static_cast<unsigned long long>(expected_offset), static_cast<unsigned long long>(file_size));
        return false;
    }
    return true;
}

}  // namespace

uint64_t bundle_index_bytes(const uint8_t* header) {
    if (!plausible_header(header)) return kBundleHeaderSize;
    return kBundleHeaderSize + kBundleIndexRecordSize * get_u64(header + 16);
}

bool decode_bundle_index(const uint8_t* data, size_t size, uint64_t file_size, std::vector<BundleRecord>* out,
                         std::string* why) {
    if (size < kBundleHeaderSize || file_size < kBundleHeaderSize) {
        *why = format("truncated: %llu bytes, shorter than the %zu-byte bundle header",
                      static_cast<unsigned long long>(std::min<uint64_t>(size, file_size)), kBundleHeaderSize);
        return false;
    }
    if (std::memcmp(data, kBundleMagic, sizeof kBundleMagic) != 0) {
        *why = "bad magic (not a cuabi cache bundle)";
        return false;
    }
    uint32_t version = get_u32(data + 8);
    uint64_t count = get_u64(data + 16), data_offset = get_u64(data + 24), total = get_u64(data + 32);
    if (version != kBundleVersion) {
        *why = format("bundle version %u, this cuabi reads %u", version, kBundleVersion);
        return false;
    }
    if (get_u32(data + 12) != 0 || get_u64(data + 40) != 0 || get_u64(data + 56) != 0) {
        *why = "unknown flags or reserved fields set in the bundle header";
        return false;
    }
    if (count > kMaxBundleEntries) {
        *why = format("the header claims %llu entries, more than the %llu a bundle may hold",
                      static_cast<unsigned long long>(count), static_cast<unsigned long long>(kMaxBundleEntries));
        return false;
    }
    uint64_t index_end = kBundleHeaderSize + kBundleIndexRecordSize * count;
    if (data_offset != index_end || total != file_size || total > kMaxBundleBytes || index_end > file_size) {
        *why = format("the header claims a %llu-byte file with data at %llu; the file has %llu bytes and %llu "
                      "entries need data at %llu (at most %llu bytes in all)",
                      static_cast<unsigned long long>(total), static_cast<unsigned long long>(data_offset),
                      static_cast<unsigned long long>(file_size), static_cast<unsigned long long>(count),
                      static_cast<unsigned long long>(index_end), static_cast<unsigned long long>(kMaxBundleBytes));
        return false;
    }
    if (size < index_end) {
        *why = format("truncated index: %zu of %llu bytes", size, static_cast<unsigned long long>(index_end));
        return false;
    }
    if (index_checksum(data, index_end) != get_u64(data + kIndexChecksumOffset)) {
        *why = "index checksum mismatch (the bundle's header or index was modified)";
        return false;
    }
    return decode_records(data + kBundleHeaderSize, count, data_offset, file_size, out, why);
}

std::vector<uint8_t> encode_bundle_head(std::vector<BundleEntry>* entries) {
    std::stable_sort(entries->begin(), entries->end(),
                     [](const BundleEntry& a, const BundleEntry& b) { return key_less(a.key, b.key); });
    entries->erase(std::unique(entries->begin(), entries->end(),
                               [](const BundleEntry& a, const BundleEntry& b) { return same_key(a.key, b.key); }),
                   entries->end());
    uint64_t count = entries->size();
    uint64_t offset = kBundleHeaderSize + kBundleIndexRecordSize * count;
    std::vector<uint8_t> head(offset, 0);
    uint8_t* h = head.data();
    std::memcpy(h, kBundleMagic, sizeof kBundleMagic);
    put_u32(h + 8, kBundleVersion);
    put_u64(h + 16, count);
    put_u64(h + 24, offset);
    uint8_t* at = h + kBundleHeaderSize;
    for (const BundleEntry& entry : *entries) {
        put_u64(at, entry.key.high);
        put_u64(at + 8, entry.key.low);
        put_u64(at + 16, entry.key.nvrtc);
        put_u64(at + 24, offset);
        put_u64(at + 32, entry.bytes.size());
        offset += entry.bytes.size();
        at += kBundleIndexRecordSize;
    }
    put_u64(h + 32, offset);
    put_u64(h + kIndexChecksumOffset, index_checksum(h, head.size()));
    return head;
}

const BundleRecord* find_bundle_record(const std::vector<BundleRecord>& index, const Key& key) {
    auto it = std::lower_bound(index.begin(), index.end(), key,
                               [](const BundleRecord& record, const Key& wanted) { return key_less(record.key, wanted); });
    if (it == index.end() || it->key.high != key.high || it->key.low != key.low) return nullptr;
    if (key.nvrtc != kAnyNvrtc && it->key.nvrtc != key.nvrtc) return nullptr;
    return &*it;
}

}  // namespace cache
}  // namespace cuabi
