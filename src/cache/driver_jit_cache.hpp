// The CUDA driver's own JIT cache. When the driver JIT-compiles PTX it caches the
// result in CUDA_CACHE_PATH (default ~/.nv/ComputeCache, 256 MiB). cuabi gives it a home under
// the cuabi cache directory and a 1 GiB budget, but only where the operator has not chosen:
//   - CUDA_CACHE_DISABLE=1: nothing is changed (the operator turned the cache off on purpose);
//   - CUDA_CACHE_PATH / CUDA_CACHE_MAXSIZE already set: that variable is kept as it is;
//   - the cuabi disk cache is off (CUABI_CACHE_DISABLE=1) or its directory refused: nothing is
//     changed, since cuabi then writes nothing to disk and must not point the driver at a
//     directory it does not trust.
// The driver reads these variables once, in cuInit, and setenv races with every getenv of other
// threads (glibc's environment is not thread-safe), so cuabi changes the environment only when
// the program asks, through cuabi_cache_configure_driver_jit() -- documented as a call for
// start-up, before other threads and before any CUDA call; the cuabi CLI makes it. Nothing else in
// cuabi calls setenv. If the driver is already initialized in the process (by cuabi or e.g. the
// CUDA runtime), changing the variables would be a lie: cuabi then changes nothing and says so.
#pragma once

#include <cstdint>
#include <string>

#include "driver/driver_api.hpp"

namespace cuabi {
namespace cache {

constexpr uint64_t kDriverJitMaxBytes = uint64_t(1) << 30;

enum class Source : int32_t { DriverDefault = 0, Environment = 1, Cuabi = 2 };  // = CUABI_SETTING_*

struct DriverJitSettings {
    bool enabled = true;  // false when CUDA_CACHE_DISABLE=1
    Source path_source = Source::DriverDefault;
    Source max_bytes_source = Source::DriverDefault;
    std::string path;        // in effect; the driver's default spelled out when unset
    uint64_t max_bytes = 0;  // in effect; 0 = the driver's default (or an unparsable value)
    bool driver_started_first = false;
};

// What the environment says and what cuabi may use; null strings are unset variables.
struct DriverJitInputs {
    const char* disable = nullptr;      // CUDA_CACHE_DISABLE
    const char* path = nullptr;         // CUDA_CACHE_PATH
    const char* max_size = nullptr;     // CUDA_CACHE_MAXSIZE
    const char* home = nullptr;         // HOME, for spelling out the driver's default path
    std::string cuabi_jit_directory;    // <cuabi dir>/driver-jit, empty when cuabi may not write
    bool driver_started_first = false;
};

// Pure: the settings that will be in effect after cuabi applies its defaults.
DriverJitSettings plan_driver_jit_cache(const DriverJitInputs& inputs);

// cuabi_cache_configure_driver_jit(): once per process, reads the environment, creates
// <cuabi dir>/driver-jit (0700) and sets CUDA_CACHE_PATH / CUDA_CACHE_MAXSIZE where
// plan_driver_jit_cache says so. Later calls do nothing. NOT thread-safe (setenv); see above.
void configure_driver_jit_cache();

// What is in effect: what configure_driver_jit_cache() chose, or -- when it was never called --
// what the environment says now. Reads the environment; changes nothing, loads nothing.
DriverJitSettings driver_jit_settings();

}  // namespace cache
}  // namespace cuabi
