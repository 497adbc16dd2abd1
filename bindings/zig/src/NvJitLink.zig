//! The nvJitLink cuabi links with (`Library.nvJitLink()`): located without loading it, loaded by
//! the version query (or a link run in this process). `error.NvjitlinkNotFound` says where cuabi
//! looked. Thread-safe.

const std = @import("std");
const errors = @import("errors.zig");
const text = @import("text.zig");
const Library = @import("Library.zig");

const NvJitLink = @This();
const Error = errors.Error;
const Allocator = std.mem.Allocator;

/// The library that loads nvJitLink.
lib: *const Library,

/// nvJitLink's version, loading it in this process if needed.
pub fn version(self: NvJitLink) Error!struct { major: i32, minor: i32 } {
    var major: i32 = 0;
    var minor: i32 = 0;
    try self.lib.call("cuabi_nvjitlink_get_version", .{ &major, &minor });
    return .{ .major = major, .minor = minor };
}

/// The path of the nvJitLink library cuabi links with (caller frees).
pub fn path(self: NvJitLink, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_nvjitlink_get_path", .{}, allocator);
}
