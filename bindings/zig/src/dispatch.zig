//! The dispatch table: one optional function pointer per function the header declares, filled
//! through `cuabi_get_proc_address` when the library is opened.
//!
//! The table is built at compile time from the header's `PFN_cuabi_*` typedefs (as translated in
//! c.zig), so a function added to the header gets its entry without an edit here; a test checks
//! the entries against the header's own list of functions. An entry the loaded library lacks (an
//! older 1.x) stays null, and the wrapper that needs it returns `error.Unsupported` when called --
//! never at load.

const std = @import("std");
const c = @import("c.zig");

const pfn_prefix = "PFN_";

/// The names of every function in the header ("cuabi_launch", ...), in header order.
pub const function_names: []const [:0]const u8 = blk: {
    @setEvalBranchQuota(100_000);
    var names: []const [:0]const u8 = &.{};
    for (@typeInfo(c).@"struct".decl_names) |decl| {
        if (std.mem.startsWith(u8, decl, pfn_prefix ++ "cuabi_")) names = names ++ .{decl[pfn_prefix.len..]};
    }
    break :blk names;
};

/// One field per header function, named as the function, of its `PFN_cuabi_*` type (an optional
/// `callconv(.c)` function pointer), null until `load` finds it.
pub const Dispatch = blk: {
    @setEvalBranchQuota(100_000);
    var types: [function_names.len]type = undefined;
    var attrs: [function_names.len]std.lang.Type.Struct.FieldAttributes = undefined;
    for (function_names, 0..) |name, i| {
        const T = @field(c, pfn_prefix ++ name);
        const none: T = null;
        types[i] = T;
        attrs[i] = .{ .default_value_ptr = @ptrCast(&none) };
    }
    break :blk @Struct(.auto, null, function_names, &types, &attrs);
};

/// Fills every entry through `get_proc_address`; entries it does not know stay null.
pub fn load(get_proc_address: *const fn ([*c]const u8) callconv(.c) c.cuabi_proc) Dispatch {
    var table: Dispatch = .{};
    inline for (function_names) |name| {
        if (get_proc_address(name.ptr)) |proc| @field(table, name) = @ptrCast(proc);
    }
    return table;
}
