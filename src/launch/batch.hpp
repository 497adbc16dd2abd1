// A batch of launches (cuabi_launch_batch): the checks of the batch as a whole, and the loop that
// launches its items in order and stops at the first refused one. Each item goes through the single
// launch's own path (the caller's `launch_item`), so an item is checked, counted, ranged and
// captured exactly as one cuabi_launch() call; nothing here repeats those checks.
//
// No allocation: the loop keeps nothing per item. Only a refusal allocates, to name the item in
// the message.
#pragma once

#include <cstddef>

#include "core/error.hpp"

namespace cuabi {
namespace launch {

constexpr size_t kMaxBatchItems = CUABI_LAUNCH_BATCH_MAX_ITEMS;

// INVALID_ARGUMENT for a NULL item array with count > 0 or more than kMaxBatchItems items.
Status check_batch(const void* items, size_t count);

// INVALID_ARGUMENT for an item that gives both an argument table and a packed buffer.
Status check_item_form(bool has_table, bool has_packed);

// Re-records the thread's last error with "cuabi_launch_batch item <index> of <count>: " in front,
// keeping its status and CUresult, and returns the status.
Status name_refused_item(Status status, size_t index, size_t count);

// Launches items 0..count-1 by calling launch_item(i) in order (each returns a Status); stops at
// the first refusal. *out_submitted is the number launched before it (count on success).
template <typename LaunchItem>
Status launch_in_order(size_t count, LaunchItem&& launch_item, size_t* out_submitted) {
    for (size_t i = 0; i < count; ++i) {
        const Status status = launch_item(i);
        if (status != CUABI_SUCCESS) {
            *out_submitted = i;
            return name_refused_item(status, i, count);
        }
    }
    *out_submitted = count;
    return CUABI_SUCCESS;
}

}  // namespace launch
}  // namespace cuabi
