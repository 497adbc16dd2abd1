// Source to image, through the kernel cache: key the request, look it up (memory, then disk), and
// run NVRTC only on a miss.
//
// A hit touches neither NVRTC nor the compile worker: the key is made from the request, the
// toolkit headers' identity and the identity of the NVRTC file that would compile it, all known
// without loading NVRTC; the target is the explicit one, or the device's own architecture (an
// entry for it exists only if that NVRTC supports it). A memory hit costs one lookup and, for a
// request this thread made recently (request_memo.hpp), one comparison instead of the key's hash:
// no disk, no allocation. Only a miss loads NVRTC -- in the worker by default -- to resolve
// the target for good (PTX for an older NVRTC) and compile. When NVRTC cannot be loaded, an entry
// any NVRTC wrote for the same request is served. Threads that miss on the same key at once share
// one compile (single_flight.hpp).
#pragma once

#include <memory>
#include <string_view>

#include "cache/kernel_cache.hpp"
#include "compile/compile_cancel.hpp"
#include "compile/compile_options.hpp"
#include "device/context.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {
struct Counters;

// The target for `options` once NVRTC's facts are known: options.target when set (checked against
// what NVRTC supports), else the default for `device` (see target.hpp). CUABI_COMPILE_PTX turns it
// into compute_XY. Without a device an explicit target is required (INVALID_ARGUMENT otherwise).
Status resolve_target(const NvrtcFacts& nvrtc, const CompileOptions& options, const DeviceInfo* device,
                      Target* out);

// How a compile may be steered from outside (a batch's).
struct CompileControl {
    CompileCancel* cancel = nullptr;  // NULL: cannot be cancelled (see compile_cancel.hpp)
    // Serve a memory hit only: on a miss compile() succeeds with out->image NULL, having run
    // nothing (a batch serves its hits in the caller's thread and compiles the rest on workers).
    bool memory_only = false;
};

struct CompileInput {
    const char* source = nullptr;     // NUL-terminated
    const CompileOptions* options = nullptr;  // read, not necessarily checked: compile() checks them
    const DeviceInfo* device = nullptr;  // NULL: offline, options.target required
    CompileControl control;
};

struct CompileOutcome {
    std::shared_ptr<const cache::CachedImage> image;
    cache::Key key;
    cache::Layer layer = cache::Layer::None;  // None: NVRTC ran for this call
    Target target;
};

// Compiles `input` unless the cache has it. Its options are checked first (check_compile_options;
// for a request found in the request memo only the part that the memo cannot stand for).
// `counters` (may be NULL) counts compiles, compile time and cache hits and misses. Every call
// with valid options replaces this thread's last compile log (compile_log.hpp) with the log of
// what it returns or of its failure. An explicit target the device cannot run is
// CUABI_ERROR_INVALID_IMAGE before anything else. CUABI_ERROR_CANCELLED when input.control.cancel is
// cancelled before the result is known; a follower whose leader was cancelled, but which was not
// itself, compiles again.
Status compile(const CompileInput& input, Counters* counters, CompileOutcome* out);

// This process's compile counters, for cuabi_cache_stats.
struct CompileStats {
    uint64_t compiles = 0;         // NVRTC runs
    uint64_t compiles_joined = 0;  // requests served by another thread's compile of the same key
    int32_t nvrtc_state = CUABI_NVRTC_STATE_NOT_LOADED;
};
CompileStats compile_stats();

}  // namespace cuabi
