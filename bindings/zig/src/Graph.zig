//! A graph: a captured sequence of work and its executable, replayed with one call. Made by
//! `Stream.endCapture` (or found in the graph cache). Its kernel nodes can be updated in place --
//! arguments and geometry, checked like a launch -- and memset nodes' values; a whole new capture
//! of the same shape updates it with `Stream.endCaptureUpdate`.
//!
//! A graph keeps its context, its kernels and the buffers its captured transfers touch alive.
//! A buffer reached only through a kernel argument is not known to cuabi: `retainBuffer` it, or
//! keep it alive yourself while the graph may replay. Any thread may use a graph.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const text = @import("text.zig");
const launch_ = @import("launch.zig");
const Library = @import("Library.zig");
const Stream = @import("Stream.zig");
const Buffer = @import("Buffer.zig");
const Kernel = @import("Kernel.zig");

const Graph = @This();
const Error = errors.Error;
const Allocator = std.mem.Allocator;

/// The library the graph came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_graph,

/// One node of the graph. Fields that do not apply to the node's kind are zero.
pub const NodeInfo = struct {
    /// Kernel, memcpy, memset, host, ...
    kind: types.GraphNodeKind,
    /// Kernel nodes: the cuabi kernel launched, borrowed (valid while the graph lives and launches
    /// it; do not `deinit` it); null when it did not come from cuabi.
    kernel: ?Kernel,
    /// Kernel nodes: blocks in x, y, z.
    grid: [3]u32,
    /// Kernel nodes: threads per block in x, y, z.
    block: [3]u32,
    /// Kernel nodes: dynamic shared memory per block.
    shared_memory_bytes: u32,
    /// Kernel nodes: the parameter count; null when the driver cannot tell (before CUDA 12.4).
    param_count: ?u32,
    /// Kernel nodes: the size of the packed argument buffer (`updateKernelArgsPacked`).
    param_bytes: u64,
    /// Memset nodes: the value written.
    memset_value: u32,
    /// Memset nodes: the element size (1, 2 or 4 bytes).
    memset_element_size: u32,
};

/// What a whole-graph update did (`Stream.endCaptureUpdate`).
pub const UpdateInfo = struct {
    /// The header's struct.
    raw: c.cuabi_graph_update_info,

    /// The executable could not be updated in place and was rebuilt.
    pub fn reinstantiated(self: *const UpdateInfo) bool {
        return self.raw.reinstantiated != 0;
    }

    /// The node of the new capture the driver's refusal is about, if any.
    pub fn errorNode(self: *const UpdateInfo) ?u64 {
        return if (self.raw.has_error_node != 0) self.raw.error_node_index else null;
    }

    /// Why it was not updated in place; "" when it was.
    pub fn reason(self: *const UpdateInfo) []const u8 {
        return std.mem.sliceTo(&self.raw.reason, 0);
    }
};

/// Releases the handle; the graph dies with its last handle and graph-cache entry (replays still
/// running finish first). Harmless to repeat.
pub fn deinit(self: Graph) void {
    if (self.lib.dispatch.cuabi_graph_destroy) |destroy| destroy(self.handle);
}

/// Enqueues one replay on `stream` (any stream of the graph's context); null replays on the
/// calling thread's per-thread stream and waits. Allocates nothing.
pub fn launch(self: Graph, stream: ?Stream) Error!void {
    return self.lib.call("cuabi_graph_launch", .{ self.handle, if (stream) |s| s.handle else null });
}

/// Prepares the graph's device resources ahead of its first launch.
pub fn upload(self: Graph, stream: ?Stream) Error!void {
    return self.lib.call("cuabi_graph_upload", .{ self.handle, if (stream) |s| s.handle else null });
}

/// Keeps `buffer`'s memory alive as long as the graph lives (for buffers its kernels reach through
/// arguments). The caller may release its own handle at once.
pub fn retainBuffer(self: Graph, buffer: Buffer) Error!void {
    return self.lib.call("cuabi_graph_retain_buffer", .{ self.handle, buffer.handle });
}

