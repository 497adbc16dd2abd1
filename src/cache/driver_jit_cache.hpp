// The CUDA driver's own JIT cache. When the driver JIT-compiles PTX it caches the
// result in CUDA_CACHE_PATH (default ~/.nv/ComputeCache, 256 MiB). cuabi gives it a home under
// the cuabi cache directory and a 1 GiB budget, but only where the operator has not chosen:
//   - CUDA_CACHE_DISABLE=1: nothing is changed (the operator turned the cache off on purpose);
//   - CUDA_CACHE_PATH / CUDA_CACHE_MAXSIZE already set: that variable is kept as it is;
//   - the cuabi disk cache is off (CUABI_CACHE_DISABLE=1) or its directory refused: nothing is
//     changed, since cuabi then writes nothing to disk and must not point the driver at a
//     directory it does not trust.
// The driver reads these variables once, in cuInit, so configure_driver_jit_cache() runs right
// before cuabi's cuInit. If the process initialized the driver earlier (e.g. through the CUDA
// runtime), changing them would be a lie: cuabi then changes nothing and says so.
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

// Once per process, before cuInit: reads the environment, creates <cuabi dir>/driver-jit
// (0700) and sets CUDA_CACHE_PATH / CUDA_CACHE_MAXSIZE where plan_driver_jit_cache says so.
// `api` (may be NULL) tells whether the driver was already initialized. Later calls do nothing.
// setenv is not safe against concurrent getenv in other threads; cuabi calls this from the
// driver's one-time loading, which the first cuabi call that needs the driver performs.
void configure_driver_jit_cache(const DriverApi* api);

// What is in effect (configuring first if nothing did yet).
const DriverJitSettings& driver_jit_settings();

}  // namespace cache
}  // namespace cuabi
