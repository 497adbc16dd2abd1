//! Profiler ranges (NVTX v3): cuabi marks its own phases in the "cuabi" domain, listed in a
//! catalog; users mark theirs with thread-scoped push/pop or with a `Range` that any thread may
//! end. With no profiler attached a range costs a flag check. Thread-safe; no GPU needed.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const Library = @import("Library.zig");

const Error = errors.Error;

/// A range started with `Ranges.start`: any thread may `end` it, once.
pub const Range = struct {
    /// The library the range came from.
    lib: *const Library,
    /// The C handle, for calls through `lib.dispatch`.
    handle: *c.cuabi_range,

    /// Ends the range and frees its handle. Ending it again is `error.InvalidHandle` and changes
    /// nothing.
    pub fn end(self: Range) Error!void {
        return self.lib.call("cuabi_range_end", .{self.handle});
    }
};

/// One entry of the catalog of cuabi's own ranges.
pub const CatalogEntry = struct {
    /// The NVTX message, "cuabi."-prefixed ("cuabi.compile"). Static.
    name: [:0]const u8,
    /// The phase it covers. Static.
    description: [:0]const u8,
};

/// The range functions of a library (`Library.ranges()`).
pub const Ranges = struct {
    /// The library they call.
    lib: *const Library,

    /// Whether cuabi emits NVTX ranges (false when CUABI_NVTX=0 switched them off).
    pub fn enabled(self: Ranges) Error!bool {
        return (try self.lib.get("cuabi_range_get_enabled"))() != 0;
    }

    /// Whether a profiler (an NVTX tool such as Nsight Systems) is attached to this process.
    pub fn profilerAttached(self: Ranges) Error!bool {
        return (try self.lib.get("cuabi_range_get_profiler_attached"))() != 0;
    }

    /// Opens range `name` on the calling thread in `domain` (null: "cuabi"); close it with `pop`
    /// on the same thread.
    pub fn push(self: Ranges, name: [:0]const u8, domain: ?[:0]const u8) Error!void {
        return self.lib.call("cuabi_range_push", .{ name.ptr, if (domain) |d| d.ptr else null });
    }

    /// Closes the calling thread's innermost pushed range; `error.Range` when none is open.
    pub fn pop(self: Ranges) Error!void {
        return self.lib.call("cuabi_range_pop", .{});
    }

    /// Starts range `name` in `domain` (null: "cuabi"); any thread may end it.
    pub fn start(self: Ranges, name: [:0]const u8, domain: ?[:0]const u8) Error!Range {
        var handle: ?*c.cuabi_range = null;
        try self.lib.call("cuabi_range_start", .{ name.ptr, if (domain) |d| d.ptr else null, &handle });
        return .{ .lib = self.lib, .handle = handle.? };
    }

    /// The number of entries in the catalog of cuabi's own ranges.
    pub fn catalogCount(self: Ranges) Error!usize {
        var out: usize = 0;
        try self.lib.call("cuabi_range_get_catalog_count", .{&out});
        return out;
    }

    /// Catalog entry `index`; `error.NotFound` past the last one.
    pub fn catalogEntry(self: Ranges, index: usize) Error!CatalogEntry {
        var name: [*c]const u8 = null;
        var description: [*c]const u8 = null;
        try self.lib.call("cuabi_range_get_catalog_entry", .{ index, &name, &description });
        return .{ .name = std.mem.span(@as([*:0]const u8, @ptrCast(name))), .description = std.mem.span(@as([*:0]const u8, @ptrCast(description))) };
    }
};
