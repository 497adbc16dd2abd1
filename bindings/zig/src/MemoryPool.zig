//! A pool of device memory for stream-ordered buffers (`Buffer.createAsync`): the device's default
//! pool (`MemoryPool.default`) or one of its own (`MemoryPool.create`). It keeps memory that
//! buffers gave back, up to its release threshold, so later allocations reuse it; `trim` gives the
//! rest back. Buffers allocated from a pool keep it alive, so `deinit` while they live is safe.
//! Thread-safe.

const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const Library = @import("Library.zig");
const Context = @import("Context.zig");

const MemoryPool = @This();
const Error = errors.Error;

/// The library the pool came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_memory_pool,

/// How a created pool behaves.
pub const Options = struct {
    /// The most bytes the pool may hold; 0: the driver's limit.
    max_size: u64 = 0,
    /// Bytes kept when a synchronization finds them unused.
    release_threshold: u64 = 0,
};

/// A new pool on `context`'s device. `error.Unsupported` when the device has no stream-ordered
/// allocator.
pub fn create(context: Context, options: Options) Error!MemoryPool {
    const raw: c.cuabi_memory_pool_options = .{
        .struct_size = @sizeOf(c.cuabi_memory_pool_options),
        .reserved = 0,
        .max_size = options.max_size,
        .release_threshold = options.release_threshold,
    };
    var handle: ?*c.cuabi_memory_pool = null;
    try context.lib.call("cuabi_memory_pool_create", .{ context.handle, &raw, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// The device's default pool, which `Buffer.createAsync` uses without a pool. `deinit` leaves the
/// driver's pool as it is.
pub fn default(context: Context) Error!MemoryPool {
    var handle: ?*c.cuabi_memory_pool = null;
    try context.lib.call("cuabi_memory_pool_get_default", .{ context.handle, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// Releases the handle; a created pool is destroyed once its last buffer is freed. Harmless to
/// repeat.
pub fn deinit(self: MemoryPool) void {
    if (self.lib.dispatch.cuabi_memory_pool_destroy) |destroy| destroy(self.handle);
}

/// Sets how many unused bytes the pool keeps at a synchronization (maxInt(u64): all).
pub fn setReleaseThreshold(self: MemoryPool, bytes: u64) Error!void {
    return self.lib.call("cuabi_memory_pool_set_release_threshold", .{ self.handle, bytes });
}

/// Gives unused memory back to the system until at most `min_bytes_to_keep` stay reserved.
pub fn trim(self: MemoryPool, min_bytes_to_keep: u64) Error!void {
    return self.lib.call("cuabi_memory_pool_trim", .{ self.handle, min_bytes_to_keep });
}

/// One of the pool's byte counts.
pub fn attribute(self: MemoryPool, which: types.MemoryPoolAttribute) Error!u64 {
    var out: u64 = 0;
    try self.lib.call("cuabi_memory_pool_get_attribute", .{ self.handle, @intFromEnum(which), &out });
    return out;
}
