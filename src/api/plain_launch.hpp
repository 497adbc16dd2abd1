// The launch config the fast paths take (cuabi_launch, cuabi_launch_packed and runs of
// cuabi_launch_batch items), read from the caller's cuabi_launch_config without copying it.
#pragma once

#include <cstddef>

#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"
#include "launch/limits.hpp"

namespace cuabi {

// sizeof(cuabi_launch_config) in the 1.0 header, which ended before `priority`.
inline constexpr uint32_t kLaunchConfigSize10 = StructReleases<cuabi_launch_config>::released[0];
static_assert(kLaunchConfigSize10 == offsetof(cuabi_launch_config, priority), "1.0's launch config ends at priority");

// The fast path takes a plain launch (no flags, no cluster, a stream) from a config of a size it
// knows whole (1.0's, or 1.1's with reserved 0), as views into the caller's config: nothing is
// copied. Anything else goes the general way, which reads the config and reports.
[[gnu::always_inline]] inline bool plain_launch(const cuabi_launch_config* config, launch::PlainLaunch* out) {
    // The size first: no field is read past the caller's struct.
    if (config == nullptr || (config->struct_size == sizeof(cuabi_launch_config)
                                  ? config->reserved != 0
                                  : config->struct_size != kLaunchConfigSize10))
        return false;
    if (config->stream == nullptr || config->flags != 0 ||
        (config->cluster[0] | config->cluster[1] | config->cluster[2]) != 0)
        return false;
    out->grid = config->grid;
    out->block = config->block;
    out->shared_memory_bytes = config->shared_memory_bytes;
    out->stream = config->stream;
    return true;
}

}  // namespace cuabi
