#include "cache/entry_format.hpp"

#include <cstring>

#include "cache/little_endian.hpp"
#include "core/error.hpp"

#define XXH_INLINE_ALL
#include "xxhash.h"

namespace cuabi {
namespace cache {
namespace {

constexpr size_t kChecksumOffset = 96;
constexpr uint64_t kMaxTargetSize = 31;
constexpr uint32_t kElfMagic = 0x464c457fu;     // "\x7fELF"
constexpr uint32_t kFatbinMagic = 0xBA55ED50u;  // nvcc -fatbin
constexpr uint32_t kLtoIrMagic = 0x7F4E43EDu;   // NVRTC -dlto (image/check.hpp, kLtoIrMagic)

uint64_t checksum(const uint8_t* entry, uint64_t total) {
    return checksum_around(entry, kChecksumOffset, kEntryHeaderSize, total);
}

// Header fields, as decoded before anything is trusted.
struct Header {
    uint32_t version, flags, image_kind, name_count;
    uint64_t image_size, names_size, log_size, target_size, key_high, key_low, key_nvrtc;
    uint32_t nvrtc_version, reserved;
    uint64_t total, checksum;
};

Header read_header(const uint8_t* data) {
    return Header{get_u32(data + 8),  get_u32(data + 12), get_u32(data + 16), get_u32(data + 20),
                  get_u64(data + 24), get_u64(data + 32), get_u64(data + 40), get_u64(data + 48),
                  get_u64(data + 56), get_u64(data + 64), get_u64(data + 72), get_u32(data + 80),
                  get_u32(data + 84), get_u64(data + 88), get_u64(data + 96)};
}

// The sum of the header's section sizes, or 0 on overflow (a corrupt size field).
uint64_t claimed_total(const Header& h) {
    uint64_t total = kEntryHeaderSize;
    for (uint64_t part : {h.image_size, h.names_size, h.log_size, h.target_size}) {
        if (part > UINT64_MAX - total) return 0;
        total += part;
    }
    return total;
}

// What no writer produces, though the checksum may be intact (a forged or foreign entry).
bool implausible(const Header& h, const uint8_t* payload, std::string* why) {
    if (h.image_kind < 1 || h.image_kind > 4) {
        *why = format("image kind %u is none of PTX (1), CUBIN (2), fatbin (3), LTO-IR (4)", h.image_kind);
    } else if (h.image_size == 0) {
        *why = "the image is empty";
    } else if (h.target_size == 0 || h.target_size > kMaxTargetSize) {
        *why = format("the target is %llu bytes long", static_cast<unsigned long long>(h.target_size));
    } else if (h.name_count > h.names_size / 8) {
        *why = format("%u lowered names cannot fit in a %llu-byte name map", h.name_count,
                      static_cast<unsigned long long>(h.names_size));
    } else if (h.reserved != 0) {
        *why = format("reserved header field is 0x%x", h.reserved);
    } else {
        uint32_t magic = h.image_size >= 4 ? get_u32(payload) : 0;
        bool kind_matches = h.image_kind == 2   ? magic == kElfMagic
                            : h.image_kind == 3 ? magic == kFatbinMagic
                            : h.image_kind == 4 ? magic == kLtoIrMagic
                                                : payload[h.image_size - 1] == 0 && payload[0] != 0;
        if (kind_matches) return false;
        *why = format("the image's first bytes are not those of a %s",
                      h.image_kind == 1   ? "NUL-terminated PTX text"
                      : h.image_kind == 2 ? "CUBIN"
                      : h.image_kind == 3 ? "fatbin"
                                          : "LTO-IR");
    }
    return true;
}

bool valid_target(const uint8_t* text, uint64_t size) {
    for (uint64_t i = 0; i < size; ++i) {
        char c = static_cast<char>(text[i]);
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

bool decode_names(const uint8_t* at, uint64_t size, uint32_t count, CachedImage* out, std::string* why) {
    uint64_t offset = 0;
    auto take_string = [&](std::string* text) {
        if (size - offset < 4) return false;
        uint32_t length = get_u32(at + offset);
        offset += 4;
        if (size - offset < length) return false;
        text->assign(reinterpret_cast<const char*>(at + offset), length);
        offset += length;
        return true;
    };
    out->lowered_names.clear();
    out->lowered_names.reserve(count);  // bounded: implausible() checked count <= size / 8
    for (uint32_t i = 0; i < count; ++i) {
        std::pair<std::string, std::string> pair;
        if (!take_string(&pair.first) || !take_string(&pair.second)) {
            *why = format("name map is malformed at pair %u of %u", i, count);
            return false;
        }
        out->lowered_names.push_back(std::move(pair));
    }
    if (offset != size) {
        *why = format("name map has %llu trailing bytes", static_cast<unsigned long long>(size - offset));
        return false;
    }
    return true;
}

}  // namespace

uint64_t checksum_around(const uint8_t* data, size_t field, size_t resume, uint64_t end) {
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, data, field);
    XXH3_64bits_update(&state, data + resume, end - resume);
    return XXH3_64bits_digest(&state);
}

std::vector<uint8_t> encode_entry(const Key& key, const CachedImage& image) {
    uint64_t names_size = 0;
    for (const auto& name : image.lowered_names) names_size += 8 + name.first.size() + name.second.size();
    uint64_t total = kEntryHeaderSize + image.image.size() + names_size + image.log.size() + image.target.size();

    std::vector<uint8_t> entry(total);
    uint8_t* h = entry.data();
    std::memcpy(h, kEntryMagic, sizeof kEntryMagic);
    put_u32(h + 8, static_cast<uint32_t>(kFormatVersion));
    put_u32(h + 12, image.untrusted ? kEntryFlagUntrusted : 0);
    put_u32(h + 16, image.image_kind);
    put_u32(h + 20, static_cast<uint32_t>(image.lowered_names.size()));
    put_u64(h + 24, image.image.size());
    put_u64(h + 32, names_size);
    put_u64(h + 40, image.log.size());
    put_u64(h + 48, image.target.size());
    put_u64(h + 56, key.high);
    put_u64(h + 64, key.low);
    put_u64(h + 72, key.nvrtc);
    put_u32(h + 80, image.nvrtc_version);
    put_u32(h + 84, 0);
    put_u64(h + 88, total);

    uint8_t* at = h + kEntryHeaderSize;
    if (!image.image.empty()) std::memcpy(at, image.image.data(), image.image.size());
    at += image.image.size();
    for (const auto& name : image.lowered_names) {
        for (const std::string* text : {&name.first, &name.second}) {
            put_u32(at, static_cast<uint32_t>(text->size()));
            std::memcpy(at + 4, text->data(), text->size());
            at += 4 + text->size();
        }
    }
    std::memcpy(at, image.log.data(), image.log.size());
    at += image.log.size();
    std::memcpy(at, image.target.data(), image.target.size());

    put_u64(h + kChecksumOffset, checksum(h, total));
    return entry;
}

bool read_entry_header(const uint8_t* data, size_t size, EntryHeader* out) {
    if (size < kEntryHeaderSize || std::memcmp(data, kEntryMagic, sizeof kEntryMagic) != 0) return false;
    Header h = read_header(data);
    uint64_t total = claimed_total(h);
    if (h.version != kFormatVersion || total == 0 || total != h.total) return false;
    out->total = total;
    out->nvrtc = h.key_nvrtc;
    out->nvrtc_version = h.nvrtc_version;
    return true;
}

bool decode_entry(const Key& key, const uint8_t* data, size_t size, CachedImage* out, std::string* why) {
    if (size < kEntryHeaderSize) {
        *why = format("truncated: %zu bytes, shorter than the %zu-byte header", size, kEntryHeaderSize);
        return false;
    }
    if (std::memcmp(data, kEntryMagic, sizeof kEntryMagic) != 0) {
        *why = "bad magic (not a cuabi cache entry)";
        return false;
    }
    Header h = read_header(data);
    if (h.version != kFormatVersion) {
        *why = format("format version %u, this cuabi reads %u", h.version, static_cast<unsigned>(kFormatVersion));
        return false;
    }
    uint64_t total = claimed_total(h);
    if (total == 0 || total != h.total) {
        *why = "header sizes are inconsistent";
        return false;
    }
    if (size != total) {
        *why = format("truncated or extended: %zu bytes, the header says %llu", size,
                      static_cast<unsigned long long>(total));
        return false;
    }
    if (checksum(data, total) != h.checksum) {
        *why = "checksum mismatch (the entry was modified or partly written)";
        return false;
    }
    // Checked after the checksum: an intact entry under the wrong name was moved or collided.
    bool nvrtc_matches = key.nvrtc == kAnyNvrtc || h.key_nvrtc == key.nvrtc;
    uint32_t unknown_flags = h.flags & ~kEntryFlagUntrusted;
    if (unknown_flags != 0 || h.key_high != key.high || h.key_low != key.low || !nvrtc_matches) {
        *why = unknown_flags != 0 ? format("unknown flags 0x%x", h.flags) : "entry belongs to another key";
        return false;
    }
    const uint8_t* at = data + kEntryHeaderSize;
    if (implausible(h, at, why)) return false;
    const uint8_t* target = at + h.image_size + h.names_size + h.log_size;
    if (!valid_target(target, h.target_size)) {
        *why = "the target is not a GPU architecture name";
        return false;
    }
    if (!decode_names(at + h.image_size, h.names_size, h.name_count, out, why)) return false;
    out->image.assign(at, at + h.image_size);
    at += h.image_size + h.names_size;
    out->log.assign(reinterpret_cast<const char*>(at), h.log_size);
    out->target.assign(reinterpret_cast<const char*>(target), h.target_size);
    out->image_kind = h.image_kind;
    out->nvrtc_version = h.nvrtc_version;
    out->untrusted = (h.flags & kEntryFlagUntrusted) != 0;
    return true;
}

}  // namespace cache
}  // namespace cuabi
