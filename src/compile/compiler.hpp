// Source to image, through the kernel cache: resolve the target, key the request, look it up
// (memory, then disk), and run NVRTC only on a miss. A memory hit costs the key's hash and one
// lookup: no NVRTC, no disk, no allocation.
#pragma once

#include <memory>

#include "cache/kernel_cache.hpp"
#include "compile/compile_options.hpp"
#include "device/context.hpp"

namespace cuabi {

// The target for `options`: options.target when set (checked against what NVRTC supports), else
// the default for `device` (see target.hpp). CUABI_COMPILE_PTX turns it into compute_XY.
// Without a device an explicit target is required (INVALID_ARGUMENT otherwise).
Status resolve_target(const NvrtcApi& nvrtc, const cuabi_compile_options& options, const cuabi_device_info* device,
                      Target* out);

struct CompileOutcome {
    std::shared_ptr<const cache::CachedImage> image;
    cache::Key key;
    cache::Layer layer = cache::Layer::None;  // None: NVRTC ran for this call
};

// Compiles `request` (target resolved, options read) unless the cache has it. `counters` (may be
// NULL) counts compiles, compile time and cache hits and misses. Every call replaces this
// thread's last compile log (compile_log.hpp) with the log of what it returns or of its failure.
Status compile(const NvrtcApi& nvrtc, const CompileRequest& request, Counters* counters, CompileOutcome* out);

}  // namespace cuabi
