//! The header's two-call pattern (`(out, capacity, out_size)`: ask for the size, then fill a
//! buffer of that size) as one call that returns memory the caller owns.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const Library = @import("Library.zig");

const Allocator = std.mem.Allocator;
const Error = errors.Error;

/// Calls two-call text function `name` with `args` before its `(out_text, capacity, out_size)`
/// and returns the text without its NUL terminator, NUL-terminated (caller frees).
pub fn read(lib: *const Library, comptime name: []const u8, args: anytype, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    const bytes = try readBytes(lib, name, args, allocator);
    if (bytes.len == 0 or bytes[bytes.len - 1] != 0) {
        allocator.free(bytes);
        return errors.recordPackageFailure(lib, name, c.CUABI_ERROR_INTERNAL, "{s} returned text without its terminating NUL.", .{name}, "report this cuabi bug.");
    }
    return bytes[0 .. bytes.len - 1 :0];
}

/// Calls two-call function `name` with `args` before its `(out, capacity, out_size)` and returns
/// every byte it reports (caller frees).
pub fn readBytes(lib: *const Library, comptime name: []const u8, args: anytype, allocator: Allocator) (Error || Allocator.Error)![]u8 {
    return readSlice(u8, lib, name, args, allocator);
}

/// Calls two-call function `name`, counted in elements of T, with `args` before its
/// `(out, capacity, out_count)` and returns every element it reports (caller frees). Asks again
/// when the result changed size between the two calls.
pub fn readSlice(comptime T: type, lib: *const Library, comptime name: []const u8, args: anytype, allocator: Allocator) (Error || Allocator.Error)![]T {
    const function = try lib.get(name);
    while (true) {
        var count: usize = 0;
        var status = @call(.auto, function, args ++ .{ null, 0, &count });
        if (status != c.CUABI_SUCCESS and status != c.CUABI_ERROR_BUFFER_TOO_SMALL) return errors.recordFailure(lib, name, status);
        const out = try allocator.alloc(T, count);
        var written: usize = 0;
        status = @call(.auto, function, args ++ .{ out.ptr, out.len, &written });
        if (status == c.CUABI_SUCCESS and written == out.len) return out;
        allocator.free(out);
        if (status == c.CUABI_SUCCESS) continue; // it shrank: ask for the exact size again
        if (status != c.CUABI_ERROR_BUFFER_TOO_SMALL) return errors.recordFailure(lib, name, status);
    }
}
