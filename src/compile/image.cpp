#include "compile/image.hpp"

#include <elf.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace cuabi {
namespace {

constexpr uint16_t kElfMachineCuda = 190;   // EM_CUDA
constexpr uint32_t kFatbinMagic = 0xBA55ED50u;  // little-endian at offset 0 of nvcc -fatbin output

const char* const kFixImage =
    "pass the bytes of a .ptx file (text), a .cubin (nvcc -cubin) or a .fatbin (nvcc -fatbin), or compile "
    "source with cuabi_module_compile()";

std::string leading_bytes(const unsigned char* bytes, size_t size) {
    std::string text;
    for (size_t i = 0; i < size && i < 8; ++i) text += format(i == 0 ? "%02x" : " %02x", bytes[i]);
    return text;
}

// SM architecture of a CUDA ELF file from its header flags. The field moved in ELF ABI version 8
// (CUDA 13): bits 8..15 there, bits 0..7 before.
int cubin_arch(const Elf64_Ehdr& header) {
    if (header.e_ident[EI_ABIVERSION] >= 8) return static_cast<int>((header.e_flags >> 8) & 0xff);
    return static_cast<int>(header.e_flags & 0xff);
}

// PTX is text up to an optional NUL terminator (and only NULs after it), with .version and .target.
bool looks_like_ptx(const char* text, size_t size, size_t* out_length) {
    size_t length = 0;
    while (length < size && text[length] != '\0') {
        unsigned char c = static_cast<unsigned char>(text[length]);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
        ++length;
    }
    for (size_t i = length; i < size; ++i)
        if (text[i] != '\0') return false;
    std::string_view view(text, length);
    *out_length = length;
    return view.find(".version") != std::string_view::npos && view.find(".target") != std::string_view::npos;
}

// The arch of the first ".target sm_XY" directive, 0 if it names none.
int ptx_arch(std::string_view text) {
    size_t at = text.find(".target");
    if (at == std::string_view::npos) return 0;
    at += 7;
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    if (text.substr(at, 3) != "sm_") return 0;
    int arch = 0;
    for (at += 3; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at)
        arch = arch * 10 + (text[at] - '0');
    return arch;
}

const char* kind_name(uint32_t kind) {
    switch (kind) {
        case CUABI_IMAGE_PTX: return "PTX";
        case CUABI_IMAGE_CUBIN: return "CUBIN";
        case CUABI_IMAGE_FATBIN: return "fatbin";
    }
    return "image";
}

}  // namespace

std::string describe_image(const cache::CachedImage& image) {
    if (image.target.empty()) return kind_name(image.image_kind);
    return format("%s for %s", kind_name(image.image_kind), image.target.c_str());
}

Status inspect_image(const void* data, size_t size, ImageFacts* out) {
    const unsigned char* bytes = static_cast<const unsigned char*>(data);
    ImageFacts facts;
    if (size >= sizeof(Elf64_Ehdr) && std::memcmp(bytes, ELFMAG, SELFMAG) == 0) {
        Elf64_Ehdr header;
        std::memcpy(&header, bytes, sizeof header);
        if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_machine != kElfMachineCuda)
            return fail(CUABI_ERROR_INVALID_IMAGE, kFixImage,
                        "the %zu-byte image is an ELF file for machine %u (class %u), not a CUDA CUBIN (machine %u, "
                        "64-bit)",
                        size, header.e_machine, header.e_ident[EI_CLASS], kElfMachineCuda);
        facts.kind = CUABI_IMAGE_CUBIN;
        facts.arch = cubin_arch(header);
        std::snprintf(facts.target, sizeof facts.target, "sm_%d", facts.arch);
        *out = facts;
        return CUABI_SUCCESS;
    }
    uint32_t magic = 0;
    if (size >= 16) std::memcpy(&magic, bytes, sizeof magic);
    if (magic == kFatbinMagic) {
        facts.kind = CUABI_IMAGE_FATBIN;
        *out = facts;
        return CUABI_SUCCESS;
    }
    size_t length = 0;
    if (size > 0 && looks_like_ptx(reinterpret_cast<const char*>(bytes), size, &length)) {
        facts.kind = CUABI_IMAGE_PTX;
        facts.arch = ptx_arch(std::string_view(reinterpret_cast<const char*>(bytes), length));
        if (facts.arch != 0) std::snprintf(facts.target, sizeof facts.target, "compute_%d", facts.arch);
        *out = facts;
        return CUABI_SUCCESS;
    }
    return fail(CUABI_ERROR_INVALID_IMAGE, kFixImage,
                "the %zu-byte image (starting %s) is neither PTX (text with .version and .target), a CUBIN (ELF, "
                "7f 45 4c 46) nor a fatbin (50 ed 55 ba)",
                size, size == 0 ? "empty" : leading_bytes(bytes, size).c_str());
}

Status check_image_runs_on(const ImageFacts& image, int device_major, int device_minor, const char* device_name) {
    int device_arch = device_major * 10 + device_minor;
    if (image.kind == CUABI_IMAGE_CUBIN && (image.arch / 10 != device_major || image.arch % 10 > device_minor))
        return fail(CUABI_ERROR_INVALID_IMAGE,
                    "compile for the device's architecture (or leave cuabi_compile_options.target NULL), or load PTX",
                    "the image is a CUBIN for sm_%d, which cannot run on %s (sm_%d): a CUBIN runs only on its own "
                    "major architecture at an equal or newer minor version",
                    image.arch, device_name, device_arch);
    if (image.kind == CUABI_IMAGE_PTX && image.arch > device_arch)
        return fail(CUABI_ERROR_INVALID_IMAGE, "generate the PTX for an architecture the device has or an older one",
                    "the image is PTX for compute_%d, newer than %s (sm_%d)", image.arch, device_name, device_arch);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
