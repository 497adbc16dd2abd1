// Linking device code with nvJitLink, through the kernel cache: check every input (the caller's
// bytes are untrusted), key the link, look it up (memory, disk, read-only layers), and run
// nvJitLink -- in a link worker by default (link_worker.hpp) -- only on a miss.
//
// The key covers each input's kind, name and bytes in order, the canonical nvJitLink options
// (target, LTO, PTX output, optimization level, register limit, extra options in order) and the
// identity of the nvJitLink file that would link (nvjitlink_api.hpp); without an nvJitLink the
// entry any nvJitLink wrote for the same inputs and options is served (cache::kAnyNvrtc), so a
// cached link needs neither NVRTC nor nvJitLink. Every call that gets past the option checks
// replaces this thread's compile log (compile_log.hpp) with nvJitLink's log or the stored one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cache/kernel_cache.hpp"
#include "compile/target.hpp"
#include "core/error.hpp"
#include "device/context.hpp"

namespace cuabi {
struct Counters;

// The caller's options (cuabi_link_options, translated by src/api/); views valid for the call.
struct LinkOptions {
    uint32_t flags = 0;  // CUABI_LINK_*
    const char* target = nullptr;
    int32_t optimization_level = -1;
    uint32_t max_registers = 0;
    const char* const* extra_options = nullptr;
    size_t extra_option_count = 0;
    uint32_t timeout_ms = 0;
};

// One input as src/api/ found it: a module's image (pinned by the caller for the call), or the
// caller's bytes, or a file. Exactly one of image, data and path is set.
struct LinkInput {
    int32_t kind = 0;  // CUABI_LINK_INPUT_*; 0 for a module's image
    std::shared_ptr<const cache::CachedImage> image;
    const void* data = nullptr;
    size_t size = 0;
    const char* path = nullptr;
    const char* name = nullptr;
};

struct LinkOutcome {
    std::shared_ptr<const cache::CachedImage> image;
    cache::Key key;
    cache::Layer layer = cache::Layer::None;  // None: nvJitLink ran for this call
    Target target;
    bool trusted = true;  // every input was one of cuabi's own modules
};

// Links `inputs` for options.target or, without one, `device`'s architecture (NULL device:
// offline, target required). Statuses as cuabi_module_link() documents them.
Status link(const std::vector<LinkInput>& inputs, const LinkOptions& options, const DeviceInfo* device,
            Counters* counters, LinkOutcome* out);

}  // namespace cuabi
