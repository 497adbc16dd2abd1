// Entry point for the environment's refused settings (the "Library" group of cuabi.h): what
// `cuabi info` lists under "environment".
#include "api/guard.hpp"
#include "api/two_call.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/remote_config.hpp"
#include "compile/nvrtc_runner.hpp"
#include "core/environment.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"
#include "range/nvtx_state.hpp"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_environment_get_problems(char* out_text, size_t capacity, size_t* out_size) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_size, "out_size");
    if (status != CUABI_SUCCESS) return status;
    // Each setting is read where it is first used; read them all now so that the list is whole.
    read_compile_environment();
    cache::KernelCache::instance();
    cache::RemoteConfig remote;
    cache::RemoteConfig::from_environment(&remote);
    range::nvtx_state();
    std::string problems = environment_problems();
    return copy_text_out(problems, out_text, capacity, out_size);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
