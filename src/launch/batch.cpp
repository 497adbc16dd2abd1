#include "launch/batch.hpp"

#include <string>

namespace cuabi {
namespace launch {

Status check_batch(const void* items, size_t count) {
    if (items == nullptr && count > 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass an array of count cuabi_launch_item, or count 0",
                    "cuabi_launch_batch: items is NULL and count is %zu", count);
    if (count > kMaxBatchItems)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "split the batch into calls of at most CUABI_LAUNCH_BATCH_MAX_ITEMS items",
                    "cuabi_launch_batch: count is %zu; at most %zu items (CUABI_LAUNCH_BATCH_MAX_ITEMS) fit one call",
                    count, kMaxBatchItems);
    return CUABI_SUCCESS;
}

Status check_item_form(bool has_table, bool has_packed) {
    if (!(has_table && has_packed)) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT,
                "give either args and arg_count (table form) or packed and packed_size (packed form), and leave "
                "the other NULL and 0",
                "the item has both an argument table (args) and a packed buffer (packed)");
}

Status name_refused_item(Status status, size_t index, size_t count) {
    const std::string message = format("cuabi_launch_batch item %zu of %zu: %s", index, count, last_error_message());
    return fail_again(status, message, last_cu_result());
}

}  // namespace launch
}  // namespace cuabi
