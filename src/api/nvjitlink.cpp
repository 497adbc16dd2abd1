// Entry points for nvJitLink facts (the "Linking" group of cuabi.h): what `cuabi info` shows.
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/two_call.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"
#include "driver/nvjitlink_api.hpp"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_nvjitlink_get_version(int32_t* out_major, int32_t* out_minor) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_major, "out_major");
    if (status == CUABI_SUCCESS) status = require_pointer(out_minor, "out_minor");
    if (status != CUABI_SUCCESS) return status;
    const NvJitLinkApi* api = nvjitlink(&status);
    if (api == nullptr) return status;
    *out_major = api->major;
    *out_minor = api->minor;
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_nvjitlink_get_path(char* out_text, size_t capacity, size_t* out_size) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_size, "out_size");
    if (status != CUABI_SUCCESS) return status;
    const NvJitLinkLocation& location = nvjitlink_location();
    if (location.found) return copy_text_out(location.path, out_text, capacity, out_size);
    nvjitlink(&status);  // loads nothing where none was found: says where cuabi looked
    return status;
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
