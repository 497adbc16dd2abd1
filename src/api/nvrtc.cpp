// Entry points for NVRTC facts (the "Module" group of cuabi.h): what `cuabi info` shows.
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/two_call.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"
#include "compile/toolkit_headers.hpp"
#include "driver/nvrtc_api.hpp"
#include "driver/nvrtc_api_locate.hpp"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_nvrtc_get_version(int32_t* out_major, int32_t* out_minor) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_major, "out_major");
    if (status == CUABI_SUCCESS) status = require_pointer(out_minor, "out_minor");
    if (status != CUABI_SUCCESS) return status;
    const NvrtcApi* api = nvrtc(&status);
    if (api == nullptr) return status;
    *out_major = api->major;
    *out_minor = api->minor;
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_nvrtc_get_supported_archs(int32_t* out_archs, size_t capacity, size_t* out_count) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_count, "out_count");
    if (status != CUABI_SUCCESS) return status;
    const NvrtcApi* api = nvrtc(&status);
    if (api == nullptr) return status;
    static_assert(sizeof(int) == sizeof(int32_t), "NVRTC reports architectures as int");
    // Counted in elements, not bytes.
    size_t count = api->supported_archs.size();
    *out_count = count;
    if (out_archs == nullptr) return CUABI_SUCCESS;
    if (capacity < count)
        return fail(CUABI_ERROR_BUFFER_TOO_SMALL,
                    "pass an array of at least *out_count elements (call once with NULL to learn it)",
                    "the array holds %zu elements; NVRTC supports %zu architectures", capacity, count);
    for (size_t i = 0; i < count; ++i) out_archs[i] = api->supported_archs[i];
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_nvrtc_get_path(char* out_text, size_t capacity, size_t* out_size) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_size, "out_size");
    if (status != CUABI_SUCCESS) return status;
    if (nvrtc_load_state() == NvrtcLoad::Loaded) return copy_text_out(nvrtc(nullptr)->path, out_text, capacity, out_size);
    const NvrtcLocation& location = nvrtc_location();
    if (!location.found)
        return fail(CUABI_ERROR_NVRTC_NOT_FOUND,
                    "install NVRTC (CUDA Toolkit or the nvidia-cuda-nvrtc wheel), or set CUABI_NVRTC_PATH to libnvrtc.so",
                    "no NVRTC found; looked for %s", location.searched.c_str());
    return copy_text_out(location.path, out_text, capacity, out_size);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_nvrtc_get_include_dirs(char* out_text, size_t capacity, size_t* out_size) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_size, "out_size");
    if (status != CUABI_SUCCESS) return status;
    std::string lines;
    for (const std::string& directory : toolkit_headers().directories) lines += (lines.empty() ? "" : "\n") + directory;
    return copy_text_out(lines, out_text, capacity, out_size);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
