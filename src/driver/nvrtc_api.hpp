// NVRTC, loaded at run time.
//
// libcuabi has no link-time dependency on libnvrtc: `nvrtc()` dlopens the file nvrtc_location()
// chose (nvrtc_api_locate.hpp) by its full path, on first use, and resolves the entry points below
// with dlsym; every function cuabi uses has had the same signature since CUDA 12.0. The outcome,
// success or the failure with its message, is computed once per process and cached. Compiles in
// the worker process (compile/compile_worker.hpp) load NVRTC there instead; a cache hit loads it
// nowhere.
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

#include "core/error.hpp"

#define CUABI_NVRTC_ENTRY_POINTS(X) \
    X(nvrtcVersion)                 \
    X(nvrtcGetErrorString)          \
    X(nvrtcGetNumSupportedArchs)    \
    X(nvrtcGetSupportedArchs)       \
    X(nvrtcCreateProgram)           \
    X(nvrtcDestroyProgram)          \
    X(nvrtcCompileProgram)          \
    X(nvrtcGetPTXSize)              \
    X(nvrtcGetPTX)                  \
    X(nvrtcGetCUBINSize)            \
    X(nvrtcGetCUBIN)                \
    X(nvrtcGetLTOIRSize)            \
    X(nvrtcGetLTOIR)                \
    X(nvrtcGetProgramLogSize)       \
    X(nvrtcGetProgramLog)           \
    X(nvrtcAddNameExpression)       \
    X(nvrtcGetLoweredName)

// Precompiled headers (NVRTC 12.8+): resolved when the library has them, NULL otherwise -- an
// older NVRTC compiles as before, without precompiled headers (compile/pch_worker.hpp).
#define CUABI_NVRTC_OPTIONAL_ENTRY_POINTS(X) \
    X(nvrtcGetPCHCreateStatus)               \
    X(nvrtcGetPCHHeapSize)                   \
    X(nvrtcSetPCHHeapSize)                   \
    X(nvrtcGetPCHHeapSizeRequired)

namespace cuabi {

// What is known about an NVRTC: enough to choose targets and key the cache, whether it was
// loaded here or in the compile worker.
struct NvrtcFacts {
    int major = 0;
    int minor = 0;
    std::vector<int> supported_archs;  // ascending, e.g. {75, 80, 86, 87, 89, 90, ...}
    std::string path;                  // the file actually loaded
    // Hex GNU build-id of the loaded file, empty when it has none. Two NVRTC builds with the same
    // major.minor (a patch release) may emit different code, so the cache key includes this.
    std::string build_id;
    uint64_t identity = 0;  // nvrtc_file_identity() of the file: the NVRTC part of cache keys

    bool supports(int arch) const;
    uint32_t version() const { return static_cast<uint32_t>(major * 1000 + minor * 10); }  // 13000
};

struct NvrtcApi : NvrtcFacts {
#define CUABI_NVRTC_MEMBER(name) decltype(&::name) name = nullptr;
    CUABI_NVRTC_ENTRY_POINTS(CUABI_NVRTC_MEMBER)
    CUABI_NVRTC_OPTIONAL_ENTRY_POINTS(CUABI_NVRTC_MEMBER)
#undef CUABI_NVRTC_MEMBER

    // Whether every precompiled-header entry point was found.
    bool has_pch() const {
        return nvrtcGetPCHCreateStatus != nullptr && nvrtcGetPCHHeapSize != nullptr &&
               nvrtcSetPCHHeapSize != nullptr && nvrtcGetPCHHeapSizeRequired != nullptr;
    }
};

enum class NvrtcLoad { NotTried, Loaded, Failed };

// Whether nvrtc() has run in this process, and how it went; loads nothing.
NvrtcLoad nvrtc_load_state();

// The loaded NVRTC, or nullptr with the (cached) failure recorded as the thread's last error:
// CUABI_ERROR_NVRTC_NOT_FOUND. `*out_status` receives the status when non-NULL. Thread-safe; the
// first call does the work.
const NvrtcApi* nvrtc(Status* out_status);

// Records a failed NVRTC call other than a compile error: CUABI_ERROR_NVRTC (or
// CUABI_ERROR_OUT_OF_HOST_MEMORY for NVRTC_ERROR_OUT_OF_MEMORY), "<call> failed with
// NVRTC_ERROR_X <context>", the fix, and the nvrtcResult for cuabi_last_nvrtc_result().
Status fail_nvrtc(const NvrtcApi& api, nvrtcResult result, const char* call, const char* fix,
                  const char* context_format, ...) __attribute__((format(printf, 5, 6)));

}  // namespace cuabi
