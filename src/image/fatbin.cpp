// Fatbins (nvcc -fatbin): a 16-byte header, then entries of an entry header and a payload each.
//
//   header: magic 0xBA55ED50 (u32), version 1 (u16), header size (u16), size of the entries (u64)
//   entry:  kind (u16: 1 PTX, 2 ELF, 8 LTO-IR), version (u16), header size (u32), payload size (u64), then at
//           byte 16 the compressed size (u32), at 40 the flags (u64) and at 56 the size the payload
//           decompresses to (u64); the payload follows the entry header.
#include <algorithm>

#include "image/bytes.hpp"

namespace cuabi {
namespace image {
namespace {

constexpr uint32_t kMagic = 0xBA55ED50u;
constexpr uint16_t kKindPtx = 1, kKindElf = 2;
constexpr uint64_t kEntryHeaderMin = 64;  // every field read below lies in the first 64 bytes
// Compressed payloads: LZ4 in CUDA 11 and 12, zstd since. What they decompress to is not checked
// here (the image verifier trial-loads it); a zstd frame's header is, against the entry's claims.
constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;
constexpr uint64_t kCompressedFlags = kFlagLz4 | kFlagZstd;
constexpr uint32_t kZstdMagic = 0xFD2FB528u;
// The most a compressed entry may claim to decompress to: beyond it, the claim is not believed.
constexpr uint64_t kMaxDecompressed = uint64_t{1} << 30;

bool check_payload(const uint8_t* payload, uint64_t size, uint16_t kind, unsigned number, Verdict* out) {
    Verdict inner;
    if (kind == kKindElf)
        check_cubin(payload, size, &inner);
    else if (kind == kKindPtx)
        check_ptx(payload, size, &inner);
    else
        return true;  // another kind (e.g. LTO IR): the driver skips what it does not load
    if (inner.sound()) return true;
    return defect(out, "its entry %u (%s): %s", number, kind_name(inner.kind),
                  inner.defect[0] != '\0' ? inner.defect : "not PTX text");
}

// A zstd frame header: the magic, a descriptor without its reserved bit, and -- when the frame
// says how many bytes it decompresses to -- the same number as the entry's header.
bool check_zstd_frame(const uint8_t* payload, uint64_t size, uint64_t decompressed, unsigned number, Verdict* out) {
    const Bytes frame(payload, size);
    if (!frame.holds(0, 5) || frame.at<uint32_t>(0) != kZstdMagic)
        return defect(out, "its zstd-compressed entry %u does not start with a zstd frame (28 b5 2f fd)", number);
    const uint8_t descriptor = frame.at<uint8_t>(4);
    if ((descriptor & 0x08) != 0)
        return defect(out, "its zstd-compressed entry %u has a frame descriptor (0x%02x) with the reserved bit set",
                      number, descriptor);
    const bool single_segment = (descriptor & 0x20) != 0;
    const unsigned size_field[4] = {single_segment ? 1u : 0u, 2u, 4u, 8u};
    const unsigned dictionary_field[4] = {0u, 1u, 2u, 4u};
    const unsigned content_bytes = size_field[descriptor >> 6];
    const uint64_t at = 5 + (single_segment ? 0 : 1) + dictionary_field[descriptor & 3];
    if (content_bytes == 0) return true;  // the frame does not say
    if (!frame.holds(at, content_bytes))
        return defect(out, "its zstd-compressed entry %u ends inside its frame header (%llu bytes)", number, ull(size));
    uint64_t content = 0;
    for (unsigned i = 0; i < content_bytes; ++i) content |= uint64_t{frame.at<uint8_t>(at + i)} << (8 * i);
    if (content_bytes == 2) content += 256;
    if (content != decompressed)
        return defect(out,
                      "its zstd-compressed entry %u decompresses to %llu bytes by its frame header, but %llu by the "
                      "entry's header",
                      number, ull(content), ull(decompressed));
    return true;
}

bool check_entry(const Bytes& bytes, uint64_t at, uint64_t end, unsigned number, uint64_t* out_next, Verdict* out) {
    if (end - at < kEntryHeaderMin)
        return defect(out, "its entry %u at byte %llu needs a %llu-byte header but only %llu bytes of entries remain",
                      number, ull(at), ull(kEntryHeaderMin), ull(end - at));
    const uint16_t kind = bytes.at<uint16_t>(at);
    const uint32_t header_size = bytes.at<uint32_t>(at + 4);
    const uint64_t payload_size = bytes.at<uint64_t>(at + 8);
    if (header_size < kEntryHeaderMin || header_size > end - at)
        return defect(out,
                      "its entry %u at byte %llu has a %u-byte header (at least %llu, at most the %llu bytes "
                      "left)",
                      number, ull(at), header_size, ull(kEntryHeaderMin), ull(end - at));
    if (payload_size > end - at - header_size)
        return defect(out,
                      "its entry %u at byte %llu claims %llu bytes of payload but only %llu bytes of entries "
                      "remain",
                      number, ull(at), ull(payload_size), ull(end - at - header_size));
    const uint64_t flags = bytes.at<uint64_t>(at + 40);
    const uint8_t* payload = bytes.data() + at + header_size;
    if ((flags & kCompressedFlags) == 0) {
        if (!check_payload(payload, payload_size, kind, number, out)) return false;
    } else {
        const uint32_t compressed = bytes.at<uint32_t>(at + 16);
        const uint64_t decompressed = bytes.at<uint64_t>(at + 56);
        if (compressed > payload_size || decompressed > kMaxDecompressed)
            return defect(out,
                          "its compressed entry %u at byte %llu claims %u compressed bytes in a %llu-byte "
                          "payload, decompressing to %llu bytes (at most %llu believed)",
                          number, ull(at), compressed, ull(payload_size), ull(decompressed), ull(kMaxDecompressed));
        // The frame is checked where the driver decompresses it. nvcc's LTO-IR entries (nvcc -dlto
        // -dc -fatbin) carry the zstd flag over a payload in another encoding (flag 0x10000 set):
        // only nvJitLink reads them, and the bounds above are what protects it.
        const bool loaded_kind = kind == kKindPtx || kind == kKindElf;
        if (loaded_kind && (flags & kFlagZstd) != 0 &&
            !check_zstd_frame(payload, payload_size, decompressed, number, out))
            return false;
    }
    *out_next = at + header_size + payload_size;
    return true;
}

}  // namespace

void check_fatbin(const uint8_t* data, size_t size, Verdict* out) {
    out->kind = Kind::Fatbin;
    const Bytes bytes(data, size);
    if (!bytes.holds(0, 16)) {
        defect(out, "the fatbin header needs 16 bytes but the image has %zu", size);
        return;
    }
    const uint32_t magic = bytes.at<uint32_t>(0);
    const uint16_t version = bytes.at<uint16_t>(4);
    const uint16_t header_size = bytes.at<uint16_t>(6);
    const uint64_t entries_size = bytes.at<uint64_t>(8);
    if (magic != kMagic) {
        out->foreign = true;
        defect(out, "it does not start with the fatbin magic 50 ed 55 ba");
        return;
    }
    if (version != 1) {
        defect(out, "its fatbin header has version %u; cuabi knows version 1", version);
        return;
    }
    if (header_size < 16 || !bytes.holds(header_size, entries_size)) {
        defect(out, "its %u-byte header claims %llu bytes of entries, but the image has %zu bytes in all", header_size,
               ull(entries_size), size);
        return;
    }
    const uint64_t end = header_size + entries_size;
    unsigned number = 0;
    for (uint64_t at = header_size; at < end; ++number)
        if (!check_entry(bytes, at, end, number, &at, out)) return;
    if (number == 0) {
        defect(out, "it has no entries");
        return;
    }
    check_tail(bytes, end, "fatbin", out);
}

}  // namespace image
}  // namespace cuabi
