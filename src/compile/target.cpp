#include "compile/target.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>

namespace cuabi {

void Target::set_name() {
    char suffix_text[2] = {suffix, '\0'};
    std::snprintf(name, sizeof name, "%s_%d%s", ptx ? "compute" : "sm", arch, suffix_text);
}

Status parse_target(const char* text, const char* field, Target* out) {
    Target target;
    const char* digits = nullptr;
    if (std::strncmp(text, "sm_", 3) == 0) {
        digits = text + 3;
    } else if (std::strncmp(text, "compute_", 8) == 0) {
        digits = text + 8;
        target.ptx = true;
    }
    const char* end = digits;
    while (end != nullptr && std::isdigit(static_cast<unsigned char>(*end)) && end - digits < 4) ++end;
    bool valid = digits != nullptr && end > digits && *digits != '0';
    if (valid && (*end == 'a' || *end == 'f')) target.suffix = *end++;
    if (!valid || *end != '\0')
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "spell the target as sm_XY (a CUBIN, e.g. \"sm_90\") or compute_XY (PTX, e.g. \"compute_90\"), "
                    "optionally with an 'a' or 'f' suffix, or leave it NULL for the context device",
                    "%s is \"%s\", which is not a GPU architecture", field, bounded(text).c_str());
    for (const char* digit = digits; digit < end && std::isdigit(static_cast<unsigned char>(*digit)); ++digit)
        target.arch = target.arch * 10 + (*digit - '0');
    target.set_name();
    *out = target;
    return CUABI_SUCCESS;
}

std::string supported_archs_text(const NvrtcApi& nvrtc) {
    std::string text;
    for (int arch : nvrtc.supported_archs) text += format(text.empty() ? "%d" : ", %d", arch);
    return text;
}

Status check_nvrtc_supports(const NvrtcApi& nvrtc, const Target& target) {
    if (nvrtc.supports(target.arch)) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT,
                "pick an architecture this NVRTC supports, or install a newer NVRTC for newer GPUs",
                "target %s is not supported by NVRTC %d.%d ('%s'), which compiles for architectures %s", target.name,
                nvrtc.major, nvrtc.minor, nvrtc.path.c_str(), supported_archs_text(nvrtc).c_str());
}

Status default_target(const NvrtcApi& nvrtc, int device_major, int device_minor, Target* out) {
    int device_arch = device_major * 10 + device_minor;
    Target target;
    if (nvrtc.supports(device_arch)) {
        target.arch = device_arch;
    } else {
        // Newest supported architecture the device can run: PTX is forward compatible.
        for (int arch : nvrtc.supported_archs)
            if (arch <= device_arch) target.arch = arch;
        if (target.arch == 0)
            return fail(CUABI_ERROR_UNSUPPORTED,
                        "use an NVRTC old enough to support this GPU (e.g. CUDA 12.x for sm_50 to sm_70 devices)",
                        "the device is sm_%d but NVRTC %d.%d compiles only for architectures %s", device_arch,
                        nvrtc.major, nvrtc.minor, supported_archs_text(nvrtc).c_str());
        target.ptx = true;
        target.fallback = true;
    }
    target.set_name();
    *out = target;
    return CUABI_SUCCESS;
}

}  // namespace cuabi
