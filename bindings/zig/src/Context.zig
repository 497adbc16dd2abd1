//! A context: one device's primary CUDA context, retained while this handle or anything made from
//! it lives. Streams, events, buffers, host memory, modules and graph-cache entries are made from
//! it; each keeps what it needs alive, so handles may be released in any order. Thread-safe.

const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const Library = @import("Library.zig");
const Stream = @import("Stream.zig");
const Event = @import("Event.zig");
const Buffer = @import("Buffer.zig");
const HostMemory = @import("HostMemory.zig");
const Module = @import("Module.zig");
const Graph = @import("Graph.zig");

const Context = @This();
const Error = errors.Error;

/// The library the context came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_context,

/// Creates a context on `options.device`, verifying images as `options.image_verification` says
/// (error.InvalidDevice for a bad ordinal). Without a driver or device this fails with
/// `error.DriverNotFound` or `error.NoDevice` and a message that says how to fix it.
pub fn create(lib: *const Library, options: types.ContextOptions) Error!Context {
    const raw: c.cuabi_context_options = .{ .struct_size = @sizeOf(c.cuabi_context_options), .device_ordinal = options.device, .flags = 0, .reserved = 0, .image_verification = @intFromEnum(options.image_verification) };
    var handle: ?*c.cuabi_context = null;
    try lib.call("cuabi_context_create", .{ &raw, &handle });
    return .{ .lib = lib, .handle = handle.? };
}

/// Releases the handle and drops the graph-cache entries inserted under it. Harmless to repeat:
/// a released handle is never valid again, and cuabi ignores it.
pub fn deinit(self: Context) void {
    if (self.lib.dispatch.cuabi_context_destroy) |destroy| destroy(self.handle);
}

/// Facts and launch limits of the context's device.
pub fn deviceInfo(self: Context) Error!types.DeviceInfo {
    var info = types.outputStruct(types.DeviceInfo);
    try self.lib.call("cuabi_context_get_device_info", .{ self.handle, &info });
    return info;
}

/// Waits until all work this process submitted to the device is done.
pub fn synchronize(self: Context) Error!void {
    return self.lib.call("cuabi_context_synchronize", .{self.handle});
}

/// The underlying CUcontext, for other CUDA code. Not owned by the caller.
pub fn native(self: Context) Error!*anyopaque {
    var out: ?*anyopaque = null;
    try self.lib.call("cuabi_context_get_native", .{ self.handle, &out });
    return out.?;
}

/// The context's counters of launches, synchronizations, graph work, compiles and cache use.
pub fn counters(self: Context) Error!types.Counters {
    var out = types.outputStruct(types.Counters);
    try self.lib.call("cuabi_context_get_counters", .{ self.handle, &out });
    return out;
}

/// Whether this context's device can be given access to the memory of `peer`'s device
/// (`enablePeerAccess`); true for two contexts of one device.
pub fn canAccessPeer(self: Context, peer: Context) Error!bool {
    var can: u32 = 0;
    try self.lib.call("cuabi_context_can_access_peer", .{ self.handle, peer.handle, &can });
    return can != 0;
}

/// Lets this context's kernels and copies reach the memory of `peer`'s device (one direction).
/// Enabling what is enabled succeeds; error.Unsupported when the devices cannot be peers (the
/// message names both).
pub fn enablePeerAccess(self: Context, peer: Context) Error!void {
    return self.lib.call("cuabi_context_enable_peer_access", .{ self.handle, peer.handle });
}

/// Undoes `enablePeerAccess`; disabling what is not enabled succeeds. Work still using the peer's
/// memory must have finished.
pub fn disablePeerAccess(self: Context, peer: Context) Error!void {
    return self.lib.call("cuabi_context_disable_peer_access", .{ self.handle, peer.handle });
}

/// Whether peer access from this context to `peer`'s device is enabled through cuabi.
pub fn peerAccessEnabled(self: Context, peer: Context) Error!bool {
    var enabled: u32 = 0;
    try self.lib.call("cuabi_context_get_peer_access", .{ self.handle, peer.handle, &enabled });
    return enabled != 0;
}

/// Creates a non-blocking stream (see `Stream`).
pub fn createStream(self: Context, options: types.StreamOptions) Error!Stream {
    return Stream.create(self, options);
}

/// Wraps a CUstream made by other CUDA code without owning it (see `Stream.wrap`).
pub fn wrapStream(self: Context, cu_stream: *anyopaque) Error!Stream {
    return Stream.wrap(self, cu_stream);
}

/// Creates an event (see `Event`).
pub fn createEvent(self: Context, options: types.EventOptions) Error!Event {
    return Event.create(self, options);
}

/// Allocates `byte_count` bytes of device memory (see `Buffer`).
pub fn createBuffer(self: Context, byte_count: usize, options: types.BufferOptions) Error!Buffer {
    return Buffer.create(self, byte_count, options);
}

/// Wraps device memory from other CUDA code without owning it (see `Buffer.wrap`).
pub fn wrapBuffer(self: Context, device_address: u64, byte_count: usize) Error!Buffer {
    return Buffer.wrap(self, device_address, byte_count);
}

/// Allocates `byte_count` bytes of page-locked host memory for transfers that overlap with
/// kernels (see `HostMemory.alloc`).
pub fn allocHostMemory(self: Context, byte_count: usize, options: types.HostMemoryOptions) Error!HostMemory {
    return HostMemory.alloc(self, byte_count, options);
}

/// Pins the caller's `memory` (a mutable slice or pointer to an array), which must stay allocated
/// until the returned handle's `deinit` (see `HostMemory.register`).
pub fn registerHostMemory(self: Context, memory: anytype, options: types.HostMemoryOptions) Error!HostMemory {
    return HostMemory.register(self, memory, options);
}

/// Compiles CUDA C++ `source` for the context's device and loads it (see `Module.compile`).
pub fn compile(self: Context, source: [:0]const u8, options: types.CompileOptions) Error!Module {
    return Module.compile(self, source, options);
}

/// Loads a PTX, CUBIN or fatbin image (see `Module.loadImage`).
pub fn loadImage(self: Context, bytes: []const u8) Error!Module {
    return Module.loadImage(self, bytes);
}

/// The graph cached under (this context, `key`, the capacity class of `size`): a new handle the
/// caller releases, or null on a miss.
pub fn graphCacheLookup(self: Context, key: []const u8, size: u64) Error!?Graph {
    var handle: ?*c.cuabi_graph = null;
    const function = try self.lib.get("cuabi_graph_cache_lookup");
    const status = function(self.handle, key.ptr, key.len, size, &handle);
    if (status == c.CUABI_ERROR_NOT_FOUND) return null;
    if (status != c.CUABI_SUCCESS) return errors.recordFailure(self.lib, "cuabi_graph_cache_lookup", status);
    return .{ .lib = self.lib, .handle = handle.? };
}

/// Caches `graph` under (this context, `key`, the capacity class of `size`), replacing an entry
/// with the same key. The caller keeps its own handle.
pub fn graphCacheInsert(self: Context, key: []const u8, size: u64, graph: Graph) Error!void {
    return self.lib.call("cuabi_graph_cache_insert", .{ self.handle, key.ptr, key.len, size, graph.handle });
}

/// Drops the graph-cache entries inserted under this context.
pub fn graphCacheClear(self: Context) Error!void {
    return self.lib.call("cuabi_graph_cache_clear", .{self.handle});
}
