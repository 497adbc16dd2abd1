//! A batch of compiles running in parallel on cuabi's compile workers (cuabi 1.2): memory-cache
//! hits are done when it starts, the rest run at most `CUABI_COMPILE_WORKERS` at once. Each
//! request ends with its own module or its own error (read `cuabi.lastError()` right after
//! `module` returns it). `state`, `module` and `cancel` may be called from any thread at once.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const Library = @import("Library.zig");
const Context = @import("Context.zig");
const Module = @import("Module.zig");

const CompileBatch = @This();
const Error = errors.Error;
const Allocator = std.mem.Allocator;

/// The library the batch came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_compile_batch,
/// The number of requests.
len: usize,

/// The most requests one batch takes (`CUABI_COMPILE_BATCH_MAX_REQUESTS`).
pub const max_requests: usize = c.CUABI_COMPILE_BATCH_MAX_REQUESTS;

/// One compile: `source` with `options`, for `context`'s device, or offline for
/// `options.target` when `context` is null. Copied when the batch starts.
pub const Request = struct {
    context: ?Context = null,
    source: [*:0]const u8,
    options: types.CompileOptions = .{},
};

/// Where a request is; once done, how it ended.
pub const State = union(types.RequestState) {
    queued,
    compiling,
    done: Error!void,
};

/// Starts compiling `requests`, at most `jobs` at once (0: as many as the worker pool allows).
/// Fails, starting nothing, for a request cuabi refuses (the message names it by index).
/// `allocator` holds the C form of the requests during the call only.
pub fn start(lib: *const Library, allocator: Allocator, requests: []const Request, jobs: u32) (Error || Allocator.Error)!CompileBatch {
    const options = try allocator.alloc(c.cuabi_compile_options, requests.len);
    defer allocator.free(options);
    const raw = try allocator.alloc(c.cuabi_compile_request, requests.len);
    defer allocator.free(raw);
    for (requests, options, raw) |request, *o, *r| {
        o.* = request.options.toC();
        r.* = .{ .context = if (request.context) |context| context.handle else null, .source = request.source, .options = o };
    }
    var handle: ?*c.cuabi_compile_batch = null;
    try lib.call("cuabi_compile_batch_start", .{ if (raw.len == 0) null else raw.ptr, raw.len, jobs, &handle });
    var batch: CompileBatch = .{ .lib = lib, .handle = handle.?, .len = 0 };
    errdefer batch.deinit();
    try lib.call("cuabi_compile_batch_get_count", .{ batch.handle, &batch.len });
    return batch;
}

/// Cancels what is not done, waits for the batch's threads and releases it; modules taken from
/// it stay valid.
pub fn deinit(self: CompileBatch) void {
    if (self.lib.dispatch.cuabi_compile_batch_destroy) |destroy| destroy(self.handle);
}

/// Request `index`'s state, without waiting.
pub fn state(self: CompileBatch, index: usize) Error!State {
    var raw_state: i32 = 0;
    var status: c.cuabi_status = 0;
    try self.lib.call("cuabi_compile_batch_get_state", .{ self.handle, index, &raw_state, &status });
    return switch (@as(types.RequestState, @fromBackingInt(@intCast(raw_state)))) {
        .queued => .queued,
        .compiling => .compiling,
        .done => .{ .done = if (status == c.CUABI_SUCCESS) {} else errors.errorFromStatus(status) },
        _ => error.UnknownStatus,
    };
}

/// Waits for request `index`: its module, or its own error (`cuabi.lastError()` has its message
/// and compile log).
pub fn module(self: CompileBatch, index: usize) Error!Module {
    var handle: ?*c.cuabi_module = null;
    try self.lib.call("cuabi_compile_batch_get_module", .{ self.handle, index, &handle });
    return .{ .lib = self.lib, .handle = handle.? };
}

/// Ends every request not done with `error.Cancelled` (a compile running in the worker within
/// milliseconds); returns without waiting.
pub fn cancel(self: CompileBatch) Error!void {
    try self.lib.call("cuabi_compile_batch_cancel", .{self.handle});
}

/// Compiles `requests` in parallel and returns each one's module or error, in order (the caller
/// frees the slice and deinits the modules).
pub fn compileAll(lib: *const Library, allocator: Allocator, requests: []const Request) (Error || Allocator.Error)![]Error!Module {
    const batch = try start(lib, allocator, requests, 0);
    defer batch.deinit();
    const results = try allocator.alloc(Error!Module, batch.len);
    for (results, 0..) |*result, index| result.* = batch.module(index);
    return results;
}
