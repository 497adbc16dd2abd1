#include "launch/fast_path.hpp"

#include <algorithm>
#include <cstddef>

namespace cuabi {
namespace launch {

static_assert(offsetof(FastPath, max_block) == 64, "a fast launch reads the first line whole, then the second");

bool prepare_fast_path(const DeviceLimits& device, const KernelLimits& limits, const ParamLayout& layout,
                       FastPath* out) {
    const bool compiled_cluster =
        limits.required_cluster[0] != 0 || limits.required_cluster[1] != 0 || limits.required_cluster[2] != 0;
    if (!layout.known || layout.count > kFastParams || layout.total_bytes > UINT16_MAX || compiled_cluster ||
        limits.static_shared_bytes > device.shared_per_block_optin)
        return false;
    for (int i = 0; i < 3; ++i) {
        if (device.max_block[i] > UINT16_MAX) return false;
        out->max_grid[i] = device.max_grid[i];
        out->max_block[i] = device.max_block[i];
    }
    for (uint32_t i = 0; i < layout.count; ++i) {
        if (layout.slots[i].offset > UINT16_MAX || layout.slots[i].size > UINT16_MAX) return false;
        out->params[i].offset = static_cast<uint16_t>(layout.slots[i].offset);
        out->params[i].size = static_cast<uint16_t>(layout.slots[i].size);
    }
    out->param_count = static_cast<uint16_t>(layout.count);
    out->param_bytes = static_cast<uint16_t>(layout.total_bytes);
    out->max_threads = std::min(device.max_threads_per_block, limits.max_threads_per_block);
    out->shared_room = device.shared_per_block_optin - limits.static_shared_bytes;
    return true;
}

}  // namespace launch
}  // namespace cuabi
