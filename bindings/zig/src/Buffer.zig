//! A buffer: device memory of a fixed size, owned (allocated by cuabi) or wrapped (a device
//! address from other CUDA code, never freed by cuabi). Every transfer is checked against the
//! buffer's bounds. Transfers take slices of any element type. Without a stream they finish
//! before returning. On a stream, ordinary (pageable) host memory is staged by the driver: a
//! write returns once the slice has been read, a read once the data has arrived, and neither
//! overlaps with other streams' kernels. Page-locked memory (`HostMemory.bytes` or `slice(T)`)
//! is copied by the GPU's copy engine while the call returns at once: the copy overlaps with other
//! streams' work, and the slice must stay unchanged (write) or unread (read) until the stream
//! reaches the copy. A module's `__device__` / `__constant__` variable is a buffer too
//! (`Module.global`). Thread-safe.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const launch = @import("launch.zig");
const slices = @import("slices.zig");
const Library = @import("Library.zig");
const Context = @import("Context.zig");
const Stream = @import("Stream.zig");
const MemoryPool = @import("MemoryPool.zig");

const Buffer = @This();
const Error = errors.Error;

/// The library the buffer came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_buffer,

/// Where a transfer starts and on which stream it runs.
pub const Transfer = struct {
    /// Byte offset into the buffer.
    offset: usize = 0,
    /// Null: run synchronously and finish before returning. A stream: enqueue (see above for when
    /// the host memory may be touched again).
    stream: ?Stream = null,
};

/// Which elements `fill` sets.
pub const Fill = struct {
    /// Byte offset of the first element; a multiple of the element size.
    offset: usize = 0,
    /// Elements to set; null: every whole element from `offset` to the end of the buffer.
    count: ?usize = null,
    /// Null: run synchronously and finish before returning.
    stream: ?Stream = null,
};