/// The underlying CUgraph and CUgraphExec, owned by the graph.
pub fn native(self: Graph) Error!struct { graph: *anyopaque, exec: *anyopaque } {
    var graph: ?*anyopaque = null;
    var exec: ?*anyopaque = null;
    try self.lib.call("cuabi_graph_get_native", .{ self.handle, &graph, &exec });
    return .{ .graph = graph.?, .exec = exec.? };
}

/// The number of nodes.
pub fn nodeCount(self: Graph) Error!usize {
    var out: usize = 0;
    try self.lib.call("cuabi_graph_get_node_count", .{ self.handle, &out });
    return out;
}

/// Node `index` (in capture order). `error.GraphNode` past the last node.
pub fn nodeInfo(self: Graph, index: usize) Error!NodeInfo {
    var raw = types.outputStruct(c.cuabi_graph_node_info);
    try self.lib.call("cuabi_graph_get_node_info", .{ self.handle, index, &raw });
    return .{
        .kind = @fromBackingInt(raw.kind),
        .kernel = if (raw.kernel) |handle| .{ .lib = self.lib, .handle = handle } else null,
        .grid = raw.grid,
        .block = raw.block,
        .shared_memory_bytes = raw.shared_memory_bytes,
        .param_count = if (raw.param_count == c.CUABI_GRAPH_PARAM_COUNT_UNKNOWN) null else raw.param_count,
        .param_bytes = raw.param_bytes,
        .memset_value = raw.memset_value,
        .memset_element_size = raw.memset_element_size,
    };
}

/// The name kernel node `index`'s kernel was looked up by, or the driver's mangled name (caller frees).
pub fn nodeKernelName(self: Graph, allocator: Allocator, index: usize) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_graph_get_node_kernel_name", .{ self.handle, index }, allocator);
}

/// Offset and size of parameter `param_index` of kernel node `index`.
pub fn nodeParamInfo(self: Graph, index: usize, param_index: usize) Error!Kernel.ParamInfo {
    var out: Kernel.ParamInfo = .{ .offset = 0, .size = 0 };
    try self.lib.call("cuabi_graph_get_node_param_info", .{ self.handle, index, param_index, &out.offset, &out.size });
    return out;
}

/// Replaces every argument of kernel node `index` for later replays with the tuple `args`,
/// checked as `Kernel.launch` checks them. Allocates nothing.
pub fn updateKernelArgs(self: Graph, index: usize, args: anytype) Error!void {
    const values = launch_.values(args);
    const table = launch_.table(&values);
    return self.lib.call("cuabi_graph_update_kernel_args", .{ self.handle, index, launch_.tablePointer(&table), table.len });
}

/// Like `updateKernelArgs`, with the arguments packed at the node's parameter offsets
/// (`packed_args.len` must be the node's `param_bytes`).
pub fn updateKernelArgsPacked(self: Graph, index: usize, packed_args: []const u8) Error!void {
    return self.lib.call("cuabi_graph_update_kernel_args_packed", .{ self.handle, index, packed_args.ptr, packed_args.len });
}

/// Changes kernel node `index`'s grid, block and dynamic shared memory for later replays,
/// checked as a launch is.
pub fn updateKernelGeometry(self: Graph, index: usize, grid: [3]u32, block: [3]u32, shared_memory_bytes: u32) Error!void {
    return self.lib.call("cuabi_graph_update_kernel_geometry", .{ self.handle, index, &grid, &block, shared_memory_bytes });
}

/// Changes the value memset node `index` writes (it must fit the node's element size).
pub fn updateMemsetValue(self: Graph, index: usize, value: u32) Error!void {
    return self.lib.call("cuabi_graph_update_memset_value", .{ self.handle, index, value });
}
