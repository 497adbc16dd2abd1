// nvJitLink, found and loaded at run time like NVRTC (nvrtc_api.hpp): never linked.
//
// Which file: $CUABI_NVJITLINK_PATH when set (that file only); otherwise libnvJitLink.so.<major>,
// the major of the NVRTC cuabi uses first (LTO-IR from NVRTC 13 needs nvJitLink 13), then the
// other supported majors newest first, looked for where the loader would find it, then in the
// toolkit directories and pip's nvidia-* wheels. Located without loading it: the file's identity
// (its GNU build-id) goes into link cache keys, so a cached link is served without nvJitLink.
// Loaded (dlopen by full path, entry points by dlsym) only to link -- in the link worker by
// default (compile/link_worker.hpp), which loads the path chosen here.
#pragma once

#include <nvJitLink.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"

#define CUABI_NVJITLINK_ENTRY_POINTS(X) \
    X(nvJitLinkCreate)                  \
    X(nvJitLinkDestroy)                 \
    X(nvJitLinkAddData)                 \
    X(nvJitLinkComplete)                \
    X(nvJitLinkGetLinkedCubinSize)      \
    X(nvJitLinkGetLinkedCubin)          \
    X(nvJitLinkGetLinkedPtxSize)        \
    X(nvJitLinkGetLinkedPtx)            \
    X(nvJitLinkGetErrorLogSize)         \
    X(nvJitLinkGetErrorLog)             \
    X(nvJitLinkGetInfoLogSize)          \
    X(nvJitLinkGetInfoLog)              \
    X(nvJitLinkVersion)

namespace cuabi {

constexpr int kNvJitLinkMajors[] = {13, 12};  // newest first

struct NvJitLinkLocation {
    bool found = false;
    std::string path;      // the file to load; for CUABI_NVJITLINK_PATH as given
    uint64_t identity = 0; // for cache keys; never 0 when found
    std::string searched;  // where cuabi looked, for messages
};

// Decided once per process, on first use. Thread-safe.
const NvJitLinkLocation& nvjitlink_location();

// The search behind nvjitlink_location(), not remembered: the majors in order of preference.
NvJitLinkLocation locate_nvjitlink(int preferred_major);

struct NvJitLinkApi {
    int major = 0;
    int minor = 0;
    std::string path;
#define CUABI_NVJITLINK_MEMBER(name) decltype(&::name) name = nullptr;
    CUABI_NVJITLINK_ENTRY_POINTS(CUABI_NVJITLINK_MEMBER)
#undef CUABI_NVJITLINK_MEMBER
    uint32_t version() const { return static_cast<uint32_t>(major * 1000 + minor * 10); }  // 13000
};

// The nvJitLink at nvjitlink_location(), loaded into this process, or nullptr with the (cached)
// failure recorded: CUABI_ERROR_NVJITLINK_NOT_FOUND, saying where cuabi looked or which entry
// point the file lacks. Thread-safe; the first call does the work.
const NvJitLinkApi* nvjitlink(Status* out_status);

// Whether nvjitlink() loaded it in this process; loads nothing. For tests and `cuabi info`.
bool nvjitlink_loaded();

}  // namespace cuabi
