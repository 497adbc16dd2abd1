// Which NVRTC this process uses, decided without loading it.
//
// The choice: $CUABI_NVRTC_PATH when set (that file only); otherwise libnvrtc.so.<major> for
// each major cuabi supports (13, 12), looked for where the loader would find it (LD_LIBRARY_PATH,
// /etc/ld.so.cache, the default directories), then in the usual toolkit locations and pip's
// nvidia-* wheels. When more than one major is installed, paired_nvrtc_major() chooses (a CUDA 12
// driver cannot load what NVRTC 13 produces); the driver's version is then that of cuabi's loaded
// driver, or asked of libcuda without initializing it. The file found is the file loaded: NVRTC
// is dlopened by this full path.
//
// The file's identity -- its GNU build-id, read from the file's note (or, for a file without
// one, its path, size and modification time) -- goes into every cache key, so a fresh process
// keys and serves a cached kernel without loading NVRTC, and an NVRTC upgrade changes every key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cuabi {

constexpr int kNvrtcMajors[] = {13, 12};  // newest first

struct NvrtcLocation {
    bool found = false;
    std::string path;          // the file to load; for CUABI_NVRTC_PATH as given
    int major = 0;             // from the name libnvrtc.so.<major>; 0 when the name has none
    std::string build_id;      // hex GNU build-id of the file; "" when it has none
    uint64_t identity = 0;     // for cache keys; never 0 when found
    std::string source;        // how it was found: "CUABI_NVRTC_PATH", "the loader's search path", ...
    std::string searched;      // where cuabi looked, for messages
    std::vector<std::string> others;  // other NVRTC majors found and not chosen ("libnvrtc.so.12 at ...")
    int driver_version = 0;    // the driver it was paired with (13000); 0 when not needed or none
};

// Decided once per process, on first use; costs a few stat() calls and one ELF note read.
// Thread-safe.
const NvrtcLocation& nvrtc_location();

// The identity of the NVRTC file at `path` with build-id `build_id` (see the file comment).
uint64_t nvrtc_file_identity(const std::string& path, const std::string& build_id);

// Of the NVRTC majors found, the one to use with a driver of `driver_version` (13000; 0 for no
// driver): the newest the driver supports, else the oldest (the closest), the newest without a
// driver; 0 when none was found.
int paired_nvrtc_major(const std::vector<int>& majors, int driver_version);

// One line for `cuabi info`: which NVRTC is paired with which driver and why.
std::string nvrtc_pairing_text(const NvrtcLocation& location, int driver_version);

}  // namespace cuabi
