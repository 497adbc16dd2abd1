//! A stream: an ordered queue of GPU work, created non-blocking (never CUDA's legacy default
//! stream). Work from several threads on one stream runs in enqueue order. Where a call takes an
//! optional stream, null means "run synchronously" on the calling thread's per-thread stream.
//! A stream also captures graphs: `beginCapture`, launches and transfers, `endCapture`; inside a
//! capture, conditional nodes: `createCondition`, `beginConditional`, the bodies, `endConditional`.

const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const Library = @import("Library.zig");
const Context = @import("Context.zig");
const Event = @import("Event.zig");
const Graph = @import("Graph.zig");

const Stream = @This();
const Error = errors.Error;

/// The library the stream came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_stream,

/// Creates a non-blocking stream on `context`; the priority is clamped to the device's range.
pub fn create(context: Context, options: types.StreamOptions) Error!Stream {
    const raw: c.cuabi_stream_options = .{ .struct_size = @sizeOf(c.cuabi_stream_options), .flags = @bitCast(options.flags), .priority = options.priority, .reserved = 0 };
    var handle: ?*c.cuabi_stream = null;
    try context.lib.call("cuabi_stream_create", .{ context.handle, &raw, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// Wraps a CUstream of `context` made by other CUDA code, without owning it: `deinit` releases
/// the handle, not the stream, which must outlive the handle.
pub fn wrap(context: Context, cu_stream: *anyopaque) Error!Stream {
    var handle: ?*c.cuabi_stream = null;
    try context.lib.call("cuabi_stream_wrap", .{ context.handle, cu_stream, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// Destroys an owned stream once its queued work is done (without waiting); releases a wrapped
/// one; discards a capture cuabi began on it. Harmless to repeat.
pub fn deinit(self: Stream) void {
    if (self.lib.dispatch.cuabi_stream_destroy) |destroy| destroy(self.handle);
}

/// Waits until all work on the stream is done.
pub fn synchronize(self: Stream) Error!void {
    return self.lib.call("cuabi_stream_synchronize", .{self.handle});
}

/// Whether all work on the stream is done (false while some still runs).
pub fn isDone(self: Stream) Error!bool {
    return self.lib.callDone("cuabi_stream_query", .{self.handle});
}

/// Makes later work on this stream wait until `event` has completed.
pub fn waitEvent(self: Stream, event: Event) Error!void {
    return self.lib.call("cuabi_stream_wait_event", .{ self.handle, event.handle });
}

/// The underlying CUstream, for other CUDA code. Not owned by the caller.
pub fn native(self: Stream) Error!*anyopaque {
    var out: ?*anyopaque = null;
    try self.lib.call("cuabi_stream_get_native", .{ self.handle, &out });
    return out.?;
}

// ---- graph capture ------------------------------------------------------------------------

/// Starts capturing: work enqueued on the stream is recorded, not run, until `endCapture`.
/// `error.Capture` when the stream already captures.
pub fn beginCapture(self: Stream, mode: types.CaptureMode) Error!void {
    return self.lib.call("cuabi_graph_capture_begin", .{ self.handle, @backingInt(mode) });
}

/// Ends the capture and instantiates it into a graph the caller releases. On every failure a
/// capture cuabi began is ended and discarded.
pub fn endCapture(self: Stream, options: types.GraphOptions) Error!Graph {
    const raw: c.cuabi_graph_options = .{ .struct_size = @sizeOf(c.cuabi_graph_options), .flags = @bitCast(options.flags) };
    var handle: ?*c.cuabi_graph = null;
    try self.lib.call("cuabi_graph_capture_end", .{ self.handle, &raw, &handle });
    return .{ .lib = self.lib, .handle = handle.? };
}

/// Ends the capture and updates `graph` from it: in place when the topology is the same, else
/// by instantiating the new capture (unless `flags.no_reinstantiate`, which then fails with
/// `error.GraphUpdate` and leaves the graph as it was). Returns what happened and why.
pub fn endCaptureUpdate(self: Stream, graph: Graph, flags: types.GraphUpdateFlags) Error!Graph.UpdateInfo {
    var info = types.outputStruct(c.cuabi_graph_update_info);
    try self.lib.call("cuabi_graph_capture_end_update", .{ self.handle, graph.handle, @as(u32, @bitCast(flags)), &info });
    return .{ .raw = info };
}

/// Ends and discards a capture cuabi began on the stream, if any (for when the caller's own code
/// fails between begin and end). `error.Capture` for a capture other code began.
pub fn abortCapture(self: Stream) Error!void {
    return self.lib.call("cuabi_graph_capture_abort", .{self.handle});
}

/// Whether the stream captures, whoever began the capture.
pub fn captureStatus(self: Stream) Error!types.CaptureStatus {
    var out: i32 = 0;
    try self.lib.call("cuabi_graph_capture_get_status", .{ self.handle, &out });
    return @fromBackingInt(out);
}

// ---- conditional nodes ----------------------------------------------------------------------

/// The value a conditional node tests: made for the graph being captured (`createCondition`),
/// passed to kernels as a `cudaGraphConditionalHandle` parameter (8 bytes), which set it on the
/// device with `cudaGraphSetConditional(condition, value)`.
pub const Condition = enum(u64) { _ };

/// Makes a condition for the graph the stream captures into now: the capture, or the body being
/// captured. With `flags.assign_default` every replay starts with it at `default_value`.
/// `error.Capture` when the stream is not in a capture cuabi began; `error.Unsupported` before
/// CUDA 12.3.
pub fn createCondition(self: Stream, default_value: u32, flags: types.GraphConditionFlags) Error!Condition {
    var out: u64 = 0;
    try self.lib.call("cuabi_graph_condition_create", .{ self.handle, default_value, @as(u32, @bitCast(flags)), &out });
    return @fromBackingInt(out);
}

/// Adds a conditional node testing `condition` after the work captured so far; the stream then
/// captures its first body. While takes 1 body, if 1 or 2 (the second runs when the condition is
/// zero), switch 1 or more (`error.InvalidArgument` otherwise). On any failure cuabi ends and
/// discards the whole capture.
pub fn beginConditional(self: Stream, condition: Condition, kind: types.GraphConditionalType, body_count: u32) Error!void {
    return self.lib.call("cuabi_graph_capture_conditional_begin", .{ self.handle, @backingInt(condition), @backingInt(kind), body_count });
}

/// Ends the body being captured and captures the node's next one. `error.OutOfBounds` after the
/// last.
pub fn nextConditionalBody(self: Stream) Error!void {
    return self.lib.call("cuabi_graph_capture_conditional_next", .{self.handle});
}

/// Ends the body being captured (bodies not reached stay empty) and captures the graph around the
/// node again, after it.
pub fn endConditional(self: Stream) Error!void {
    return self.lib.call("cuabi_graph_capture_conditional_end", .{self.handle});
}
