// A batch of launches (cuabi_launch_batch): the checks of the batch as a whole, and the loop that
// launches its items in order and stops at the first refused one. Each item goes through the single
// launch's own paths (the caller's `launch_from`), so an item is checked, counted, ranged and
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

// Launches items 0..count-1 in order by calling launch_from(i, &launched), which launches item i
// and maybe more after it (launched: how many, at least 1 on success) or returns a refusal;
// stops at the first refusal. *out_submitted is the number launched before it (count on success).
template <typename LaunchFrom>
Status launch_in_order(size_t count, LaunchFrom&& launch_from, size_t* out_submitted) {
    for (size_t i = 0; i < count;) {
        size_t launched = 0;
        const Status status = launch_from(i, &launched);
        if (status != CUABI_SUCCESS) {
            *out_submitted = i;
            return name_refused_item(status, i, count);
        }
        i += launched;
    }
    *out_submitted = count;
    return CUABI_SUCCESS;
}

}  // namespace launch
}  // namespace cuabi
