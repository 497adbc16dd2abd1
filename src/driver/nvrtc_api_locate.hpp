// Which NVRTC this process uses, decided without loading it.
//
// The choice: $CUABI_NVRTC_PATH when set (that file only); otherwise libnvrtc.so.<major> for
// each major cuabi supports (13, 12), looked for where the loader would find it (LD_LIBRARY_PATH,
// /etc/ld.so.cache, the default directories), then in the usual toolkit locations and pip's
// nvidia-* wheels. When more than one major is installed, paired_nvrtc_major() chooses (a CUDA 12
// driver cannot load what NVRTC 13 produces). The file found is the file loaded: NVRTC is
// dlopened by this full path.
//
// Which majors are searched depends on whether cuabi has already loaded the driver:
//   - loaded: its version is known for free, so the majors are searched in the driver's order of
//     preference (nvrtc_search_order) and the search stops at the first found -- the same choice
//     as pairing over all installed majors, in a few syscalls. The majors not searched are kept
//     in `unsearched`.
//   - not loaded (offline compiles, a cache hit before any GPU work): every major is searched,
//     since only when several are installed is libcuda opened to ask its version (without
//     initializing it), which costs milliseconds.
// Each syscall costs microseconds on some hosts and this runs on a fresh process's first cache
// hit, so what only messages need (`searched`) is built only when no NVRTC was found.
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
    std::string searched;      // where cuabi looked, for messages; "" when found (unless CUABI_NVRTC_PATH)
    std::vector<std::string> others;  // other majors found and not chosen ("libnvrtc.so.12 at ..."),
                                      // of those searched
    std::vector<int> unsearched;      // majors not looked for (the driver was loaded, see above)
    int driver_version = 0;    // the driver it was paired with (13000): cuabi's loaded driver, else
                               // the installed one when several majors were found; 0 when neither
};

// Decided once per process, on first use; costs a few stat() calls and one ELF note read.
// Thread-safe.
const NvrtcLocation& nvrtc_location();

// The search behind nvrtc_location(), not remembered: `majors` newest first (kNvrtcMajors; tests
// pass others), `loaded_driver` the version of the driver cuabi has loaded, 0 for none
// (loaded_driver_version()). Reads CUABI_NVRTC_PATH and the environment of every search.
NvrtcLocation locate_nvrtc(const std::vector<int>& majors, int loaded_driver);

// `majors` (newest first) in order of preference for a driver of `driver_version` (13000; 0 for
// none): those it supports, newest first, then the rest, oldest first (the closest to what it
// supports). The first installed of them is paired_nvrtc_major()'s choice.
std::vector<int> nvrtc_search_order(const std::vector<int>& majors, int driver_version);

// The identity of the NVRTC file at `path` with build-id `build_id` (see the file comment).
uint64_t nvrtc_file_identity(const std::string& path, const std::string& build_id);

// Of the NVRTC majors found, the one to use with a driver of `driver_version` (13000; 0 for no
// driver): the newest the driver supports, else the oldest (the closest), the newest without a
// driver; 0 when none was found.
int paired_nvrtc_major(const std::vector<int>& majors, int driver_version);

}  // namespace cuabi
