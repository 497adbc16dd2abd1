// Compile targets: "sm_90" (a CUBIN for one GPU architecture) or "compute_90" (PTX the driver
// JIT-compiles for any GPU at least that new), with the arch-specific "a" / family "f" suffixes.
//
// The default target is the context device's own architecture as a CUBIN, so the driver loads
// it without a PTX JIT. When the installed NVRTC is older than the device (it does not list the
// device's architecture), the default is PTX for the newest compute_XY that NVRTC supports and
// the device can run; the module's info reports that fallback.
#pragma once

#include <cstdint>

#include "core/error.hpp"
#include "driver/nvrtc_api.hpp"

namespace cuabi {

struct Target {
    int arch = 0;          // 90 for sm_90 / compute_90 / sm_90a
    char suffix = '\0';    // 'a', 'f' or none
    bool ptx = false;      // compute_XY: PTX; sm_XY: CUBIN
    bool fallback = false; // chosen because NVRTC does not know the device's architecture
    char name[24] = {};    // "sm_90a", "compute_90"

    void set_name();       // rebuilds `name` from the fields above
};

// Parses "sm_90", "sm_90a", "compute_100f" (case-sensitive, as NVRTC spells them). `field` names
// the source for the message ("cuabi_compile_options.target").
Status parse_target(const char* text, const char* field, Target* out);

// Fails with INVALID_ARGUMENT, listing what NVRTC supports, when it does not know `target.arch`.
Status check_nvrtc_supports(const NvrtcFacts& nvrtc, const Target& target);

// The default target for a device of compute capability major.minor (see the file comment).
// Fails with UNSUPPORTED when the device is older than every architecture NVRTC supports.
Status default_target(const NvrtcFacts& nvrtc, int device_major, int device_minor, Target* out);

// "75, 80, 86, ..." for messages.
std::string supported_archs_text(const NvrtcFacts& nvrtc);

}  // namespace cuabi
