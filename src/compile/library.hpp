// Loaded images (docs/compile.md "Loading").
//
// cuabi loads with the context-independent library API (cuLibraryLoadData, CUDA 12.0+): an image
// is loaded once per process and the driver makes it available in every context, loading it into
// a context when a kernel of it is first asked for there. Libraries are shared by key: every module
// compiled from the same cache key -- in this context or any other -- shares one CUlibrary, so a
// second compile of a cached kernel costs no load at all. The last module using a library unloads it.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"
#include "core/error.hpp"
#include "driver/driver_api.hpp"

namespace cuabi {

class Library {
public:
    Library(const DriverApi& api, cache::Key key, CUlibrary library) : api_(api), key_(key), library_(library) {}
    ~Library();
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;

    CUlibrary get() const { return library_; }

private:
    const DriverApi& api_;
    cache::Key key_;
    CUlibrary library_;
};

// The live library for `key`, or a new one loaded from `image` (PTX must be NUL-terminated).
// Finding a live one allocates nothing. Fails with CUABI_ERROR_INVALID_IMAGE when the driver
// refuses the image (the message carries the JIT error log for PTX), otherwise as fail_cu().
Status acquire_library(const DriverApi& api, const cache::Key& key, const cache::CachedImage& image,
                       std::shared_ptr<Library>* out);

// Maps a driver failure while loading or resolving an image: the "this image is unusable here"
// results become CUABI_ERROR_INVALID_IMAGE, the rest go through fail_cu().
Status fail_image(CUresult result, const char* call, const std::string& context);

}  // namespace cuabi
