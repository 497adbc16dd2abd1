// cuabi_launch_batch: each item goes through cuabi_launch() or cuabi_launch_packed() themselves,
// so an item is checked, counted, ranged and captured exactly as one single launch (the fast path
// included), and refused with the same status and message, which launch/batch names the item in.
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "cuabi/cuabi.h"
#include "launch/batch.hpp"

using namespace cuabi;

namespace {

Status launch_item(const cuabi_launch_item& item) {
    if (item.packed != nullptr) {
        const Status status = launch::check_item_form(item.args != nullptr || item.arg_count != 0, true);
        if (status != CUABI_SUCCESS) return status;
        return cuabi_launch_packed(item.kernel, item.config, item.packed, item.packed_size);
    }
    return cuabi_launch(item.kernel, item.config, item.args, item.arg_count);
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_launch_batch(const cuabi_launch_item* items, size_t count, size_t* out_submitted) try {
    Status status = require_pointer(out_submitted, "out_submitted");
    if (status != CUABI_SUCCESS) return status;
    *out_submitted = 0;
    if ((status = launch::check_batch(items, count)) != CUABI_SUCCESS) return status;
    return launch::launch_in_order(count, [items](size_t i) { return launch_item(items[i]); }, out_submitted);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
