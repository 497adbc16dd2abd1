// What the cache keeps per key: the compiled image and everything needed to use it without
// running NVRTC again (the name-expression map, the target, the compile log).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cuabi {
namespace cache {

struct CachedImage {
    std::vector<uint8_t> image;
    uint32_t image_kind = 0;  // CUABI_IMAGE_PTX 1, CUABI_IMAGE_CUBIN 2, CUABI_IMAGE_FATBIN 3
    std::string target;       // "sm_90" or "compute_90"
    std::vector<std::pair<std::string, std::string>> lowered_names;  // expression -> mangled
    std::string log;
    uint32_t nvrtc_version = 0;  // the NVRTC that compiled it: 1000 * major + 10 * minor (13000)
    // Came from outside this machine's own compiles (a read-only layer, a bundle, a remote): the
    // image is then treated as the caller's bytes are (verified before the driver loads it), and
    // it stays so when it is copied to the local disk (entry flag, entry_format.hpp).
    bool untrusted = false;

    // Approximate heap footprint, for the memory layer's byte bound.
    uint64_t footprint() const {
        uint64_t bytes = sizeof(CachedImage) + image.size() + target.size() + log.size();
        for (const auto& name : lowered_names) bytes += sizeof(name) + name.first.size() + name.second.size();
        return bytes;
    }
};

}  // namespace cache
}  // namespace cuabi
