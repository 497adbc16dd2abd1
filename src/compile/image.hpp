// What an image given by a caller is, without a GPU: PTX text, a CUBIN (a CUDA ELF file) or a
// fatbin, and for which architecture. Junk is refused here, with the bytes that gave it away,
// and damaged images with what is wrong in them (image/check.hpp), rather than by the driver with
// CUDA_ERROR_INVALID_IMAGE -- or a crash inside it.
#pragma once

#include <cstddef>
#include <cstdint>

#include <string>

#include "cache/cached_image.hpp"
#include "core/error.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {

struct ImageFacts {
    uint32_t kind = 0;     // CUABI_IMAGE_*
    int arch = 0;          // CUBIN: its sm_XY; PTX: its .target; 0 for a fatbin
    char target[32] = {};  // "sm_90" for a CUBIN, "compute_90" for PTX, "" for a fatbin
};

// Fails with CUABI_ERROR_INVALID_IMAGE when the bytes are none of the three kinds, or damaged.
Status inspect_image(const void* data, size_t size, ImageFacts* out);

// Fails with CUABI_ERROR_INVALID_IMAGE when `image` cannot run on a device of compute capability
// major.minor: a CUBIN runs only on its own major architecture at an equal or newer minor, PTX on
// devices at least as new as its target. A fatbin is left to the driver, which picks from it.
Status check_image_runs_on(const ImageFacts& image, int device_major, int device_minor, const char* device_name);

// "CUBIN for sm_90", "PTX for compute_90", "fatbin": names an image in messages and ranges.
std::string describe_image(const cache::CachedImage& image);

}  // namespace cuabi
