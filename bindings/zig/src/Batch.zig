//! Batched launches: a slice of items launched in order with one call (`cuabi_launch_batch`),
//! each checked and submitted as one `Kernel.launchPacked` would be.
//!
//! An `Item` is the header's `cuabi_launch_item` itself, so the slice goes to the library as it
//! is: building and launching a batch allocates nothing. An item points at its C config (keep the
//! `c.cuabi_launch_config` from `LaunchConfig.toC()` alive until `launch` returns) and at its
//! packed arguments (from `Kernel.pack`).

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const Kernel = @import("Kernel.zig");
const Library = @import("Library.zig");

const Error = errors.Error;

const no_arguments: [1]u8 = .{0};

/// One launch of a batch (the header's `cuabi_launch_item`).
pub const Item = c.cuabi_launch_item;

/// The most items one `launch` takes (`CUABI_LAUNCH_BATCH_MAX_ITEMS`).
pub const max_items: usize = c.CUABI_LAUNCH_BATCH_MAX_ITEMS;

/// An item launching `kernel` with `config` and arguments packed at the kernel's parameter
/// offsets (`Kernel.pack`). `config` and `packed_args` must stay valid until the batch is launched.
pub fn item(kernel: Kernel, config: *const c.cuabi_launch_config, packed_args: []const u8) Item {
    // A non-null pointer selects the packed form, also for a kernel without parameters.
    const packed_ptr: *const anyopaque = if (packed_args.len == 0) &no_arguments else packed_args.ptr;
    return .{ .kernel = kernel.handle, .config = config, .args = null, .arg_count = 0, .@"packed" = packed_ptr, .packed_size = packed_args.len };
}

/// Launches `items` in order. Returns how many were submitted: all of them. When item k is
/// refused, items before k stay submitted and none after k is: the call returns k's error,
/// `refused_index.*` (when given) is k, and `lastError()`'s message begins
/// "cuabi_launch_batch item k of n: ". An empty slice launches nothing. Allocates nothing.
pub fn launch(lib: *const Library, items: []const Item, refused_index: ?*usize) Error!void {
    const function = try lib.get("cuabi_launch_batch");
    var submitted: usize = 0;
    const status = function(if (items.len == 0) null else items.ptr, items.len, &submitted);
    if (status == c.CUABI_SUCCESS) return;
    if (refused_index) |index| index.* = submitted;
    return errors.recordFailure(lib, "cuabi_launch_batch", status);
}
