//! A graph: a captured sequence of work and its executable, replayed with one call. Made by
//! `Stream.endCapture` (or found in the graph cache). Its kernel nodes can be updated in place --
//! arguments and geometry, checked like a launch -- as can memset nodes' values and memcpy nodes'
//! end points; kernel, memcpy and memset nodes can be turned off and on; a whole new capture of
//! the same shape updates it with `Stream.endCaptureUpdate`. `dot` and `writeDot` draw it.
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
    /// Conditional nodes cuabi added: if, while or switch; null for other nodes.
    conditional_type: ?types.GraphConditionalType,
    /// Conditional nodes: how many body graphs it has.
    conditional_body_count: u32,
    /// Conditional nodes: the condition it tests; null for other nodes.
    condition: ?Stream.Condition,
    /// Conditional nodes: the nodes in its bodies, nested bodies included.
    conditional_body_nodes: u64,
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

/// New end points for a memcpy node (`updateMemcpy`): a range of a buffer, or host memory, on
/// each side. The direction (host to device, device to host, device to device) must be the
/// captured node's.
pub const MemcpyParams = struct {
    /// Where the copy writes.
    dst: Destination,
    /// Where the copy reads.
    src: Source,
    /// Bytes to copy; null: the length of the host side (required when both sides are buffers).
    size: ?u64 = null,

    /// Bytes of a buffer from `offset` on.
    pub const BufferRange = struct {
        buffer: Buffer,
        offset: u64 = 0,
    };

    /// A buffer range, or host memory the replays write (it must stay valid while the graph may
    /// replay).
    pub const Destination = union(enum) {
        buffer: BufferRange,
        host: []u8,
    };

    /// A buffer range, or host memory the replays read (it must stay valid while the graph may
    /// replay).
    pub const Source = union(enum) {
        buffer: BufferRange,
        host: []const u8,
    };

    /// The header's struct for these end points, copying `size` bytes.
    fn toC(self: MemcpyParams, size: u64) c.cuabi_graph_memcpy_params {
        var out: c.cuabi_graph_memcpy_params = .{ .struct_size = @sizeOf(c.cuabi_graph_memcpy_params), .size = size };
        switch (self.dst) {
            .buffer => |range| {
                out.dst_buffer = range.buffer.handle;
                out.dst_offset = range.offset;
            },
            .host => |host| out.dst_host = host.ptr,
        }
        switch (self.src) {
            .buffer => |range| {
                out.src_buffer = range.buffer.handle;
                out.src_offset = range.offset;
            },
            .host => |host| out.src_host = host.ptr,
        }
        return out;
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
        .conditional_type = if (raw.conditional_type == 0) null else @fromBackingInt(raw.conditional_type),
        .conditional_body_count = raw.conditional_body_count,
        .condition = if (raw.conditional_type == 0) null else @fromBackingInt(raw.condition),
        .conditional_body_nodes = raw.conditional_body_nodes,
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

/// Points memcpy node `index` at new end points for the following replays, each checked against
/// its buffer's bounds (`error.OutOfBounds`; also for host memory shorter than `size`); the graph
/// keeps the new buffers alive. `error.InvalidArgument` for a size missing or 0 or a direction
/// other than the node's, `error.ContextMismatch` for a buffer of another device,
/// `error.GraphNode` for a node that is not a memcpy node, `error.GraphUpdate` when the driver
/// refuses (the node keeps its end points).
pub fn updateMemcpy(self: Graph, index: usize, params: MemcpyParams) Error!void {
    const name = "cuabi_graph_update_memcpy";
    const size = params.size orelse hostSide(params.dst) orelse hostSide(params.src) orelse
        return errors.recordPackageFailure(self.lib, name, c.CUABI_ERROR_INVALID_ARGUMENT, "a copy between two buffers needs a size.", .{}, "set MemcpyParams.size.");
    for ([_]?usize{ hostSide(params.dst), hostSide(params.src) }) |length| {
        if (length != null and length.? < size)
            return errors.recordPackageFailure(self.lib, name, c.CUABI_ERROR_OUT_OF_BOUNDS, "the copy is {d} bytes; its host memory has {d}.", .{ size, length.? }, "pass host memory of at least MemcpyParams.size bytes, or a smaller size.");
    }
    const raw = params.toC(size);
    return self.lib.call(name, .{ self.handle, index, &raw });
}

/// The length of a host end point (`MemcpyParams.Destination` or `Source`), or null for a buffer.
fn hostSide(end: anytype) ?usize {
    return switch (end) {
        .host => |host| host.len,
        .buffer => null,
    };
}

/// Turns node `index` off (replays skip it, as if it had no work; its dependencies still order
/// the nodes around it) or back on, for the following replays. Kernel, memcpy and memset nodes
/// only: `error.GraphNode` for other kinds and bad indexes. A whole-graph update that
/// re-instantiates turns every node back on.
pub fn setNodeEnabled(self: Graph, index: usize, enabled: bool) Error!void {
    return self.lib.call("cuabi_graph_set_node_enabled", .{ self.handle, index, @as(u32, @intFromBool(enabled)) });
}

/// Whether node `index` runs on replay. Errors as for `setNodeEnabled`.
pub fn nodeEnabled(self: Graph, index: usize) Error!bool {
    var out: u32 = 0;
    try self.lib.call("cuabi_graph_get_node_enabled", .{ self.handle, index, &out });
    return out != 0;
}

/// The graph as Graphviz DOT text (caller frees): node kinds, kernel names, geometry and
/// dependencies, and with `flags.verbose` every parameter the driver knows of every node.
pub fn dot(self: Graph, allocator: Allocator, flags: types.GraphDotFlags) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_graph_get_dot", .{ self.handle, @as(u32, @bitCast(flags)) }, allocator);
}

/// Writes the graph as DOT text (as `dot`) to the file at `path`, created or replaced; links in
/// the path are followed. `error.Cuda` when the file cannot be written (the message names it).
pub fn writeDot(self: Graph, path: [:0]const u8, flags: types.GraphDotFlags) Error!void {
    return self.lib.call("cuabi_graph_write_dot", .{ self.handle, path.ptr, @as(u32, @bitCast(flags)) });
}
