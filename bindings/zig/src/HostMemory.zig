//! Page-locked ("pinned") host memory: the GPU's copy engines read and write it directly, so a
//! `Buffer.write` / `read` on a stream from or into it returns at once and overlaps with kernels
//! on other streams, and copies run at full bus speed. Either allocated by cuabi
//! (`Context.allocHostMemory`; freed by `deinit`) or the caller's own memory pinned in place
//! (`Context.registerHostMemory`; unpinned by `deinit`, never freed: it stays the caller's).
//! Pinning takes physical memory from the system: pin what transfers use, not everything.
//!
//! The memory is `bytes` (or `slice(T)`): plain host memory, valid until `deinit`. A transfer on
//! a stream reads or fills it when the stream gets there, not when the call returns: leave it
//! alone until then (synchronize the stream, or an event recorded after the transfer), and
//! synchronize before `deinit`, which does not wait. The handle keeps its context alive.
//! Thread-safe; concurrent access to the bytes themselves is the caller's race.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const launch = @import("launch.zig");
const slices = @import("slices.zig");
const Library = @import("Library.zig");
const Context = @import("Context.zig");

const HostMemory = @This();
const Error = errors.Error;

/// The library the memory came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_host_memory,
/// The page-locked bytes, valid until `deinit`: the allocation, or the memory registered.
bytes: []u8,

/// Allocates `byte_count` bytes of page-locked memory for `context`'s device, page-aligned and
/// not initialized. `error.InvalidArgument` for 0 bytes, `error.OutOfHostMemory` when the system
/// cannot pin that much.
pub fn alloc(context: Context, byte_count: usize, options: types.HostMemoryOptions) Error!HostMemory {
    const raw = options.toC();
    var handle: ?*c.cuabi_host_memory = null;
    try context.lib.call("cuabi_host_memory_create", .{ context.handle, byte_count, &raw, &handle });
    return fromHandle(context.lib, handle.?);
}

/// Pins the caller's `memory` (a slice, or a pointer to an array, of any element type) in place
/// without taking it: it must stay allocated, and not be freed or registered again, until
/// `deinit`. `options.flags.write_combined` is refused (allocation only), so is memory already
/// registered (also partly) or that is not ordinary host memory: `error.InvalidArgument`.
pub fn register(context: Context, memory: anytype, options: types.HostMemoryOptions) Error!HostMemory {
    const bytes = std.mem.sliceAsBytes(slices.asSlice(memory));
    if (@typeInfo(@TypeOf(bytes)).pointer.attrs.@"const") @compileError("registerHostMemory takes mutable memory (the GPU may write into it), not " ++ @typeName(@TypeOf(memory)));
    const raw = options.toC();
    var handle: ?*c.cuabi_host_memory = null;
    try context.lib.call("cuabi_host_memory_register", .{ context.handle, @as(?*anyopaque, @ptrCast(bytes.ptr)), bytes.len, &raw, &handle });
    return fromHandle(context.lib, handle.?);
}

/// The handle with its bytes, as cuabi reports them; released again when it cannot say.
fn fromHandle(lib: *const Library, handle: *c.cuabi_host_memory) Error!HostMemory {
    var memory: HostMemory = .{ .lib = lib, .handle = handle, .bytes = &.{} };
    errdefer memory.deinit();
    const start: [*]u8 = @ptrCast(try memory.pointer());
    memory.bytes = start[0..try memory.size()];
    return memory;
}

/// Releases the handle: allocated memory is freed, registered memory unpinned (and stays the
/// caller's). Does not wait for transfers already enqueued: synchronize their streams first.
/// Harmless to repeat.
pub fn deinit(self: HostMemory) void {
    if (self.lib.dispatch.cuabi_host_memory_destroy) |destroy| destroy(self.handle);
}

/// The bytes as elements of T (whole elements only). Allocated memory is page-aligned, so any T
/// fits it; registered memory has the alignment of what was registered.
pub fn slice(self: HostMemory, comptime T: type) []T {
    const items: [*]T = @ptrCast(@alignCast(self.bytes.ptr));
    return items[0 .. self.bytes.len / @sizeOf(T)];
}

/// The host address, as cuabi reports it (the allocation's start, or the registered pointer).
pub fn pointer(self: HostMemory) Error!*anyopaque {
    var out: ?*anyopaque = null;
    try self.lib.call("cuabi_host_memory_get_pointer", .{ self.handle, &out });
    return out.?;
}

/// The size in bytes, as allocated or registered.
pub fn size(self: HostMemory) Error!usize {
    var out: usize = 0;
    try self.lib.call("cuabi_host_memory_get_size", .{ self.handle, &out });
    return out;
}

/// The device address at which kernels of the memory's context reach these bytes over the bus
/// (zero-copy), to pass as a kernel argument. `error.Unsupported` unless the memory was made with
/// `flags.device_mapped`.
pub fn devicePtr(self: HostMemory) Error!launch.DevicePtr {
    var out: u64 = 0;
    try self.lib.call("cuabi_host_memory_get_device_address", .{ self.handle, &out });
    return @fromBackingInt(out);
}
