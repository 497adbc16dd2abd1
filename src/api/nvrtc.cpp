// Entry points for NVRTC facts (the "Module" group of cuabi.h): what `cuabi info` shows.
#include "api/arguments.hpp"
#include "cuabi/cuabi.h"
#include "driver/nvrtc_api.hpp"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_nvrtc_version(int32_t* out_major, int32_t* out_minor) {
    Status status = require_pointer(out_major, "out_major");
    if (status == CUABI_SUCCESS) status = require_pointer(out_minor, "out_minor");
    if (status != CUABI_SUCCESS) return status;
    const NvrtcApi* api = nvrtc(&status);
    if (api == nullptr) return status;
    *out_major = api->major;
    *out_minor = api->minor;
    return CUABI_SUCCESS;
}

CUABI_API cuabi_status cuabi_nvrtc_supported_archs(int32_t* archs, size_t capacity, size_t* out_count) {
    Status status = require_pointer(out_count, "out_count");
    if (status != CUABI_SUCCESS) return status;
    const NvrtcApi* api = nvrtc(&status);
    if (api == nullptr) return status;
    static_assert(sizeof(int) == sizeof(int32_t), "NVRTC reports architectures as int");
    // Counted in elements, not bytes.
    size_t count = api->supported_archs.size();
    *out_count = count;
    if (archs == nullptr) return CUABI_SUCCESS;
    if (capacity < count)
        return fail(CUABI_ERROR_BUFFER_TOO_SMALL,
                    "pass an array of at least *out_count elements (call once with NULL to learn it)",
                    "the array holds %zu elements; NVRTC supports %zu architectures", capacity, count);
    for (size_t i = 0; i < count; ++i) archs[i] = api->supported_archs[i];
    return CUABI_SUCCESS;
}

}  // extern "C"
