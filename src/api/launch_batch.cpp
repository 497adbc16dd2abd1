// cuabi_launch_batch: each item goes through cuabi_launch() or cuabi_launch_packed() themselves,
// so an item is checked, counted, ranged and captured exactly as one single launch, and refused
// with the same status and message, which launch/batch names the item in. A run of items sharing
// kernel, config and argument form takes the fast path together (launch_fast_run), pinning the
// kernel and stream once for the run instead of once per item.
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/plain_launch.hpp"
#include "cuabi/cuabi.h"
#include "launch/batch.hpp"
#include "launch/launcher.hpp"

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

// Launches items[0] and, where they can go the fast path with it, the items after it; *launched
// is how many (at least 1 on success).
Status launch_from(const cuabi_launch_item* items, size_t count, size_t* launched) {
    launch::PlainLaunch plain;
    if (plain_launch(items[0].config, &plain) && (*launched = launch::launch_fast_run(items, count, plain)) > 0)
        return CUABI_SUCCESS;
    *launched = 1;
    return launch_item(items[0]);
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_launch_batch(const cuabi_launch_item* items, size_t count, size_t* out_submitted) try {
    Status status = require_pointer(out_submitted, "out_submitted");
    if (status != CUABI_SUCCESS) return status;
    *out_submitted = 0;
    if ((status = launch::check_batch(items, count)) != CUABI_SUCCESS) return status;
    return launch::launch_in_order(
        count, [items, count](size_t i, size_t* launched) { return launch_from(items + i, count - i, launched); },
        out_submitted);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
