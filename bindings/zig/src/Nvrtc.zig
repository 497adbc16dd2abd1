//! The NVRTC cuabi uses (`Library.nvrtc()`): loaded on the first compile that misses the cache,
//! or by these queries. `error.NvrtcNotFound` says where cuabi looked. Thread-safe.

const std = @import("std");
const errors = @import("errors.zig");
const text = @import("text.zig");
const Library = @import("Library.zig");

const Nvrtc = @This();
const Error = errors.Error;
const Allocator = std.mem.Allocator;

/// The library that loads NVRTC.
lib: *const Library,

/// NVRTC's version.
pub fn version(self: Nvrtc) Error!struct { major: i32, minor: i32 } {
    var major: i32 = 0;
    var minor: i32 = 0;
    try self.lib.call("cuabi_nvrtc_get_version", .{ &major, &minor });
    return .{ .major = major, .minor = minor };
}

/// The architectures NVRTC compiles for, ascending (75 for sm_75, ...; caller frees).
pub fn supportedArchs(self: Nvrtc, allocator: Allocator) (Error || Allocator.Error)![]i32 {
    return text.readSlice(i32, self.lib, "cuabi_nvrtc_get_supported_archs", .{}, allocator);
}

/// The path of the NVRTC library cuabi loaded or would load (caller frees).
pub fn path(self: Nvrtc, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_nvrtc_get_path", .{}, allocator);
}

/// The toolkit include directories cuabi gives NVRTC, one per line in search order (caller frees).
pub fn includeDirs(self: Nvrtc, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_nvrtc_get_include_dirs", .{}, allocator);
}