/// Allocates `byte_count` bytes on `context`. `error.DeviceOutOfMemory` when the device cannot
/// hold them.
pub fn create(context: Context, byte_count: usize, options: types.BufferOptions) Error!Buffer {
    const raw: c.cuabi_buffer_options = .{ .struct_size = @sizeOf(c.cuabi_buffer_options), .flags = @bitCast(options.flags) };
    var handle: ?*c.cuabi_buffer = null;
    try context.lib.call("cuabi_buffer_create", .{ context.handle, byte_count, &raw, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// Wraps `byte_count` bytes at `device_address` (memory of `context` from other CUDA code)
/// without owning them; cuabi checks with the driver that the range is CUDA memory of that context.
pub fn wrap(context: Context, device_address: u64, byte_count: usize) Error!Buffer {
    var handle: ?*c.cuabi_buffer = null;
    try context.lib.call("cuabi_buffer_wrap", .{ context.handle, device_address, byte_count, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// Releases the handle; owned memory is freed once no graph keeps it alive (after work already
/// queued on it -- synchronize first if kernels may still use it). Harmless to repeat.
pub fn deinit(self: Buffer) void {
    if (self.lib.dispatch.cuabi_buffer_destroy) |destroy| destroy(self.handle);
}

/// The buffer's size in bytes.
pub fn size(self: Buffer) Error!usize {
    var out: usize = 0;
    try self.lib.call("cuabi_buffer_get_size", .{ self.handle, &out });
    return out;
}

/// The buffer's device address, to pass as a kernel argument.
pub fn devicePtr(self: Buffer) Error!launch.DevicePtr {
    var out: u64 = 0;
    try self.lib.call("cuabi_buffer_get_device_address", .{ self.handle, &out });
    return @fromBackingInt(out);
}

/// Copies the elements of `data` (a slice or a pointer to an array) to the buffer.
/// `error.OutOfBounds` when they do not fit at `at.offset`.
pub fn write(self: Buffer, data: anytype, at: Transfer) Error!void {
    const bytes = std.mem.sliceAsBytes(slices.asSlice(data));
    return self.lib.call("cuabi_buffer_write", .{ self.handle, at.offset, bytes.ptr, bytes.len, streamHandle(at.stream) });
}

/// Fills `out` (a slice or a pointer to an array) from the buffer.
/// `error.OutOfBounds` when the buffer has fewer bytes from `at.offset`.
pub fn read(self: Buffer, out: anytype, at: Transfer) Error!void {
    const bytes = std.mem.sliceAsBytes(slices.asSlice(out));
    return self.lib.call("cuabi_buffer_read", .{ self.handle, at.offset, bytes.ptr, bytes.len, streamHandle(at.stream) });
}

/// Copies `size_bytes` from `src` at `src_offset` to this buffer at `dst_offset` (same context,
/// ranges not overlapping).
pub fn copyFrom(self: Buffer, dst_offset: usize, src: Buffer, src_offset: usize, size_bytes: usize, stream: ?Stream) Error!void {
    return self.lib.call("cuabi_buffer_copy", .{ self.handle, dst_offset, src.handle, src_offset, size_bytes, streamHandle(stream) });
}

/// Copies `size_bytes` from `src` at `src_offset`, on any device, to this buffer at `dst_offset`,
/// on `stream` (of either buffer's device; null: this buffer's device, finished before returning).
/// Between devices the stream's device needs peer access to the other (`Context.enablePeerAccess`)
/// unless `flags.staged`; otherwise error.ContextMismatch, naming both devices.
pub fn copyFromPeer(self: Buffer, dst_offset: usize, src: Buffer, src_offset: usize, size_bytes: usize, flags: types.PeerCopyFlags, stream: ?Stream) Error!void {
    return self.lib.call("cuabi_buffer_copy_peer", .{ self.handle, dst_offset, src.handle, src_offset, size_bytes, @as(u32, @bitCast(flags)), streamHandle(stream) });
}

/// Encodes a tiled tensor map over this buffer as `params` describe: the value to pass for a
/// kernel's `const __grid_constant__ CUtensorMap` parameter. error.InvalidArgument names each
/// broken rule with its values (error.OutOfBounds for a tensor larger than the buffer);
/// error.Unsupported before compute capability 9.0. The map holds the buffer's address, not the
/// buffer: keep the buffer while kernels use it.
pub fn tensorMap(self: Buffer, params: types.TensorMapParams) Error!types.TensorMap {
    var raw: c.cuabi_tensor_map_params = undefined;
    try self.lib.call("cuabi_tensor_map_params_init", .{ @as(u32, @sizeOf(c.cuabi_tensor_map_params)), &raw });
    raw.data_type = @intFromEnum(params.data_type);
    raw.rank = @intCast(@min(params.global_dims.len, std.math.maxInt(u32)));
    raw.interleave = @intFromEnum(params.interleave);
    raw.swizzle = @intFromEnum(params.swizzle);
    raw.l2_promotion = @intFromEnum(params.l2_promotion);
    raw.oob_fill = @intFromEnum(params.oob_fill);
    raw.offset = params.offset;
    // Entries past the arrays' capacity stay out; the rank, which counts them all, gets them refused.
    copyInto(u64, &raw.global_dims, params.global_dims);
    copyInto(u64, &raw.global_strides, params.global_strides);
    copyInto(u32, &raw.box_dims, params.box_dims);
    if (params.element_strides) |strides| copyInto(u32, &raw.element_strides, strides);
    var map: types.TensorMap = undefined;
    try self.lib.call("cuabi_tensor_map_encode_tiled", .{ self.handle, &raw, &map });
    return map;
}

fn copyInto(comptime T: type, array: []T, values: []const T) void {
    const count = @min(array.len, values.len);
    @memcpy(array[0..count], values[0..count]);
}

/// Sets elements to `value`, whose type gives the element size (1, 2 or 4 bytes: `u8`, `f16`,
/// `f32`, `i32`, ...).
pub fn fill(self: Buffer, value: anytype, range: Fill) Error!void {
    const T = @TypeOf(value);
    comptime if (launch.argumentRefusal(T) != null or (@sizeOf(T) != 1 and @sizeOf(T) != 2 and @sizeOf(T) != 4))
        @compileError("fill takes a value of 1, 2 or 4 bytes with a type (e.g. @as(f32, 1.0)), not " ++ @typeName(T));
    const Bits = @Int(.unsigned, @bitSizeOf(T));
    const bits: u32 = @as(Bits, @bitCast(value));
    const count = range.count orelse (try self.size() -| range.offset) / @sizeOf(T);
    return self.lib.call("cuabi_buffer_fill", .{ self.handle, range.offset, bits, @as(u32, @sizeOf(T)), count, streamHandle(range.stream) });
}

/// Where and how `createAsync` allocates.
pub const AsyncOptions = struct {
    /// Null: the device's default pool.
    pool: ?MemoryPool = null,
    /// Null: the calling thread's per-thread stream, done before returning. On a stream that
    /// captures, the allocation becomes a memory node of the graph.
    stream: ?Stream = null,
    flags: types.BufferFlags = .{},
};

/// Allocates `byte_count` bytes in stream order. Free with `freeAsync`; `deinit` frees at once
/// without waiting for queued work. `error.ContextMismatch` for a pool or stream of another
/// device, `error.DeviceOutOfMemory` when the device or the pool cannot hold them.
pub fn createAsync(context: Context, byte_count: usize, options: AsyncOptions) Error!Buffer {
    const raw: c.cuabi_buffer_options = .{ .struct_size = @sizeOf(c.cuabi_buffer_options), .flags = @bitCast(options.flags) };
    const pool: ?*c.cuabi_memory_pool = if (options.pool) |p| p.handle else null;
    var handle: ?*c.cuabi_buffer = null;
    try context.lib.call("cuabi_buffer_create_async", .{ context.handle, byte_count, pool, &raw, streamHandle(options.stream), &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// Frees a stream-ordered buffer when `stream` (null: the per-thread stream, waited for) reaches
/// this point; the handle is gone at once (do not `deinit` it). On error it stays valid:
/// `error.InvalidArgument` for memory not allocated in stream order, a buffer a graph keeps
/// alive, or one allocated outside a capture in progress on `stream`.
pub fn freeAsync(self: Buffer, stream: ?Stream) Error!void {
    return self.lib.call("cuabi_buffer_free_async", .{ self.handle, streamHandle(stream) });
}

/// Allocates `byte_count` bytes of managed memory: one address for the host (`hostBytes`) and
/// the device. `error.Unsupported` where the device cannot allocate it.
pub fn createManaged(context: Context, byte_count: usize, flags: types.ManagedFlags) Error!Buffer {
    var handle: ?*c.cuabi_buffer = null;
    try context.lib.call("cuabi_buffer_create_managed", .{ context.handle, byte_count, @as(u32, @bitCast(flags)), &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// A managed buffer's bytes at their host address, valid until `deinit` (`error.Unsupported` for
/// device memory). Touching them races with kernels that use the buffer: synchronize first.
pub fn hostBytes(self: Buffer) Error![]u8 {
    var out: ?*anyopaque = null;
    try self.lib.call("cuabi_buffer_get_host_pointer", .{ self.handle, &out });
    const start: [*]u8 = @ptrCast(out.?);
    return start[0..try self.size()];
}

/// Migrates `byte_count` bytes of a managed buffer from `offset` to `to` (a device ordinal as
/// `@enumFromInt(n)`, or `.host`) on `stream` (null: done before returning).
pub fn prefetch(self: Buffer, offset: usize, byte_count: usize, to: types.Location, stream: ?Stream) Error!void {
    return self.lib.call("cuabi_buffer_prefetch", .{ self.handle, offset, byte_count, @intFromEnum(to), streamHandle(stream) });
}

/// Tells the driver how `byte_count` bytes of a managed buffer from `offset` are used; the
/// location is ignored by the read-mostly advice.
pub fn advise(self: Buffer, offset: usize, byte_count: usize, advice: types.Advice, location: types.Location) Error!void {
    return self.lib.call("cuabi_buffer_advise", .{ self.handle, offset, byte_count, @intFromEnum(advice), @intFromEnum(location) });
}

fn streamHandle(stream: ?Stream) ?*c.cuabi_stream {
    return if (stream) |s| s.handle else null;
}
