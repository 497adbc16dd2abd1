// Checks of caller images before the driver sees them: PTX text, CUBINs (CUDA ELF files) and
// fatbins. The driver trusts the offsets and sizes inside an image; a CUBIN whose section table
// points past its end, or a fatbin whose header claims a gigabyte more than it has, crashes or
// hangs the process inside it. So every header, table and extent is checked against the size the
// caller gave, in overflow-free arithmetic, before anything is loaded.
//
// Pure functions of the bytes: no allocation, no error recorded, nothing read outside
// [data, data + size). The compile layer (loading images) and the cache (reading entries back)
// turn a Verdict into their own status and message. tests/fuzz/ runs them under libFuzzer.
//
// What is checked: the ELF header (64-bit, little-endian, machine EM_CUDA), the program and
// section header tables, every section's and segment's bytes, the section-name, symbol and
// relocation tables (names within their string tables, symbols of existing sections, relocations
// of existing symbols whose whole width lies within their target sections), the attribute records
// of .nv.info sections (image/nv_info.hpp); a fatbin's header and every entry's header and payload,
// each uncompressed CUBIN or PTX inside it as above, and a zstd-compressed entry's frame header;
// PTX as text up to an optional NUL terminator. Bytes after the end that the headers describe must
// be zero (padding); anything else there means the file was extended or joined to another. Not
// checked: the machine code, and what compressed fatbin entries decompress to -- the image
// verifier (compile/image_verifier.hpp) trial-loads what these checks cannot see.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuabi {
namespace image {

enum class Kind : uint8_t { Unknown, Ptx, Cubin, Fatbin };

struct Verdict {
    Kind kind = Kind::Unknown;
    int arch = 0;         // CUBIN: sm_XY; PTX: the XY of its first .target sm_XY; 0 otherwise
    uint64_t extent = 0;  // bytes the image's own headers describe (PTX: up to its terminator)
    // Set when the bytes are of no kind at all, or of the kind's family but not for CUDA (an ELF
    // file for another machine): the caller passed the wrong file rather than a damaged one.
    bool foreign = false;
    // "" when the image is sound; else what is wrong, with the offsets and sizes involved.
    char defect[224] = {};

    bool sound() const { return kind != Kind::Unknown && !foreign && defect[0] == '\0'; }
};

// Detects the kind of `size` bytes at `data` and checks them.
Verdict check(const void* data, size_t size);

// "PTX", "CUBIN", "fatbin", "image".
const char* kind_name(Kind kind);

// The checks of one kind, for callers that know what they expect (a cache entry of kind K).
void check_cubin(const uint8_t* data, size_t size, Verdict* out);
void check_fatbin(const uint8_t* data, size_t size, Verdict* out);
void check_ptx(const uint8_t* data, size_t size, Verdict* out);

}  // namespace image
}  // namespace cuabi
