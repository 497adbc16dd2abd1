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
/// every byte it reports (caller frees). Asks again when the result grew between the two calls.
pub fn readBytes(lib: *const Library, comptime name: []const u8, args: anytype, allocator: Allocator) (Error || Allocator.Error)![]u8 {
    const function = try lib.get(name);
    while (true) {
        var size: usize = 0;
        var status = @call(.auto, function, args ++ .{ null, 0, &size });
        if (status != c.CUABI_SUCCESS and status != c.CUABI_ERROR_BUFFER_TOO_SMALL) return errors.recordFailure(lib, name, status);
        const buffer = try allocator.alloc(u8, size);
        var written: usize = 0;
        status = @call(.auto, function, args ++ .{ buffer.ptr, buffer.len, &written });
        if (status == c.CUABI_SUCCESS and written == buffer.len) return buffer;
        allocator.free(buffer);
        if (status == c.CUABI_SUCCESS) continue; // it shrank: ask for the exact size again
        if (status != c.CUABI_ERROR_BUFFER_TOO_SMALL) return errors.recordFailure(lib, name, status);
    }
}
