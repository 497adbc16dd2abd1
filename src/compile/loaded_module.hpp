// Images loaded into a context (docs/compile.md "Loading").
//
// cuabi loads with the per-context module API (cuModuleLoadDataEx): on the H100 with driver 580 a
// fresh process goes from a CUBIN in memory to a CUfunction in about half the time the
// context-independent library API takes (cuLibraryLoadData + cuLibraryGetKernel +
// cuKernelGetFunction), and a fresh process's first compile that hits the disk is mostly that.
// Loaded modules are shared by (context, key): every cuabi module compiled from the same cache key
// in the same CUDA context -- from any cuabi context of that device, which all share its primary
// context -- uses one CUmodule, so a second compile of a cached kernel loads nothing. The last
// module using it unloads it.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"
#include "core/error.hpp"
#include "device/context.hpp"

namespace cuabi {

class LoadedModule {
public:
    LoadedModule(std::shared_ptr<Context> context, cache::Key key, CUmodule module)
        : context_(std::move(context)), key_(key), module_(module) {}
    // Unloads in its own context, leaving the calling thread's current context as it was.
    ~LoadedModule();
    LoadedModule(const LoadedModule&) = delete;
    LoadedModule& operator=(const LoadedModule&) = delete;

    CUmodule get() const { return module_; }

private:
    std::shared_ptr<Context> context_;  // retains the primary context the module lives in
    cache::Key key_;
    CUmodule module_;
};

// The module for `key` live in `context`'s CUDA context, or a new one loaded there from `image`
// (PTX must be NUL-terminated). The calling thread's current context is left as it was. Finding
// a live one allocates nothing. Fails with CUABI_ERROR_INVALID_IMAGE when the driver refuses the
// image (the message carries the JIT error log for PTX), otherwise as fail_cu().
Status acquire_loaded_module(const std::shared_ptr<Context>& context, const cache::Key& key,
                             const cache::CachedImage& image, std::shared_ptr<LoadedModule>* out);

// Maps a driver failure while loading or resolving an image: the "this image is unusable here"
// results become CUABI_ERROR_INVALID_IMAGE, the rest go through fail_cu().
Status fail_image(CUresult result, const char* call, const std::string& context);

}  // namespace cuabi
