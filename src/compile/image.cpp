#include "compile/image.hpp"

#include <cstdio>
#include <string>

#include "image/check.hpp"

namespace cuabi {
namespace {

const char* const kFixImage =
    "pass the bytes of a .ptx file (text), a .cubin (nvcc -cubin) or a .fatbin (nvcc -fatbin), or compile "
    "source with cuabi_module_compile()";

// A damaged file is not repaired by compiling for another device.
const char* const kFixDamaged =
    "pass all of the file's bytes and only those; if the file itself is damaged (cut short, overwritten or "
    "joined to another), produce it again (nvcc -cubin / -fatbin / -ptx, or cuabi_module_get_image() of the "
    "module it came from)";

std::string leading_bytes(const unsigned char* bytes, size_t size) {
    std::string text;
    for (size_t i = 0; i < size && i < 8; ++i) text += format(i == 0 ? "%02x" : " %02x", bytes[i]);
    return text;
}

uint32_t public_kind(image::Kind kind) {
    switch (kind) {
        case image::Kind::Ptx: return CUABI_IMAGE_PTX;
        case image::Kind::Cubin: return CUABI_IMAGE_CUBIN;
        case image::Kind::Fatbin: return CUABI_IMAGE_FATBIN;
        case image::Kind::Unknown: break;
    }
    return 0;
}

const char* kind_name(uint32_t kind) {
    switch (kind) {
        case CUABI_IMAGE_PTX: return "PTX";
        case CUABI_IMAGE_CUBIN: return "CUBIN";
        case CUABI_IMAGE_FATBIN: return "fatbin";
        case CUABI_IMAGE_LTOIR: return "LTO-IR";
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
    const image::Verdict verdict = image::check(data, size);
    if (verdict.kind == image::Kind::Unknown)
        return fail(CUABI_ERROR_INVALID_IMAGE, kFixImage,
                    "the %zu-byte image (starting %s) is neither PTX (text with .version and .target), a CUBIN (ELF, "
                    "7f 45 4c 46) nor a fatbin (50 ed 55 ba)",
                    size, size == 0 ? "empty" : leading_bytes(bytes, size).c_str());
    if (verdict.foreign)
        return fail(CUABI_ERROR_INVALID_IMAGE, kFixImage, "the %zu-byte image is not a CUDA %s: %s", size,
                    image::kind_name(verdict.kind), verdict.defect);
    if (!verdict.sound())
        return fail(CUABI_ERROR_INVALID_IMAGE, kFixDamaged, "the %zu-byte %s is damaged: %s", size,
                    image::kind_name(verdict.kind), verdict.defect);
    ImageFacts facts;
    facts.kind = public_kind(verdict.kind);
    facts.arch = verdict.arch;
    if (verdict.kind == image::Kind::Cubin) std::snprintf(facts.target, sizeof facts.target, "sm_%d", facts.arch);
    if (verdict.kind == image::Kind::Ptx && facts.arch != 0)
        std::snprintf(facts.target, sizeof facts.target, "compute_%d", facts.arch);
    *out = facts;
    return CUABI_SUCCESS;
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
